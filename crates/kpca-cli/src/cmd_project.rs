//! `kpca project`: the device's f32 projection of every input row.

use crate::error::{CliError, CliResult};
use crate::model_file::ModelFile;
use crate::output::{is_stdout, Sink};
use crate::projection::{project_rows, read_rows_for};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `kpca project`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Every input row gives one output row: the k kernel-PCA coordinates \
    (y1..yk), then, with --anomaly-score, the anomaly score. Numbers are written in the \
    shortest form that reads back to the same f32. The computation is the core's f32 code \
    (ModelRef::from_bytes + project_and_score), exactly what the firmware computes.\n\n\
    Example:\n  kpca project --model model.kpca --input test.csv --output scores.csv --anomaly-score"
)]
pub struct ProjectArgs {
    /// Model blob written by `kpca fit`, or `-` for standard input (required).
    #[arg(long, value_name = "FILE")]
    pub model: PathBuf,
    /// Data to project: a CSV or NPY file with the model's d features per row, or
    /// `-` for standard input (required). A 1-D NPY array of length d is one row.
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// Where to write the CSV of scores, `-` for standard output.
    #[arg(long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// Add a last column with the anomaly score (feature-space reconstruction
    /// error) of each row [default: off: only the k coordinates].
    #[arg(long)]
    pub anomaly_score: bool,
    /// Write a header line first: y1,...,yk, then anomaly_score with
    /// --anomaly-score [default: off].
    #[arg(long)]
    pub header: bool,
}

/// Refuses `--model -` together with `--input -` (one standard input).
pub fn check_one_stdin(model: &std::path::Path, input: &std::path::Path) -> CliResult<()> {
    if is_stdout(model) && is_stdout(input) {
        return Err(CliError::usage(
            "--model - and --input -: only one of them can read standard input",
        ));
    }
    Ok(())
}

/// Runs `kpca project`.
pub fn run(args: &ProjectArgs) -> CliResult<()> {
    check_one_stdin(&args.model, &args.input)?;
    let file = ModelFile::read(&args.model)?;
    let model = file.model();
    let table = read_rows_for(model, &args.input)?;
    let (coords, scores) = project_rows(model, &table)?;
    let k = model.n_components();
    let mut sink = Sink::create(&args.output)?;
    if args.header {
        let mut names: Vec<String> = (1..=k).map(|l| format!("y{l}")).collect();
        if args.anomaly_score {
            names.push("anomaly_score".into());
        }
        sink.text_row(&names)?;
    }
    let mut row = Vec::with_capacity(k + 1);
    for (y, &e) in coords.chunks_exact(k).zip(&scores) {
        row.clear();
        row.extend_from_slice(y);
        if args.anomaly_score {
            row.push(e);
        }
        sink.float_row(&row)?;
    }
    sink.finish()
}
