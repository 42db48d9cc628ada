//! What the table readers share (the ground floor of `table`): the [`Table`]
//! they produce, the [`Scalar`] types it can hold, where its rows came from
//! ([`RowOrigin`]) and where its bytes came from ([`Source`]).

use crate::error::{CliError, CliResult};
use std::fmt::Debug;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// A float type a table can be read as.
pub trait Scalar: Copy + Debug + FromStr + PartialEq + 'static {
    /// Type name for messages.
    const NAME: &'static str;
    /// Whether the value is finite.
    fn finite(self) -> bool;
    /// Conversion from an f64 element of an NPY file (rounding to nearest).
    fn from_f64(v: f64) -> Self;
    /// Conversion from an f32 element of an NPY file (exact).
    fn from_f32(v: f32) -> Self;
}

impl Scalar for f64 {
    const NAME: &'static str = "f64";
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    fn from_f32(v: f32) -> Self {
        f64::from(v)
    }
}

impl Scalar for f32 {
    const NAME: &'static str = "f32";
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn from_f64(v: f64) -> Self {
        // Round to nearest, as the firmware would when converting.
        v as f32
    }
    fn from_f32(v: f32) -> Self {
        v
    }
}

/// Where a table comes from: a file path or standard input (`-`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// `-` is standard input, anything else a path.
    pub fn from_arg(arg: &Path) -> Source {
        if arg.as_os_str() == "-" {
            Source::Stdin
        } else {
            Source::File(arg.to_path_buf())
        }
    }

    /// The name used in messages.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".to_string(),
            Source::File(p) => p.display().to_string(),
        }
    }

    /// Reads all bytes.
    pub fn read_all(&self) -> CliResult<Vec<u8>> {
        let mut bytes = Vec::new();
        match self {
            Source::Stdin => std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map(|_| ())
                .map_err(|e| CliError::input(format!("<stdin>: cannot read: {e}")))?,
            Source::File(p) => {
                bytes = std::fs::read(p)
                    .map_err(|e| CliError::input(format!("{}: cannot read: {e}", p.display())))?;
            }
        }
        Ok(bytes)
    }
}

/// Where a row of a table came from, for messages about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOrigin {
    /// 1-based line of a CSV file.
    Line(u64),
    /// 0-based row of an NPY array (shown as `row 4 (numpy index 3)`).
    NpyRow(usize),
}

impl std::fmt::Display for RowOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowOrigin::Line(l) => write!(f, "line {l}"),
            RowOrigin::NpyRow(r) => write!(f, "row {} (numpy index {r})", r.saturating_add(1)),
        }
    }
}

/// A numeric table read from a file: row-major values.
#[derive(Clone, Debug, PartialEq)]
pub struct Table<T> {
    /// The values, row-major, all finite.
    pub values: Vec<T>,
    /// Number of columns (features); at least 1.
    pub n_cols: usize,
    /// Column names when the CSV file had a header line.
    pub header: Option<Vec<String>>,
    /// Where each row came from.
    pub origins: Vec<RowOrigin>,
    /// Whether the data was a 1-D NPY array (read as one column).
    pub one_d: bool,
    /// The source's name, for messages.
    pub name: String,
}

impl<T: Copy> Table<T> {
    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.origins.len()
    }

    /// The rows.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, T> {
        self.values.chunks_exact(self.n_cols)
    }

    /// A 1-D array read as one column becomes one row (for a single vector).
    pub fn into_single_row(self) -> Table<T> {
        let n = self.values.len();
        Table {
            values: self.values,
            n_cols: n,
            header: None,
            origins: vec![RowOrigin::NpyRow(0)],
            one_d: true,
            name: self.name,
        }
    }
}
