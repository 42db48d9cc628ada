//! Reading numeric tables (CSV or NPY), label lists and index lists.
//!
//! A file is taken as NPY when it starts with the NPY magic bytes, whatever its
//! name, so `-` (standard input) works for both; anything else is read as CSV.
//! The formats' rules are in [`csv`] and [`npy`]; this module holds what they
//! share: the [`Table`] they produce, the [`Scalar`] types it can hold, where
//! its rows came from ([`RowOrigin`]) and where its bytes came from ([`Source`]).
//!
//! Every error names the file, the line and column (1-based) or, for NPY, the
//! element (0-based, as numpy indexes it), and says what was expected. Rows of
//! an NPY array are named from 1 with their numpy index ([`RowOrigin`]).

pub mod csv;
mod lists;
pub mod npy;
pub mod stream;
mod types;

pub use lists::{read_indices, read_labels};
pub use types::{RowOrigin, Scalar, Source, Table};

use crate::error::CliResult;
use std::path::Path;

/// Reads a numeric table (CSV or NPY) from a path or `-`.
pub fn read_table<T: Scalar>(arg: &Path) -> CliResult<Table<T>> {
    let source = Source::from_arg(arg);
    let bytes = source.read_all()?;
    parse_table(&bytes, &source.name())
}

/// Parses a numeric table from bytes (`name` is used in messages).
pub fn parse_table<T: Scalar>(bytes: &[u8], name: &str) -> CliResult<Table<T>> {
    if bytes.starts_with(npy::NPY_MAGIC) {
        npy::parse_npy(bytes, name)
    } else {
        csv::parse_csv(bytes, name)
    }
}
