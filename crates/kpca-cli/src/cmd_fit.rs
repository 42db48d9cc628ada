//! `kpca fit`: fit a model on training data and write the device model blob.
//!
//! The flags are checked before the data is read and the data before the fit
//! ([`crate::fit_checks`]); the report goes to standard output, or to standard
//! error with `--output -`; hints about a likely useless model follow it on
//! standard error ([`crate::hints`]).

use crate::error::{count, fit_error, CliError, CliResult};
use crate::fit_checks::{self, ColumnStats};
use crate::fit_heads;
use crate::hints::{self, KernelFacts, ModelShape};
use crate::output::{float_text, is_stdout, output_name, write_output, Console};
use crate::table::{read_indices, read_table, Source, Table};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::Args;
use kpca_fit::{
    Dataset, FitError, FittedKpca, KernelId, KernelPca, KernelSpec, LandmarkMethod, Method,
    Nystrom, Solver, SolverReport, ValidKernelPcaParams,
};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A value parser that offers the names of `values` (with their help lines
/// and aliases) and reads the one given with `from_name`: the table behind
/// `from_name` decides, clap lists the names and refuses others.
fn table_parser<T: Clone + Send + Sync + 'static>(
    values: impl IntoIterator<Item = PossibleValue>,
    from_name: fn(&str) -> Option<T>,
) -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(values)
        .try_map(move |name| from_name(&name).ok_or(format!("unknown name {name:?}")))
}

/// `--kernel`: the core's kernel names ([`KernelId::from_name`]), aliases
/// included.
fn kernel_parser() -> impl TypedValueParser<Value = KernelId> {
    let values = KernelId::ALL.map(|k| {
        PossibleValue::new(k.name())
            .help(k.formula())
            .aliases(k.aliases().iter().copied())
    });
    table_parser(values, KernelId::from_name)
}

/// `--landmark-method`: the fit's names ([`LandmarkMethod::from_name`]).
fn landmark_parser() -> impl TypedValueParser<Value = LandmarkMethod> {
    let values = LandmarkMethod::ALL.map(|l| PossibleValue::new(l.name()).help(l.summary()));
    table_parser(values, LandmarkMethod::from_name)
}

/// `--solver`: the fit's names ([`Solver::from_name`]).
fn solver_parser() -> impl TypedValueParser<Value = Solver> {
    let values = Solver::ALL.map(|s| PossibleValue::new(s.name()).help(s.summary()));
    table_parser(values, Solver::from_name)
}

/// The text after the options in `kpca fit --help`: input format, limits,
/// outputs, hints, an example.
fn after_help() -> String {
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

/// The help of `--components`, with the device model's limit.
fn components_help() -> String {
    format!(
        "Number of components k to keep, 1 to {} (kpca::MAX_COMPONENTS, the device model's \
         limit) (required)",
        kpca_core::MAX_COMPONENTS
    )
}

/// The help of `--degree`, with the core's range.
fn degree_help() -> String {
    format!(
        "Polynomial degree, 1 to {} (kpca::MAX_DEGREE) (poly only; ignored with a warning by \
         the other kernels) [default: 3]",
        kpca_core::MAX_DEGREE
    )
}

/// Arguments of `kpca fit`.
#[derive(Debug, Clone, Args)]
#[command(after_help = after_help())]
pub struct FitArgs {
    /// Training data: a CSV or NPY file, or `-` for standard input (required).
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// Kernel, with scikit-learn's names; sigmoid is indefinite: its negative
    /// eigenvalues are dropped (required).
    #[arg(long, value_name = "KERNEL", value_parser = kernel_parser())]
    pub kernel: KernelId,
    /// Kernel gamma, > 0 (rbf, laplacian, poly, sigmoid; ignored with a warning by
    /// linear and cosine) [default: 1/d, d = number of input features, as scikit-learn].
    #[arg(long, value_name = "G", allow_negative_numbers = true)]
    pub gamma: Option<f64>,
    /// Number of components k (see the help text for the limit).
    #[arg(long, value_name = "K", help = components_help())]
    pub components: usize,
    /// Polynomial degree (poly only; see the help text for the range).
    #[arg(long, value_name = "D", help = degree_help())]
    pub degree: Option<u32>,
    /// Additive constant coef0 (poly and sigmoid only; ignored with a warning by
    /// the other kernels) [default: 1].
    #[arg(long, value_name = "C", allow_negative_numbers = true)]
    pub coef0: Option<f64>,
    /// Standardise each feature with the training mean and standard deviation
    /// (ddof = 0); both go into the model and the device applies them
    /// [default: off: rows are used exactly as given].
    #[arg(long)]
    pub standardize: bool,
    /// Nyström kernel PCA on M landmarks drawn uniformly at random from the
    /// training rows (with --seed), --components <= M <= rows [default: off: full
    /// kernel PCA, every training row is stored].
    #[arg(long, value_name = "M", conflicts_with = "landmarks")]
    pub nystrom: Option<usize>,
    /// Seed of the landmark draw (with --nystrom) [default: 0].
    #[arg(long, value_name = "S", requires = "nystrom")]
    pub seed: Option<u64>,
    /// How --nystrom chooses its M landmarks (README, "Nyström landmarks"
    /// compares them) [default: uniform].
    #[arg(long, value_name = "METHOD", requires = "nystrom", value_parser = landmark_parser())]
    pub landmark_method: Option<LandmarkMethod>,
    /// Nyström kernel PCA on these landmarks: a file of 0-based training row
    /// indices, one per line, or `-` for standard input [default: none].
    #[arg(long, value_name = "FILE")]
    pub landmarks: Option<PathBuf>,
    /// Eigen solver of a full fit (a Nyström fit always solves its m x m problems
    /// densely; the flag is then ignored with a warning) [default: auto].
    #[arg(long, value_name = "SOLVER", value_parser = solver_parser())]
    pub solver: Option<Solver>,
    /// Fraction of training rows allowed above the anomaly threshold, between 0 and
    /// 1: the threshold is the (1 - R) quantile of the training anomaly scores.
    #[arg(
        long,
        value_name = "R",
        default_value_t = 0.01,
        allow_negative_numbers = true
    )]
    pub false_alarm_rate: f64,
    /// Where to write the model blob (the core's format, loadable as it is by
    /// kpca_model_from_bytes / ModelRef::from_bytes), or `-` for standard output
    /// (required).
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
    /// Regression targets: a CSV or NPY file with one row per training row (same
    /// order) and 1 to 16 columns; the model gets a regression head (kernel
    /// principal component regression on the k scores) for `kpca predict` and
    /// kpca_predict [default: none].
    #[arg(long, value_name = "FILE")]
    pub target: Option<PathBuf>,
    /// Fit the learned pre-image map (scikit-learn's fit_inverse_transform:
    /// kernel ridge regression from the scores back to the inputs); the model
    /// gets the pre-image section for `kpca reconstruct` and kpca_reconstruct
    /// [default: off].
    #[arg(long)]
    pub inverse_transform: bool,
    /// Ridge of the pre-image map, > 0 (with --inverse-transform) [default: 1].
    #[arg(
        long,
        value_name = "A",
        requires = "inverse_transform",
        allow_negative_numbers = true
    )]
    pub alpha: Option<f64>,
    /// Write a JSON report: eigenvalues, explained_variance_ratio,
    /// reconstruction_errors (q = 1..k) and, for Nyström fits, confidence_bound
    /// (q = 1..k, null where undefined) [default: none].
    #[arg(long, value_name = "FILE.json")]
    pub report: Option<PathBuf>,
    /// Confidence level of the Nyström bound in the report, in (0, 1) (with
    /// --report) [default: 0.9].
    #[arg(
        long,
        value_name = "C",
        requires = "report",
        allow_negative_numbers = true
    )]
    pub bound_confidence: Option<f64>,
    /// Read the training file in chunks instead of holding it (Nyström only;
    /// four passes over the file, memory O(M^2 + chunk x M); no hints, no
    /// --target). On by itself for a Nyström fit of a file over 256 MiB
    /// [default: off].
    #[arg(long)]
    pub stream: bool,
    /// Print no report and no hints, only warnings and errors [default: off].
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The kernel spec of the arguments (gamma unresolved when not given; degree
/// and coef0 scikit-learn's defaults when not given).
pub(crate) fn kernel_spec(args: &FitArgs) -> KernelSpec {
    let mut spec = KernelSpec::new(args.kernel);
    spec.gamma = args.gamma;
    if let Some(degree) = args.degree {
        spec.degree = degree;
    }
    if let Some(coef0) = args.coef0 {
        spec.coef0 = coef0;
    }
    spec
}

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

/// The fit's errors, worded with the flags (the checks before the fit leave
/// only those that depend on the fit itself).
pub(crate) fn fit_failure(e: FitError, args: &FitArgs, name: &str) -> CliError {
    match e {
        FitError::TooManyComponents {
            requested,
            positive,
            examined,
        } => CliError::input(format!(
            "{name}: --components {requested}: the centred kernel matrix has only {} (of the \
             {examined} computed), so at most --components {positive} can be kept",
            count(positive, "positive eigenvalue")
        )),
        FitError::NotConverged {
            iterations,
            residual,
            ..
        } => CliError::input(format!(
            "{name}: the iterative eigen solver did not converge after {iterations} restarts \
             (largest relative residual {residual:e}); use --solver dense"
        )),
        FitError::NonFiniteKernel => CliError::input(format!(
            "{name}: a kernel value is NaN or infinite{}: use a smaller --gamma{}, or pass \
             --standardize",
            if args.kernel == KernelId::Polynomial {
                " (poly)"
            } else {
                ""
            },
            if args.kernel == KernelId::Polynomial {
                " or --degree"
            } else {
                ""
            }
        )),
        FitError::ConstantData => CliError::input(format!(
            "{name}: every row is the same point: there is no variance to analyse"
        )),
        FitError::SingularLandmarks => CliError::input(format!(
            "{name}: the landmarks' kernel matrix has no eigenvalue above the pseudo-inverse \
             tolerance (all landmarks the same point?): choose other --landmarks or another --seed"
        )),
        other => fit_error(other, name),
    }
}

/// The error of a fitted model that does not fit the f32 device model (the
/// input values were checked: kernel values or coefficients overflow f32).
pub(crate) fn device_failure(e: FitError, args: &FitArgs, name: &str) -> CliError {
    let change = match args.kernel {
        KernelId::Polynomial => "use a smaller --gamma or --degree",
        KernelId::Linear | KernelId::Cosine => "rescale the data",
        _ => "use a smaller --gamma",
    };
    let standardize = if args.standardize {
        ""
    } else {
        ", or pass --standardize"
    };
    match e {
        FitError::Device { what, source } => CliError::input(format!(
            "{name}: the fitted model does not fit the f32 device model ({what}: {source}): its \
             kernel values or coefficients pass the f32 range; {change}{standardize}"
        )),
        other => CliError::input(format!("{name}: {other}")),
    }
}

/// Reads and checks the `--landmarks` file.
pub(crate) fn read_landmarks(args: &FitArgs) -> CliResult<Option<Vec<usize>>> {
    let Some(path) = &args.landmarks else {
        return Ok(None);
    };
    let idx = read_indices(path)?;
    fit_checks::check_landmark_list(&idx, &Source::from_arg(path).name())?;
    Ok(Some(idx))
}

/// The checked fit parameters of the arguments (`name`: the input, for
/// messages).
pub(crate) fn fit_params(
    args: &FitArgs,
    landmarks: Option<Vec<usize>>,
    name: &str,
) -> CliResult<ValidKernelPcaParams> {
    let mut params = KernelPca::params()
        .kernel(kernel_spec(args))
        .n_components(args.components)
        .solver(args.solver.unwrap_or_default())
        .standardize(args.standardize)
        .false_alarm_rate(args.false_alarm_rate);
    if let Some(m) = args.nystrom {
        let seed = args.seed.unwrap_or(0);
        params = params.nystrom(args.landmark_method.unwrap_or_default().nystrom(m, seed));
    }
    if let Some(idx) = landmarks {
        params = params.nystrom(Nystrom::indices(idx));
    }
    params.check().map_err(|e| fit_failure(e, args, name))
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

/// Describes the fitted kernel, e.g. `rbf (gamma = 0.5)`: its name and the
/// parameters it uses.
fn kernel_text(spec: &KernelSpec) -> String {
    let uses = spec.kind.uses();
    let mut params = Vec::new();
    if uses.gamma {
        let g = spec.gamma.map(float_text).unwrap_or_else(|| "1/d".into());
        params.push(format!("gamma = {g}"));
    }
    if uses.degree {
        params.push(format!("degree = {}", spec.degree));
    }
    if uses.coef0 {
        params.push(format!("coef0 = {}", float_text(spec.coef0)));
    }
    match params.is_empty() {
        true => spec.kind.name().into(),
        false => format!("{} ({})", spec.kind.name(), params.join(", ")),
    }
}

fn join(values: &[f64], fmt: impl Fn(f64) -> String) -> String {
    values
        .iter()
        .map(|&v| fmt(v))
        .collect::<Vec<_>>()
        .join("  ")
}

/// The first lines of the fit report: method, kernel, solver, data.
fn report_head(fitted: &FittedKpca) -> Vec<String> {
    let method = match fitted.method() {
        Method::Full => "full kernel PCA".to_string(),
        Method::Nystrom { landmarks, seed } => match seed {
            Some(s) => format!(
                "Nyström kernel PCA, {} (seed {s})",
                count(landmarks.len(), "landmark")
            ),
            None => format!(
                "Nyström kernel PCA, {} given landmark{}",
                landmarks.len(),
                if landmarks.len() == 1 { "" } else { "s" }
            ),
        },
    };
    let solver = match fitted.solver() {
        SolverReport::Dense => "dense".to_string(),
        SolverReport::Lanczos {
            matvecs,
            max_residual,
        } => format!("iterative ({matvecs} products, max residual {max_residual:.1e})"),
        SolverReport::NystromDense => "dense (m x m)".to_string(),
    };
    vec![
        format!(
            "fitted: {method}, kernel {}, solver {solver}",
            kernel_text(&fitted.kernel())
        ),
        format!(
            "data: n = {} rows, d = {} features, standardised: {}",
            fitted.n_train(),
            fitted.n_features(),
            if fitted.standardization().is_some() {
                "yes"
            } else {
                "no"
            }
        ),
    ]
}

/// The fit report (eigenvalues, explained variance, threshold), line by line.
pub(crate) fn report_lines(fitted: &FittedKpca) -> Vec<String> {
    let mut lines = report_head(fitted);
    let label = match fitted.method() {
        Method::Full => "eigenvalues (of the centred kernel matrix)",
        Method::Nystrom { .. } => {
            "eigenvalues (of the centred kernel matrix, Nyström approximation)"
        }
    };
    lines.push(format!(
        "{label}: {}",
        join(fitted.eigenvalues(), |v| format!("{v:.6}"))
    ));
    let ratio = fitted.explained_variance_ratio();
    let total: f64 = ratio.iter().sum();
    lines.push(format!(
        "explained variance ratio: {} (total {:.4})",
        join(ratio, |v| format!("{v:.4}")),
        total
    ));
    lines.push(if fitted.threshold() > 0.0 {
        format!(
            "anomaly threshold: {} (false-alarm rate {} on the training rows)",
            float_text(fitted.threshold() as f32),
            fitted.false_alarm_rate()
        )
    } else {
        "anomaly threshold: unset (0)".to_string()
    });
    lines
}

/// What the hints need to know about the kernel as fitted.
fn kernel_facts(fitted: &FittedKpca, table: &Table<f64>, stats: &ColumnStats) -> KernelFacts {
    let spec = fitted.kernel();
    let l1 = match spec.kind {
        KernelId::Rbf => Some(false),
        KernelId::Laplacian => Some(true),
        _ => None,
    };
    let median_gamma = l1.and_then(|l1| {
        let values: Vec<f64> = match fitted.standardization() {
            Some(_) => table
                .rows()
                .flat_map(|r| {
                    r.iter()
                        .zip(stats.mean.iter().zip(&stats.std))
                        .map(|(v, (m, s))| (v - m) / s)
                })
                .collect(),
            None => table.values.clone(),
        };
        hints::median_heuristic_gamma(&values, table.n_cols, l1)
    });
    KernelFacts {
        name: spec.kind.name(),
        gamma: spec.gamma,
        median_gamma,
    }
}

/// The hints about the fitted model, in order: scales, variance or equal
/// eigenvalues, flash size.
fn fit_hints(
    fitted: &FittedKpca,
    table: &Table<f64>,
    stats: &ColumnStats,
    blob: &[u8],
) -> Vec<String> {
    let blob_len = blob.len();
    let standardized = fitted.standardization().is_some();
    let kernel = kernel_facts(fitted, table, stats);
    let spread = (!standardized)
        .then(|| hints::scale_spread(stats).map(|s| s.0))
        .flatten();
    let mut out: Vec<String> = Vec::new();
    out.extend(hints::scales_hint(table, stats, standardized));
    let equal =
        hints::equal_eigenvalues_hint(fitted.eigenvalues(), fitted.all_eigenvalues(), &kernel);
    match equal {
        Some(h) => out.push(h),
        None => out.extend(hints::low_variance_hint(
            fitted.explained_variance_ratio(),
            &kernel,
            spread,
        )),
    }
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
        standardized: kpca_core::format::Header::parse(blob)
            .map(|h| h.is_standardized())
            .unwrap_or(false),
        nystrom: Some(!matches!(fitted.method(), Method::Full)),
    }));
    out
}

/// The report line of the model's optional sections, if it has any.
pub(crate) fn sections_line(fitted: &FittedKpca) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(map) = fitted.preimage_map() {
        parts.push(format!(
            "pre-image map ({}, alpha = {})",
            count(
                map.scores.len() / fitted.n_components().max(1),
                "score vector"
            ),
            float_text(map.alpha)
        ));
    }
    if let Some(head) = fitted.regression_head() {
        parts.push(format!(
            "regression head ({})",
            count(head.n_targets(), "target")
        ));
    }
    (!parts.is_empty()).then(|| format!("sections: {}", parts.join(", ")))
}

/// The warnings and the report of a fit whose model `blob` was written.
pub(crate) fn print_report(
    args: &FitArgs,
    console: &Console,
    fitted: &FittedKpca,
    blob: &[u8],
) -> CliResult<()> {
    for w in fitted.warnings() {
        console.warning(&w.to_string());
    }
    for line in report_lines(fitted) {
        console.report(&line)?;
    }
    console.report(&format!(
        "model: {} ({} bytes: d = {}, m = {} stored points, k = {})",
        output_name(&args.output),
        blob.len(),
        fitted.n_features(),
        fitted.n_points(),
        fitted.n_components()
    ))?;
    if let Some(line) = sections_line(fitted) {
        console.report(&line)?;
    }
    if let Some(path) = &args.report {
        console.report(&format!("report: {}", output_name(path)))?;
    }
    Ok(())
}

/// Runs `kpca fit`.
pub fn run(args: &FitArgs) -> CliResult<()> {
    // The report moves to stderr when the model or the JSON report is on stdout.
    let main_on_stdout = is_stdout(&args.output) || args.report.as_deref().is_some_and(is_stdout);
    let console = Console::new(main_on_stdout, args.quiet);
    let start = Instant::now();
    fit_checks::check_flags(args, &console)?;
    fit_heads::check_flags(args)?;
    if crate::cmd_fit_stream::streams(args)? {
        return crate::cmd_fit_stream::run(args, &console, start);
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
    write_output(&args.output, &blob)?;
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
