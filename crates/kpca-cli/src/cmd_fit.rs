//! `kpca fit`: fit a model on training data and write the device model blob.
//!
//! The flags are checked before the data is read and the data before the fit
//! ([`crate::fit_checks`]); the report goes to standard output, or to standard
//! error with `--output -`; hints about a likely useless model follow it on
//! standard error ([`crate::hints`]).

use crate::cmd_fit_stream;
use crate::error::{fit_error, CliResult};
use crate::fit_checks::{self, ColumnStats};
use crate::fit_heads;
use crate::fit_steps::{device_failure, fit_failure, fit_params, print_report, read_landmarks};
use crate::hints::{self, ModelShape};
use crate::output::{is_stdout, write_output, Console};
use crate::table::{read_table, Table};
use kpca_fit::{Dataset, FittedKpca, Method, ModelBlob};
use std::time::{Duration, Instant};

/// The arguments, defined in [`crate::fit_args`] (here too, for the paths
/// this module has always had).
pub use crate::fit_args::FitArgs;

/// A spinner on standard error while `work` runs, when standard error is a
/// terminal (indicatif draws nothing otherwise).
fn with_spinner<T>(message: String, work: impl FnOnce() -> T) -> T {
    let bar = indicatif::ProgressBar::new_spinner();
    if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} [{elapsed}]") {
        bar.set_style(style);
    }
    bar.set_message(message);
    bar.enable_steady_tick(Duration::from_millis(120));
    let out = work();
    bar.finish_and_clear();
    out
}

/// Fits with the given parameters, reporting progress on a terminal.
fn fit_table(
    args: &FitArgs,
    table: &Table<f64>,
    landmarks: Option<Vec<usize>>,
) -> CliResult<FittedKpca> {
    let name = &table.name;
    let valid = fit_params(args, landmarks, name)?;
    let data = Dataset::new(&table.values[..], table.n_cols).map_err(|e| fit_error(e, name))?;
    let method = match (&args.nystrom, &args.landmarks) {
        (Some(m), _) => format!("Nyström, {m} landmarks"),
        (None, Some(_)) => "Nyström, given landmarks".into(),
        (None, None) => "full".into(),
    };
    let msg = format!(
        "fitting {method} kernel PCA on {} rows x {} features",
        table.n_rows(),
        table.n_cols
    );
    with_spinner(msg, || valid.fit(&data)).map_err(|e| fit_failure(e, args, name))
}

/// The hints about the fitted model, in order: scales, variance or equal
/// eigenvalues, flash size.
fn fit_hints(
    fitted: &FittedKpca,
    table: &Table<f64>,
    stats: &ColumnStats,
    blob: &ModelBlob,
) -> Vec<String> {
    let blob_len = blob.len();
    let mut out = kpca_fit::hints::fit_hints(
        fitted,
        &table.values,
        &stats.std,
        |c| fit_checks::column_text(table, c),
        &hints::Spelling::CLI,
    );
    let (d, m, k) = (
        fitted.n_features(),
        fitted.n_points(),
        fitted.n_components(),
    );
    out.extend(hints::flash_hint(&ModelShape {
        blob_len,
        dim: d,
        n_points: m,
        n_components: k,
        // The blob's input map: the standardisation, or the centre that rbf
        // and laplacian models are stored relative to.
        standardized: blob.model().is_standardized(),
        nystrom: Some(!matches!(fitted.method(), Method::Full)),
    }));
    out
}

/// The text after the options in `kpca fit --help`: input format, limits,
/// outputs, hints, an example.
pub(crate) fn after_help() -> String {
    format!(
        "Input format: CSV (comma- or whitespace-separated, optional header line, '#' \
         comments) or NPY (f32/f64, C order, 2-D rows x features or 1-D one column). Rows are \
         used exactly as given unless --standardize is passed.\n\n\
         {}\n\n\
         Output: the model blob goes to --output (`-`: standard output, and the report then \
         goes to standard error). Kernel parameters the chosen kernel does not use (--degree \
         with rbf, ...) are ignored with a warning, as scikit-learn ignores them.\n\n\
         Hints: one-line hints on standard error flag a model that is likely useless: kept \
         variance below {:.0}%, kept eigenvalues all within {:.0}% of each other, column \
         standard deviations more than {}x apart without --standardize, a model larger than \
         {} KiB of flash. --quiet drops them and the report (warnings and errors remain).\n\n\
         Example:\n  kpca fit --input train.csv --kernel rbf --gamma 0.5 --components 4 \
         --standardize --output model.kpca",
        fit_checks::limits_help(),
        100.0 * hints::LOW_VARIANCE,
        100.0 * (1.0 - hints::EQUAL_EIGENVALUES),
        hints::SCALE_RATIO,
        hints::FLASH_BYTES / 1024
    )
}

/// Runs `kpca fit`.
pub fn run(args: &FitArgs) -> CliResult<()> {
    // The report moves to stderr when the model or the JSON report is on stdout.
    let main_on_stdout = is_stdout(&args.output) || args.report.as_deref().is_some_and(is_stdout);
    let console = Console::new(main_on_stdout, args.quiet);
    let start = Instant::now();
    fit_checks::check_flags(args, &console)?;
    fit_heads::check_flags(args)?;
    if cmd_fit_stream::streams(args)? {
        return cmd_fit_stream::run(args, &console, start);
    }
    let landmarks = read_landmarks(args)?;
    let table = read_table::<f64>(&args.input)?;
    let stats = ColumnStats::of(&table);
    fit_checks::check_data(args, &table, &stats, landmarks.as_deref())?;
    let targets = fit_heads::read_targets(args, table.n_rows())?;
    let read_time = start.elapsed();
    let fit_start = Instant::now();
    let mut fitted = fit_table(args, &table, landmarks)?;
    fit_heads::fit_heads(args, &mut fitted, targets.as_ref())?;
    let fit_time = fit_start.elapsed();
    let blob = fitted
        .to_blob()
        .map_err(|e| device_failure(e, args, &table.name))?;
    write_output(&args.output, blob.as_bytes())?;
    let train =
        Dataset::new(&table.values[..], table.n_cols).map_err(|e| fit_error(e, &table.name))?;
    fit_heads::write_report(args, &fitted, Some(&train))?;
    print_report(args, &console, &fitted, &blob)?;
    console.report(&format!(
        "time: {:.3} s (read {:.3} s, fit {:.3} s)",
        start.elapsed().as_secs_f64(),
        read_time.as_secs_f64(),
        fit_time.as_secs_f64()
    ))?;
    for hint in fit_hints(&fitted, &table, &stats, &blob) {
        console.hint(&hint);
    }
    Ok(())
}
