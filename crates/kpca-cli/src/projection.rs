//! Projection of a table through the device model: reading rows with the
//! model's input dimension, and the core's f32 coordinates and anomaly score of
//! each row (what the firmware computes). Used by `kpca project` and `kpca plot`.

use crate::error::{CliError, CliResult};
use crate::table::{read_table, Table};
use kpca_core::ModelRef;
use std::path::Path;

/// The f32 coordinates (rows x k, row-major) and anomaly scores of every row,
/// through the core. Errors name the row's origin.
pub fn project_rows(model: &ModelRef<'_>, table: &Table<f32>) -> CliResult<(Vec<f32>, Vec<f32>)> {
    let k = model.n_components();
    let mut coords = vec![0.0f32; table.n_rows() * k];
    let mut scores = Vec::with_capacity(table.n_rows());
    for ((row, out), origin) in table
        .rows()
        .zip(coords.chunks_exact_mut(k))
        .zip(&table.origins)
    {
        let score = model.project_and_score(row, out).map_err(|e| {
            CliError::input(format!("{}: {origin}: cannot project: {e}", table.name))
        })?;
        scores.push(score);
    }
    Ok((coords, scores))
}

/// Reads `input` as f32 rows for `model`, checking the number of columns.
pub fn read_rows_for(model: &ModelRef<'_>, input: &Path) -> CliResult<Table<f32>> {
    let mut table = read_table::<f32>(input)?;
    let d = model.dim();
    if table.one_d && d > 1 && table.values.len() == d {
        table = table.into_single_row();
    }
    if table.n_cols != d {
        return Err(CliError::input(format!(
            "{}: {} columns, but the model's input dimension is d = {d}",
            table.name, table.n_cols
        )));
    }
    Ok(table)
}
