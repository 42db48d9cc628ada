//! `kpca predict`: the regression head's prediction of every input row, with
//! the device's f32 code ([`kpca_core::ModelRef::predict`], what kpca_predict
//! computes).

use crate::cmd_project::check_one_stdin;
use crate::error::{CliError, CliResult};
use crate::model_file::ModelFile;
use crate::output::{is_stdout, Sink};
use crate::projection::read_rows_for;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `kpca predict`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Every input row gives one output row: one column per regression target, in \
    the order of the --target file given to `kpca fit`. The computation is the core's f32 code \
    (ModelRef::predict), exactly what kpca_predict computes on the device.\n\n\
    With --truth, each target's RMSE and R² against the true values go to standard error.\n\n\
    Example:\n  kpca fit --input train.csv --kernel rbf --components 8 --target y.csv \
    --output model.kpca\n  kpca predict --model model.kpca --input test.csv --output y_hat.csv"
)]
pub struct PredictArgs {
    /// Model blob written by `kpca fit --target`, or `-` for standard input (required).
    #[arg(long, value_name = "FILE")]
    pub model: PathBuf,
    /// Data: a CSV or NPY file with the model's d features per row, or `-` for
    /// standard input (required).
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// Where to write the CSV of predictions, `-` for standard output.
    #[arg(long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// Write a header line first: target1,...,targetT [default: off].
    #[arg(long)]
    pub header: bool,
    /// The true target values of the input rows (a CSV or NPY file, one row per
    /// input row, one column per target): reports each target's RMSE and R²
    /// on standard error [default: none].
    #[arg(long, value_name = "FILE")]
    pub truth: Option<PathBuf>,
}

/// RMSE and R² (1 - SSE / SST about the truth's mean) of column `j` of the
/// row-major `pred` and `truth`, both with `t` columns.
pub fn fit_quality(pred: &[f64], truth: &[f64], t: usize, j: usize) -> (f64, f64) {
    let col = |v: &[f64]| {
        v.iter()
            .skip(j)
            .step_by(t.max(1))
            .copied()
            .collect::<Vec<f64>>()
    };
    let (p, y) = (col(pred), col(truth));
    let n = y.len().max(1) as f64;
    let mean = y.iter().sum::<f64>() / n;
    let sse: f64 = p.iter().zip(&y).map(|(a, b)| (a - b) * (a - b)).sum();
    let sst: f64 = y.iter().map(|b| (b - mean) * (b - mean)).sum();
    // A constant truth: R² is 1 for a perfect prediction, else 0 (as
    // scikit-learn's r2_score with force_finite).
    let r2 = if sst > 0.0 {
        1.0 - sse / sst
    } else if sse == 0.0 {
        1.0
    } else {
        0.0
    };
    ((sse / n).sqrt(), r2)
}

/// Reads `--truth` and reports the quality of `pred` (rows x t) against it.
fn report_truth(args: &PredictArgs, pred: &[f64], rows: usize, t: usize) -> CliResult<()> {
    let Some(path) = &args.truth else {
        return Ok(());
    };
    let truth = crate::table::read_table::<f64>(path)?;
    if truth.n_rows() != rows || truth.n_cols != t {
        return Err(CliError::input(format!(
            "{}: {} rows x {} columns, but the predictions are {rows} rows x {t} targets",
            truth.name,
            truth.n_rows(),
            truth.n_cols
        )));
    }
    for j in 0..t {
        let (rmse, r2) = fit_quality(pred, &truth.values, t, j);
        crate::output::stderr_line(&format!(
            "target {}: RMSE {rmse:.6}, R² {r2:.4} on {rows} rows ({})",
            j + 1,
            truth.name
        ));
    }
    Ok(())
}

/// Runs `kpca predict`.
pub fn run(args: &PredictArgs) -> CliResult<()> {
    check_one_stdin(&args.model, &args.input)?;
    let truth_stdin = args.truth.as_deref().is_some_and(crate::output::is_stdout);
    if truth_stdin && (is_stdout(&args.input) || is_stdout(&args.model)) {
        return Err(CliError::usage(
            "--truth - with --input - or --model -: only one of them can read standard input",
        ));
    }
    let file = ModelFile::read(&args.model)?;
    let model = file.model();
    let t = model.n_targets();
    if t == 0 {
        return Err(CliError::input(format!(
            "{}: the model has no regression head: fit it with `kpca fit ... --target FILE`",
            file.name
        )));
    }
    let table = read_rows_for(model, &args.input)?;
    let mut sink = Sink::create(&args.output)?;
    if args.header {
        let names: Vec<String> = (1..=t).map(|j| format!("target{j}")).collect();
        sink.text_row(&names)?;
    }
    let mut out = vec![0.0f32; t];
    let mut all = Vec::with_capacity(table.n_rows() * t);
    for (row, origin) in table.rows().zip(&table.origins) {
        model.predict(row, &mut out).map_err(|e| {
            CliError::input(format!("{}: {origin}: cannot predict: {e}", table.name))
        })?;
        sink.float_row(&out)?;
        all.extend(out.iter().map(|&v| f64::from(v)));
    }
    sink.finish()?;
    report_truth(args, &all, table.n_rows(), t)
}
