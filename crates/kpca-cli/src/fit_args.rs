//! The arguments of `kpca fit` (in memory and streamed): the flags and the
//! value parsers of the kernel, solver and landmark-method names, read with
//! the name tables of the core and the fit. The checks of the
//! flags are [`crate::fit_checks`]; the help text after the options is
//! `cmd_fit`'s (set on the subcommand).

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::Args;
use kpca_fit::{KernelId, KernelSpec, LandmarkMethod, Solver};
use std::path::PathBuf;

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
    /// How --nystrom chooses its M landmarks (docs/NYSTROM.md
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

impl FitArgs {
    /// The kernel spec of the arguments (gamma unresolved when not given;
    /// degree and coef0 scikit-learn's defaults when not given).
    pub fn kernel_spec(&self) -> KernelSpec {
        let mut spec = KernelSpec::new(self.kernel);
        spec.gamma = self.gamma;
        if let Some(degree) = self.degree {
            spec.degree = degree;
        }
        if let Some(coef0) = self.coef0 {
            spec.coef0 = coef0;
        }
        spec
    }
}
