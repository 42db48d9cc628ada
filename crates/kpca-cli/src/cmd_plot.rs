//! `kpca plot`: scatter of the first two components, the anomaly view and the
//! scree plot, as SVG.

use crate::cmd_project::check_one_stdin;
use crate::error::{count, CliError, CliResult};
use crate::model_file::ModelFile;
use crate::model_summary::{
    rows_are_stored_points, shares_of_rows, variance_shares, VarianceBasis, VarianceShares,
};
use crate::output::{float_text, is_stdout, output_name, write_output, Console};
use crate::plot::{figure_svg, group_by_label, scatter_svg, scree_svg, AnomalyView, Figure};
use crate::projection::{project_rows, read_rows_for};
use crate::table::read_labels;
use clap::Args;
use kpca_core::{Header, ModelRef};
use std::path::PathBuf;

/// Arguments of `kpca plot`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "The scatter shows the first two kernel-PCA coordinates of every \
    input row, computed by the device's f32 code (a model with one component shows \
    component 1 against the anomaly score). The anomaly view shows every row's anomaly \
    score in input order, coloured by label, with the model's threshold as a dashed line \
    and the rows above it ringed. The scree plot shows each component's share of the \
    fit's total variance and the cumulative share when the model stores that total \
    (format 2), or when the plotted rows are the training rows of a full fit (the model \
    stores them; their variance is the total); otherwise the shares among the k stored \
    components, and the figure says so. With --output - the SVG goes to standard output \
    and the report to standard error.\n\n\
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
    /// Write the scree plot to this separate SVG file (or `-`), and the scatter
    /// and the anomaly view to --output [default: none: every panel in --output].
    #[arg(long, value_name = "FILE")]
    pub scree_output: Option<PathBuf>,
    /// Print no report, only warnings and errors [default: off].
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The scatter's points and axis names: components 1 and 2, or component 1
/// and the anomaly score for a one-component model.
fn scatter_points(
    coords: &[f32],
    scores: &[f32],
    k: usize,
) -> (Vec<(f64, f64)>, (&'static str, &'static str)) {
    if k >= 2 {
        let points = coords
            .chunks_exact(k)
            .map(|y| (f64::from(y[0]), f64::from(y[1])))
            .collect();
        (points, ("component 1", "component 2"))
    } else {
        let points = coords
            .iter()
            .zip(scores)
            .map(|(&y, &e)| (f64::from(y), f64::from(e)))
            .collect();
        (points, ("component 1", "anomaly score"))
    }
}

/// The scree's shares, its y-axis name and its note: of the fit's total when
/// the model stores it; else, when the plotted rows are the model's stored
/// training rows (a full fit), of their variance, which is the fit's total;
/// else among the k stored components.
fn scree_shares(
    model: &ModelRef<'_>,
    version: u16,
    rows: &[f32],
    coords: &[f32],
    scores: &[f32],
) -> (VarianceShares, String, Option<String>) {
    let k = model.n_components();
    let stored = variance_shares(model);
    if stored.basis == VarianceBasis::FitTotal {
        return (stored, "share of the fit's total variance".into(), None);
    }
    let not_stored = format!("total variance not stored in this model (format {version})");
    let training = rows_are_stored_points(model, rows)
        .then(|| shares_of_rows(coords, scores, k))
        .flatten();
    match training {
        Some(shares) => {
            let note = format!(
                "{not_stored}: shares of the variance of the {} plotted, which are the \
                 model's training rows",
                count(scores.len(), "row")
            );
            (
                shares,
                "share of the fit's total variance".into(),
                Some(note),
            )
        }
        None => {
            let note = format!(
                "shares among the {}; {not_stored} (plotting the training rows of a full \
                 fit shows the shares of the total)",
                count(k, "stored component")
            );
            (stored, format!("share among the {k} stored"), Some(note))
        }
    }
}

/// The anomaly view's title: how many rows are above the threshold.
fn anomaly_title(scores: &[f32], threshold: Option<f32>) -> String {
    match threshold {
        Some(t) => {
            let above = scores.iter().filter(|&&e| e > t).count();
            format!(
                "anomaly score by row: {above} of {} above the threshold",
                scores.len()
            )
        }
        None => "anomaly score by row (the model has no threshold)".into(),
    }
}

/// Checks the output arguments: at most one of them is standard output.
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
    let model = file.model();
    let version = Header::read(file.bytes()).map_or(1, |h| h.version);
    let table = read_rows_for(model, &args.input)?;
    let (coords, scores) = project_rows(model, &table)?;
    let k = model.n_components();
    let (points, axes) = scatter_points(&coords, &scores, k);
    let labels = match &args.labels {
        Some(path) => Some(read_labels(path, table.n_rows())?),
        None => None,
    };
    let groups = group_by_label(&points, labels.as_deref());
    let by_row: Vec<(f64, f64)> = (1..)
        .zip(&scores)
        .map(|(i, &e)| (f64::from(i), f64::from(e)))
        .collect();
    let anomaly_groups = group_by_label(&by_row, labels.as_deref());
    let threshold = Some(model.threshold()).filter(|&t| t > 0.0);
    let anomaly_title = anomaly_title(&scores, threshold);
    let (shares, scree_y, note) = scree_shares(model, version, &table.values, &coords, &scores);
    let scatter_title = format!(
        "kernel PCA ({}), {}",
        model.kernel().id().name(),
        count(table.n_rows(), "row")
    );
    let fig = Figure {
        scatter_title: &scatter_title,
        axes,
        groups: &groups,
        scree_title: "explained variance",
        scree_y: &scree_y,
        ratios: &shares.shares,
        scree_note: note.as_deref(),
        anomaly: Some(AnomalyView {
            title: &anomaly_title,
            groups: &anomaly_groups,
            threshold: threshold.map(f64::from),
        }),
    };
    write_figures(args, &fig, &console)?;
    if let Some(t) = threshold {
        let above = scores.iter().filter(|&&e| e > t).count();
        console.report(&format!(
            "anomaly: {} of {} above the threshold {}",
            above,
            count(scores.len(), "row"),
            float_text(t)
        ))?;
    }
    Ok(())
}

/// Writes the SVG(s) and reports them.
fn write_figures(args: &PlotArgs, fig: &Figure<'_>, console: &Console) -> CliResult<()> {
    let out = output_name(&args.output);
    match &args.scree_output {
        Some(scree_path) => {
            write_output(&args.output, scatter_svg(fig)?.as_bytes())?;
            write_output(scree_path, scree_svg(fig)?.as_bytes())?;
            console.report(&format!(
                "wrote {out} (scatter and anomaly view) and {} (scree)",
                output_name(scree_path)
            ))
        }
        None => {
            write_output(&args.output, figure_svg(fig)?.as_bytes())?;
            console.report(&format!("wrote {out} (scatter, scree and anomaly view)"))
        }
    }
}
