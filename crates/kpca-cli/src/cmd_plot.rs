//! `kpca plot`: scatter of the first two components and the scree plot, as SVG.

use crate::cmd_project::check_one_stdin;
use crate::error::{CliError, CliResult};
use crate::model_file::ModelFile;
use crate::model_summary::explained_among_stored;
use crate::output::{is_stdout, output_name, write_output, Console};
use crate::plot::{group_by_label, scatter_svg, scree_svg, two_panel_svg, Figure};
use crate::projection::{project_rows, read_rows_for};
use crate::table::read_labels;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `kpca plot`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "The scatter shows the first two kernel-PCA coordinates of every \
    input row, computed by the device's f32 code (a model with one component shows \
    component 1 against the anomaly score). The scree plot shows each stored \
    eigenvalue's share among the k stored ones, and the cumulative share. With --output - \
    the SVG goes to standard output and the report to standard error.\n\n\
    Example:\n  kpca plot --model model.kpca --input test.csv --labels labels.csv --output fig.svg"
)]
pub struct PlotArgs {
    /// Model blob written by `kpca fit`, or `-` for standard input (required).
    #[arg(long, value_name = "FILE")]
    pub model: PathBuf,
    /// Data to plot: a CSV or NPY file with the model's d features per row, or `-`
    /// for standard input (required).
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// One label per input row (text or numbers, one per line, optional header
    /// line); points are coloured by label [default: none, one colour].
    #[arg(long, value_name = "FILE")]
    pub labels: Option<PathBuf>,
    /// Where to write the SVG, or `-` for standard output (required).
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
    /// Write the scree plot to this separate SVG file (or `-`), and only the
    /// scatter to --output [default: none: both panels side by side in --output].
    #[arg(long, value_name = "FILE")]
    pub scree_output: Option<PathBuf>,
    /// Print no report, only warnings and errors [default: off].
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Checks the input and output arguments: at most one of them is standard
/// input, at most one standard output.
fn check_outputs(args: &PlotArgs) -> CliResult<()> {
    check_one_stdin(&args.model, &args.input)?;
    if args.labels.as_deref().is_some_and(is_stdout)
        && (is_stdout(&args.model) || is_stdout(&args.input))
    {
        return Err(CliError::usage(
            "--labels -: only one of --model, --input and --labels can read standard input",
        ));
    }
    if args.scree_output.as_deref().is_some_and(is_stdout) && is_stdout(&args.output) {
        return Err(CliError::usage(
            "--output - and --scree-output -: only one of them can be standard output",
        ));
    }
    Ok(())
}

/// Runs `kpca plot`.
pub fn run(args: &PlotArgs) -> CliResult<()> {
    check_outputs(args)?;
    let to_stdout = is_stdout(&args.output) || args.scree_output.as_deref().is_some_and(is_stdout);
    let console = Console::new(to_stdout, args.quiet);
    let file = ModelFile::read(&args.model)?;
    let model = file.model()?;
    let table = read_rows_for(&model, &args.input)?;
    let (coords, scores) = project_rows(&model, &table)?;
    let k = model.n_components();
    let (points, axes): (Vec<(f64, f64)>, _) = if k >= 2 {
        (
            coords
                .chunks_exact(k)
                .map(|y| (f64::from(y[0]), f64::from(y[1])))
                .collect(),
            ("component 1", "component 2"),
        )
    } else {
        (
            coords
                .iter()
                .zip(&scores)
                .map(|(&y, &e)| (f64::from(y), f64::from(e)))
                .collect(),
            ("component 1", "anomaly score"),
        )
    };
    let labels = match &args.labels {
        Some(path) => Some(read_labels(path, table.n_rows())?),
        None => None,
    };
    let groups = group_by_label(&points, labels.as_deref());
    let ratios = explained_among_stored(model.eigenvalues());
    let scatter_title = format!(
        "kernel PCA ({}), {} rows",
        model.kernel().id().name(),
        table.n_rows()
    );
    let scree_y = format!("share of variance (among {k} stored)");
    let fig = Figure {
        scatter_title: &scatter_title,
        axes,
        groups: &groups,
        scree_title: "explained variance",
        scree_y: &scree_y,
        ratios: &ratios,
    };
    match &args.scree_output {
        Some(scree_path) => {
            write_output(&args.output, scatter_svg(&fig)?.as_bytes())?;
            write_output(scree_path, scree_svg(&fig)?.as_bytes())?;
            console.report(&format!(
                "wrote {} (scatter) and {} (scree)",
                output_name(&args.output),
                output_name(scree_path)
            ))
        }
        None => {
            write_output(&args.output, two_panel_svg(&fig)?.as_bytes())?;
            console.report(&format!(
                "wrote {} (scatter and scree)",
                output_name(&args.output)
            ))
        }
    }
}
