//! Arbitrary bytes through the `kpca` command's table reader
//! (`kpca_cli::table::parse_table`: CSV, or NPY when the bytes start with the
//! NPY magic), as f64 and as f32, or with the NPY magic put in front so that
//! every input can also reach the NPY header parser. A table that is read
//! must be rectangular, non-empty and finite; an error must name the file.
#![no_main]

use kpca_cli::table::{parse_table, Scalar, Table};
use libfuzzer_sys::fuzz_target;

const NAME: &str = "fuzz-input";

fn check<T: Scalar>(bytes: &[u8]) -> Option<(usize, usize)> {
    match parse_table::<T>(bytes, NAME) {
        Ok(t) => {
            let t: Table<T> = t;
            assert!(t.n_cols > 0, "zero columns");
            assert!(t.n_rows() > 0, "zero rows");
            assert_eq!(t.values.len(), t.n_rows() * t.n_cols, "not rectangular");
            assert!(t.values.iter().all(|v| v.finite()), "non-finite value read");
            assert_eq!(t.rows().count(), t.n_rows());
            if let Some(h) = &t.header {
                assert_eq!(h.len(), t.n_cols, "header width");
            }
            assert_eq!(t.name, NAME);
            Some((t.n_rows(), t.n_cols))
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.starts_with(NAME), "error does not name the file: {msg}");
            assert_eq!(e.exit_code(), 1, "bad data is bad input (exit 1): {msg}");
            None
        }
    }
}

// One parse per input keeps the target fast; the input's length picks which
// (f64 or f32, as given or behind the NPY magic), so every input reaches each
// of them as the fuzzer grows and shrinks it.
fuzz_target!(|data: &[u8]| {
    let prefixed = [&b"\x93NUMPY"[..], data].concat();
    match data.len() % 4 {
        0 => {
            check::<f64>(data);
        }
        1 => {
            // Whatever reads as f32 reads as f64 with the same shape (f32 only
            // adds range errors).
            if let Some(shape) = check::<f32>(data) {
                assert_eq!(check::<f64>(data), Some(shape), "f32 read but f64 did not");
            }
        }
        2 => {
            check::<f64>(&prefixed);
        }
        _ => {
            check::<f32>(&prefixed);
        }
    }
});
