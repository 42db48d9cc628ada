//! Label lists and index lists: one value per line, read with the CSV rules
//! (comments, blank lines, an optional header line).

use super::csv::{is_number, records};
use super::Source;
use crate::error::{CliError, CliResult};
use std::path::Path;

/// Reads a list of labels, one per line (the first field of each line is used;
/// `#` comments and blank lines are skipped). With `n_rows` given, a list one
/// longer than that has a header line, which is dropped.
pub fn read_labels(arg: &Path, n_rows: usize) -> CliResult<Vec<String>> {
    let source = Source::from_arg(arg);
    let name = source.name();
    let bytes = source.read_all()?;
    let records = records(&bytes, &name)?;
    let mut labels: Vec<String> = records
        .into_iter()
        .map(|r| r.fields.into_iter().next().unwrap_or_default())
        .collect();
    if labels.len() == n_rows + 1 {
        labels.remove(0);
    }
    if labels.len() != n_rows {
        return Err(CliError::input(format!(
            "{name}: {} labels, but the data has {n_rows} rows (expected one label per row, \
             optionally after a header line)",
            labels.len()
        )));
    }
    Ok(labels)
}

/// Reads 0-based row indices, one per line (a header line is allowed).
pub fn read_indices(arg: &Path) -> CliResult<Vec<usize>> {
    let source = Source::from_arg(arg);
    let name = source.name();
    let bytes = source.read_all()?;
    let records = records(&bytes, &name)?;
    let mut out = Vec::with_capacity(records.len());
    for (i, record) in records.iter().enumerate() {
        if record.fields.len() != 1 {
            return Err(CliError::input(format!(
                "{name}: line {}: {} values (expected one 0-based row index per line)",
                record.line,
                record.fields.len()
            )));
        }
        let field = record.fields.first().map(String::as_str).unwrap_or("");
        match field.parse::<usize>() {
            Ok(v) => out.push(v),
            Err(_) if i == 0 && !is_number(field) => {} // header line
            Err(_) => {
                return Err(CliError::input(format!(
                    "{name}: line {}, column 1: expected a 0-based row index (an integer >= 0), \
                     found {field:?}",
                    record.line
                )))
            }
        }
    }
    if out.is_empty() {
        return Err(CliError::input(format!(
            "{name}: empty file (expected 0-based row indices, one per line)"
        )));
    }
    Ok(out)
}
