//! `kpca fit`: fit a model on training data and write the device model blob.

use crate::error::{fit_error, CliError, CliResult};
use crate::output::{float_text, write_file};
use crate::table::{read_indices, read_table, Table};
use clap::{Args, ValueEnum};
use kpca_fit::{
    Dataset, FittedKpca, KernelKind, KernelPca, KernelSpec, Method, Nystrom, Solver, SolverReport,
};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A kernel, by scikit-learn's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KernelArg {
    /// x'z
    Linear,
    /// (gamma x'z + coef0)^degree
    Poly,
    /// exp(-gamma ||x - z||^2)
    Rbf,
    /// exp(-gamma ||x - z||_1)
    Laplacian,
    /// tanh(gamma x'z + coef0) (indefinite: negative eigenvalues are dropped)
    Sigmoid,
    /// x'z / (||x|| ||z||)
    Cosine,
}

impl KernelArg {
    /// The fit's kernel kind.
    pub fn kind(self) -> KernelKind {
        match self {
            KernelArg::Linear => KernelKind::Linear,
            KernelArg::Poly => KernelKind::Poly,
            KernelArg::Rbf => KernelKind::Rbf,
            KernelArg::Laplacian => KernelKind::Laplacian,
            KernelArg::Sigmoid => KernelKind::Sigmoid,
            KernelArg::Cosine => KernelKind::Cosine,
        }
    }
}

/// The eigen solver of a full fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SolverArg {
    /// dense for n <= 1000 or k > n/10, iterative otherwise
    Auto,
    /// every eigenpair of the n x n centred kernel matrix, O(n^3)
    Dense,
    /// the top k eigenpairs only (thick-restart Lanczos), O(n^2) per cycle
    Iterative,
}

impl From<SolverArg> for Solver {
    fn from(s: SolverArg) -> Solver {
        match s {
            SolverArg::Auto => Solver::Auto,
            SolverArg::Dense => Solver::Dense,
            SolverArg::Iterative => Solver::Iterative,
        }
    }
}

/// Arguments of `kpca fit`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Input format: CSV (comma- or whitespace-separated, optional header \
    line, '#' comments) or NPY (f32/f64, C order, 2-D rows x features or 1-D one column). \
    Rows are used exactly as given unless --standardize is passed.\n\n\
    Example:\n  kpca fit --input train.csv --kernel rbf --gamma 0.5 --components 4 \
    --standardize --output model.kpca"
)]
pub struct FitArgs {
    /// Training data: a CSV or NPY file, or `-` for standard input (required).
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// Kernel, with scikit-learn's names (required).
    #[arg(long, value_enum, value_name = "KERNEL")]
    pub kernel: KernelArg,
    /// Kernel gamma (rbf, laplacian, poly, sigmoid; ignored by linear and cosine)
    /// [default: 1/d, d = number of input features, as scikit-learn].
    #[arg(long, value_name = "G", allow_negative_numbers = true)]
    pub gamma: Option<f64>,
    /// Number of components k to keep (required).
    #[arg(long, value_name = "K")]
    pub components: usize,
    /// Polynomial degree (poly only).
    #[arg(long, value_name = "D", default_value_t = 3)]
    pub degree: u32,
    /// Additive constant coef0 (poly and sigmoid only).
    #[arg(
        long,
        value_name = "C",
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    pub coef0: f64,
    /// Standardise each feature with the training mean and standard deviation
    /// (ddof = 0); both go into the model and the device applies them
    /// [default: off: rows are used exactly as given].
    #[arg(long)]
    pub standardize: bool,
    /// Nyström kernel PCA on M landmarks drawn uniformly at random from the
    /// training rows (with --seed) [default: off: full kernel PCA, every training
    /// row is stored].
    #[arg(long, value_name = "M", conflicts_with = "landmarks")]
    pub nystrom: Option<usize>,
    /// Seed of the landmark draw (with --nystrom) [default: 0].
    #[arg(long, value_name = "S", requires = "nystrom")]
    pub seed: Option<u64>,
    /// Nyström kernel PCA on these landmarks: a file of 0-based training row
    /// indices, one per line [default: none].
    #[arg(long, value_name = "FILE")]
    pub landmarks: Option<PathBuf>,
    /// Eigen solver of a full fit (Nyström always solves m x m problems densely).
    #[arg(long, value_enum, value_name = "SOLVER", default_value_t = SolverArg::Auto)]
    pub solver: SolverArg,
    /// Fraction of training rows allowed above the anomaly threshold: the
    /// threshold is the (1 - R) quantile of the training anomaly scores.
    #[arg(
        long,
        value_name = "R",
        default_value_t = 0.01,
        allow_negative_numbers = true
    )]
    pub false_alarm_rate: f64,
    /// Where to write the model blob (the core's format, loadable as it is by
    /// kpca_model_from_bytes / ModelRef::from_bytes) (required).
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
}

/// The kernel spec of the arguments (gamma unresolved when not given).
fn kernel_spec(kernel: KernelArg, gamma: Option<f64>, degree: u32, coef0: f64) -> KernelSpec {
    let mut spec = KernelSpec::new(kernel.kind());
    spec.gamma = gamma;
    spec.degree = degree;
    spec.coef0 = coef0;
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

/// Fits with the given parameters, reporting progress on a terminal.
fn fit_table(args: &FitArgs, table: &Table<f64>) -> CliResult<FittedKpca> {
    let name = &table.name;
    let mut params = KernelPca::params()
        .kernel(kernel_spec(
            args.kernel,
            args.gamma,
            args.degree,
            args.coef0,
        ))
        .n_components(args.components)
        .solver(args.solver.into())
        .standardize(args.standardize)
        .false_alarm_rate(args.false_alarm_rate);
    if let Some(m) = args.nystrom {
        params = params.nystrom(Nystrom::random(m, args.seed.unwrap_or(0)));
    }
    if let Some(path) = &args.landmarks {
        params = params.nystrom(Nystrom::indices(read_indices(path)?));
    }
    let valid = params.check().map_err(|e| fit_error(e, name))?;
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
    with_spinner(msg, || valid.fit(&data)).map_err(|e| fit_error(e, name))
}

/// Describes the fitted kernel, e.g. `rbf (gamma = 0.5)`.
fn kernel_text(spec: &KernelSpec) -> String {
    let g = spec.gamma.map(float_text).unwrap_or_else(|| "1/d".into());
    match spec.kind {
        KernelKind::Linear | KernelKind::Cosine => spec.kind.name().into(),
        KernelKind::Rbf | KernelKind::Laplacian => format!("{} (gamma = {g})", spec.kind.name()),
        KernelKind::Poly => format!(
            "poly (gamma = {g}, degree = {}, coef0 = {})",
            spec.degree,
            float_text(spec.coef0)
        ),
        KernelKind::Sigmoid => {
            format!("sigmoid (gamma = {g}, coef0 = {})", float_text(spec.coef0))
        }
    }
}

fn join(values: &[f64], fmt: impl Fn(f64) -> String) -> String {
    values
        .iter()
        .map(|&v| fmt(v))
        .collect::<Vec<_>>()
        .join("  ")
}

/// Prints the fit report (eigenvalues, explained variance, threshold).
fn print_fit_report(fitted: &FittedKpca) {
    let method = match fitted.method() {
        Method::Full => "full kernel PCA".to_string(),
        Method::Nystrom { landmarks, seed } => match seed {
            Some(s) => format!(
                "Nyström kernel PCA, {} landmarks (seed {s})",
                landmarks.len()
            ),
            None => format!("Nyström kernel PCA, {} given landmarks", landmarks.len()),
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
    println!(
        "fitted: {method}, kernel {}, solver {solver}",
        kernel_text(&fitted.kernel())
    );
    println!(
        "data: n = {} rows, d = {} features, standardised: {}",
        fitted.n_train(),
        fitted.n_features(),
        if fitted.standardization().is_some() {
            "yes"
        } else {
            "no"
        }
    );
    let label = match fitted.method() {
        Method::Full => "eigenvalues (of the centred kernel matrix)",
        Method::Nystrom { .. } => "eigenvalues (score variances)",
    };
    println!(
        "{label}: {}",
        join(fitted.eigenvalues(), |v| format!("{v:.6}"))
    );
    let ratio = fitted.explained_variance_ratio();
    let total: f64 = ratio.iter().sum();
    println!(
        "explained variance ratio: {} (total {:.4})",
        join(ratio, |v| format!("{v:.4}")),
        total
    );
    if fitted.threshold() > 0.0 {
        println!(
            "anomaly threshold: {} (false-alarm rate {} on the training rows)",
            float_text(fitted.threshold() as f32),
            fitted.false_alarm_rate()
        );
    } else {
        println!("anomaly threshold: unset (0)");
    }
    for w in fitted.warnings() {
        eprintln!("kpca: warning: {w}");
    }
}

/// Runs `kpca fit`.
pub fn run(args: &FitArgs) -> CliResult<()> {
    let start = Instant::now();
    let table = read_table::<f64>(&args.input)?;
    let read_time = start.elapsed();
    let fit_start = Instant::now();
    let fitted = fit_table(args, &table)?;
    let fit_time = fit_start.elapsed();
    let blob = fitted.to_blob().map_err(|e| {
        CliError::input(format!(
            "{}: cannot build the device model: {e}",
            table.name
        ))
    })?;
    write_file(&args.output, &blob)?;
    print_fit_report(&fitted);
    println!(
        "model: {} ({} bytes: d = {}, m = {} stored points, k = {})",
        args.output.display(),
        blob.len(),
        fitted.n_features(),
        fitted.n_points(),
        fitted.n_components()
    );
    println!(
        "time: {:.3} s (read {:.3} s, fit {:.3} s)",
        start.elapsed().as_secs_f64(),
        read_time.as_secs_f64(),
        fit_time.as_secs_f64()
    );
    Ok(())
}
