//! The error type of the host-side fit and export.

use std::fmt;
use std::string::String;

/// Everything that can go wrong while checking parameters, fitting, transforming,
/// building the device model or exporting it. Every variant carries what is needed
/// to say what was wrong and, where there is one, what to do instead.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FitError {
    /// The data has no rows, or rows of zero features.
    EmptyData,
    /// A row's length differs from the first row's (or the values are not a whole
    /// number of rows of `n_features`).
    Ragged {
        /// 0-based row index (for a flat buffer: the number of whole rows).
        row: usize,
        /// Its length.
        len: usize,
        /// The expected length (number of features).
        expected: usize,
    },
    /// A value is NaN or infinite.
    NonFiniteInput {
        /// 0-based row.
        row: usize,
        /// 0-based column.
        column: usize,
    },
    /// Every training row is the same point: there is no variance to analyse.
    ConstantData,
    /// Standardisation was asked for but this column has the same value in every row.
    ConstantColumn {
        /// 0-based column index.
        column: usize,
    },
    /// `n_components` is 0.
    ZeroComponents,
    /// Fewer training points than needed: kernel PCA on n points has at most n - 1
    /// components (centring removes one dimension).
    TooFewPoints {
        /// Number of training points.
        n_points: usize,
        /// Components asked for.
        n_components: usize,
    },
    /// More components were asked for than the centred kernel matrix has positive
    /// eigenvalues.
    TooManyComponents {
        /// Components asked for.
        requested: usize,
        /// Number of positive eigenvalues found (see [`crate::POSITIVE_EIG_REL_TOL`]).
        positive: usize,
        /// How many eigenvalues were examined (all of them for the dense solver).
        examined: usize,
    },
    /// gamma is not finite or not > 0.
    BadGamma(f64),
    /// coef0 is not finite.
    BadCoef0(f64),
    /// The polynomial degree is 0 or above [`kpca_core::MAX_DEGREE`].
    BadDegree(u32),
    /// The number of Nyström landmarks m is not within k..=n.
    BadLandmarkCount {
        /// Landmarks asked for.
        m: usize,
        /// Training points (`None` when checked before the data is seen).
        n_points: Option<usize>,
        /// Components asked for (`None` when only landmarks were drawn).
        n_components: Option<usize>,
    },
    /// A landmark index is out of range or repeated.
    BadLandmarkIndex {
        /// The offending index.
        index: usize,
        /// Number of training points.
        n_points: usize,
        /// Whether it is a repeat (otherwise out of range).
        duplicate: bool,
    },
    /// The kernel matrix of the landmarks has no eigenvalue above the tolerance.
    SingularLandmarks,
    /// Nyström sums to merge were taken with another kernel or other landmarks.
    SumsMismatch,
    /// A streamed fit was asked for without Nyström (a full fit needs every
    /// row at once).
    StreamNeedsNystrom,
    /// The row source gave other rows on a later pass than on its first.
    SourceChanged {
        /// Rows of the first pass.
        expected: usize,
        /// Rows of the later pass.
        got: usize,
    },
    /// An array that should hold the parts of a streamed fit does not.
    BadParts {
        /// Which parts.
        what: &'static str,
    },
    /// What was asked for needs the training scores, which a streamed fit
    /// does not keep.
    RowsNotKept {
        /// What was asked for.
        what: &'static str,
    },
    /// A numeric option is out of its range (name and value).
    BadOption {
        /// Option name.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The accepted range, in words.
        expected: &'static str,
    },
    /// A kernel value is NaN or infinite (for example a polynomial of high degree).
    NonFiniteKernel,
    /// Data to transform has a different number of features than the training data.
    FeatureMismatch {
        /// Training features.
        expected: usize,
        /// Features given.
        got: usize,
    },
    /// Full kernel PCA on this many points needs an n x n matrix too large to hold.
    TooManyPoints {
        /// Training points.
        n_points: usize,
        /// The limit ([`crate::MAX_FULL_POINTS`]).
        max: usize,
    },
    /// An eigen solver did not converge.
    NotConverged {
        /// Which solver.
        solver: &'static str,
        /// Iterations (restarts) done.
        iterations: usize,
        /// Largest relative residual of a kept eigenpair when it stopped.
        residual: f64,
    },
    /// The fitted model cannot be represented as a device model (see the core error).
    Device {
        /// What was being built.
        what: &'static str,
        /// The core's reason.
        source: kpca_core::Error,
    },
    /// Targets for the regression head have a different number of rows than
    /// the training data, or no column, or more than [`kpca_core::MAX_TARGETS`].
    BadTargets {
        /// Training rows n.
        rows: usize,
        /// Target rows given.
        got_rows: usize,
        /// Target columns given.
        columns: usize,
    },
    /// `inverse_transform` or the pre-image on a fit without the learned
    /// pre-image map (call `fit_inverse_transform` first).
    NoPreImage,
    /// `predict` on a fit without a regression head (call `fit_regression`).
    NoRegression,
    /// The kernel ridge system of the pre-image map, K + alpha I, could not be
    /// solved to finite values.
    SingularPreImage,
    /// A precomputed kernel matrix that is not n x n.
    NotSquare {
        /// Values given.
        len: usize,
        /// Rows (the n expected).
        rows: usize,
    },
    /// The selected eigenvalues of a precomputed kernel matrix include a
    /// significantly negative one (the matrix is not positive semi-definite).
    NegativeEigenvalues {
        /// The most negative selected eigenvalue.
        value: f64,
        /// The largest selected eigenvalue.
        largest: f64,
    },
    /// The Nyström confidence bound is not defined for this fit.
    BoundUndefined {
        /// Why.
        reason: &'static str,
    },
    /// A name for generated source is not a valid identifier.
    BadName {
        /// The rejected name.
        name: String,
        /// Why.
        reason: &'static str,
    },
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitError::EmptyData => write!(f, "no data: need at least one row and one feature"),
            FitError::Ragged { row, len, expected } => write!(
                f,
                "ragged input: row {row} has {len} values but the rows have {expected} features"
            ),
            FitError::NonFiniteInput { row, column } => {
                write!(
                    f,
                    "non-finite input: row {row}, column {column} is NaN or infinite"
                )
            }
            FitError::ConstantData => write!(
                f,
                "constant data: every training row is the same point, so there is no variance"
            ),
            FitError::ConstantColumn { column } => write!(
                f,
                "constant column {column}: its standard deviation is 0, so it cannot be \
                 standardised (drop the column or turn standardisation off)"
            ),
            FitError::ZeroComponents => write!(f, "n_components must be at least 1"),
            FitError::TooFewPoints {
                n_points,
                n_components,
            } => write!(
                f,
                "too few points: {n_components} components need at least {} training points \
                 (kernel PCA on n points has at most n - 1 components), got {n_points}",
                n_components.saturating_add(1)
            ),
            FitError::BadGamma(g) => write!(f, "gamma must be finite and > 0, got {g}"),
            FitError::BadCoef0(c) => write!(f, "coef0 must be finite, got {c}"),
            FitError::BadDegree(d) => write!(
                f,
                "polynomial degree must be in 1..={}, got {d}",
                kpca_core::MAX_DEGREE
            ),
            FitError::BadLandmarkCount {
                m,
                n_points,
                n_components,
            } => {
                let points = n_points.map_or(String::new(), |n| format!(" with n = {n} points"));
                let components = n_components.map_or(String::new(), |k| {
                    format!(" and {k} component{}", if k == 1 { "" } else { "s" })
                });
                write!(
                    f,
                    "Nyström needs 1 <= n_components <= m <= n: got m = {m} landmark{}{points}{components}",
                    if *m == 1 { "" } else { "s" }
                )
            }
            FitError::BadLandmarkIndex {
                index,
                n_points,
                duplicate,
            } => {
                if *duplicate {
                    write!(f, "landmark index {index} is given twice")
                } else {
                    write!(
                        f,
                        "landmark index {index} is out of range for {n_points} points"
                    )
                }
            }
            FitError::BadOption {
                name,
                value,
                expected,
            } => write!(
                f,
                "option {name} = {value} is out of range: expected {expected}"
            ),
            FitError::BadName { name, reason } => {
                write!(f, "invalid name {name:?} for generated source: {reason}")
            }
            FitError::BadTargets { .. }
            | FitError::NoPreImage
            | FitError::NoRegression
            | FitError::SingularPreImage
            | FitError::BoundUndefined { .. }
            | FitError::NotSquare { .. }
            | FitError::NegativeEigenvalues { .. } => self.fmt_heads(f),
            other => other.fmt_fit(f),
        }
    }
}

impl FitError {
    /// The messages of the errors of the pre-image map, the regression head
    /// and the Nyström bound.
    fn fmt_heads(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitError::BadTargets {
                rows,
                got_rows,
                columns,
            } => write!(
                f,
                "targets: {got_rows} rows of {columns} columns for {rows} training rows \
                 (need one row per training row and 1 to {} columns)",
                kpca_core::MAX_TARGETS
            ),
            FitError::NoPreImage => write!(
                f,
                "the model has no pre-image map: fit it with the inverse transform \
                 (fit_inverse_transform, `kpca fit --inverse-transform`)"
            ),
            FitError::NoRegression => write!(
                f,
                "the model has no regression head: fit it with targets \
                 (fit_regression, `kpca fit --target FILE`)"
            ),
            FitError::SingularPreImage => write!(
                f,
                "the pre-image map's system K + alpha I is singular or overflows: \
                 use a larger alpha"
            ),
            FitError::BoundUndefined { reason } => {
                write!(f, "the Nystrom confidence bound is undefined: {reason}")
            }
            FitError::NotSquare { len, rows } => write!(
                f,
                "a precomputed kernel matrix must be n x n: got {len} values for {rows} rows"
            ),
            FitError::NegativeEigenvalues { value, largest } => write!(
                f,
                "There are significant negative eigenvalues ({value:e}, with {largest:e} the \
                 largest selected) in the kernel matrix: it is not positive semi-definite; \
                 keep fewer components"
            ),
            _ => Ok(()),
        }
    }
}

impl FitError {
    /// The messages of the errors of the fit itself, of a transform and of the
    /// device model (the others are written by `Display::fmt`).
    fn fmt_fit(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitError::SumsMismatch => write!(
                f,
                "the Nystrom sums to merge were taken with another kernel or other landmarks"
            ),
            FitError::StreamNeedsNystrom => write!(
                f,
                "a streamed fit needs Nystrom landmarks: a full fit holds every row at once"
            ),
            FitError::SourceChanged { expected, got } => write!(
                f,
                "the training rows changed while they were read: {got} rows on a later pass, \
                 {expected} on the first"
            ),
            FitError::BadParts { what } => write!(
                f,
                "the array is not the {what} of a streamed fit (another version, or damaged)"
            ),
            FitError::RowsNotKept { what } => write!(
                f,
                "{what} needs the training scores, which a streamed fit does not keep: fit \
                 again with the data in memory"
            ),
            FitError::SingularLandmarks => write!(
                f,
                "the landmarks' kernel matrix has no eigenvalue above the pseudo-inverse \
                 tolerance (all landmarks identical or zero?)"
            ),
            FitError::TooManyComponents {
                requested,
                positive,
                examined,
            } => write!(
                f,
                "{requested} components asked for but the centred kernel matrix has only \
                 {positive} positive eigenvalues (of the {examined} computed); use \
                 n_components <= {positive}"
            ),
            FitError::NonFiniteKernel => write!(
                f,
                "a kernel value is NaN or infinite: reduce gamma/degree or standardise the input"
            ),
            FitError::FeatureMismatch { expected, got } => write!(
                f,
                "the model was fitted on {expected} features but the data has {got}"
            ),
            FitError::TooManyPoints { n_points, max } => write!(
                f,
                "full kernel PCA on {n_points} points needs a {n_points} x {n_points} kernel \
                 matrix ({:.1} GiB); the limit is {max} points: use Nyström (m landmarks, \
                 O(n m) memory)",
                (*n_points as f64).powi(2) * 8.0 / (1u64 << 30) as f64
            ),
            FitError::NotConverged {
                solver,
                iterations,
                residual,
            } => write!(
                f,
                "the {solver} eigen solver did not converge after {iterations} iterations \
                 (largest relative residual {residual:e}); use the dense solver or raise max_iter"
            ),
            FitError::Device { what, source } => {
                write!(f, "cannot build the device model ({what}): {source}")
            }
            _ => unreachable!("written by Display::fmt"),
        }
    }
}

impl std::error::Error for FitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FitError::Device { source, .. } => Some(source),
            _ => None,
        }
    }
}
