//! Notes about a fit that succeeded: [`FitWarning`].

use crate::kernel::KernelId;
use std::fmt;

/// Something a successful fit wants its caller to know (see
/// [`crate::FittedKpca::warnings`]); `Display` gives the sentence to show.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FitWarning {
    /// Full fit, dense solver: the centred kernel matrix has negative eigenvalues
    /// (an indefinite kernel such as sigmoid, or rounding noise past
    /// [`crate::POSITIVE_EIG_REL_TOL`]). They are dropped, never kept as components.
    IndefiniteKernel {
        /// The kernel family.
        kernel: KernelId,
        /// How many eigenvalues are below -[`crate::POSITIVE_EIG_REL_TOL`] times
        /// the largest absolute one.
        negative: usize,
        /// How many eigenvalues there are (n).
        total: usize,
        /// The most negative eigenvalue.
        most_negative: f64,
        /// The largest absolute eigenvalue.
        largest: f64,
    },
    /// Full fit, iterative solver, sigmoid kernel: the negative eigenvalues are
    /// never computed (so never kept), and the explained-variance ratios use
    /// trace(Kc) as the total.
    NegativeEigenvaluesNotComputed {
        /// The (indefinite) kernel family.
        kernel: KernelId,
    },
    /// Nyström fit: the kernel matrix of the landmarks K_mm or its centred form
    /// K'_mm has negative eigenvalues; they are dropped from the pseudo-inverses.
    IndefiniteLandmarks {
        /// The kernel family.
        kernel: KernelId,
        /// Negative eigenvalues of K_mm.
        negative_kmm: usize,
        /// Negative eigenvalues of K'_mm.
        negative_centred_kmm: usize,
    },
    /// The (1 - false-alarm rate) quantile of the training anomaly scores is not
    /// positive, so no anomaly threshold is set (0 in the model).
    NoThreshold {
        /// The quantile level, 1 - false-alarm rate.
        level: f64,
        /// The quantile.
        quantile: f64,
    },
}

impl fmt::Display for FitWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitWarning::IndefiniteKernel {
                kernel,
                negative,
                total,
                most_negative,
                largest,
            } => write!(
                f,
                "the kernel matrix is indefinite ({} kernel): {negative} of the {total} \
                 eigenvalues of the centred kernel matrix are negative (most negative \
                 {most_negative:e}, largest {largest:e}); they are dropped, never kept as \
                 components",
                kernel.name()
            ),
            FitWarning::NegativeEigenvaluesNotComputed { kernel } => write!(
                f,
                "the {} kernel is indefinite: negative eigenvalues of the centred kernel \
                 matrix are never kept; the iterative solver does not compute them, so the \
                 explained-variance ratios use trace(Kc) as the total",
                kernel.name()
            ),
            FitWarning::IndefiniteLandmarks {
                kernel,
                negative_kmm,
                negative_centred_kmm,
            } => write!(
                f,
                "the kernel matrix of the landmarks is indefinite ({} kernel): {negative_kmm} \
                 negative eigenvalues of K_mm and {negative_centred_kmm} of the centred K'_mm \
                 are dropped from their pseudo-inverses",
                kernel.name()
            ),
            FitWarning::NoThreshold { level, quantile } => write!(
                f,
                "the anomaly threshold (the {level} quantile of the training anomaly scores) \
                 is {quantile:e} <= 0, so none is set (0 in the model)"
            ),
        }
    }
}
