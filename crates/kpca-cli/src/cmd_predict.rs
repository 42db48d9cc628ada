//! `kpca predict`: the regression head's prediction of every input row, with
//! the device's f32 code ([`kpca::ModelRef::predict`], what kpca_predict
//! computes).

use crate::cmd_project::check_one_stdin;
use crate::error::{CliError, CliResult};
use crate::model_file::ModelFile;
use crate::output::Sink;
use crate::projection::read_rows_for;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `kpca predict`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Every input row gives one output row: one column per regression target, in \
    the order of the --target file given to `kpca fit`. The computation is the core's f32 code \
    (ModelRef::predict), exactly what kpca_predict computes on the device.\n\n\
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
}

/// Runs `kpca predict`.
pub fn run(args: &PredictArgs) -> CliResult<()> {
    check_one_stdin(&args.model, &args.input)?;
    let file = ModelFile::read(&args.model)?;
    let model = file.model()?;
    let t = model.n_targets();
    if t == 0 {
        return Err(CliError::input(format!(
            "{}: the model has no regression head: fit it with `kpca fit ... --target FILE`",
            file.name
        )));
    }
    let table = read_rows_for(&model, &args.input)?;
    let mut sink = Sink::create(&args.output)?;
    if args.header {
        let names: Vec<String> = (1..=t).map(|j| format!("target{j}")).collect();
        sink.text_row(&names)?;
    }
    let mut out = vec![0.0f32; t];
    for (row, origin) in table.rows().zip(&table.origins) {
        model.predict(row, &mut out).map_err(|e| {
            CliError::input(format!("{}: {origin}: cannot predict: {e}", table.name))
        })?;
        sink.float_row(&out)?;
    }
    sink.finish()
}
