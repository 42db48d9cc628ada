//! Fit parameters in the shape of linfa (build, `check()`, `fit()`), the
//! requested and the resolved eigen solver, and the Nyström landmark choice.

use crate::error::FitError;
use crate::kernel::KernelSpec;
use std::vec::Vec;

/// With [`Solver::Auto`], the dense solver is used when n is at most this...
pub const AUTO_DENSE_MAX_N: usize = 1000;
/// ...or when k * this > n (k more than a tenth of n); the iterative solver otherwise.
pub const AUTO_DENSE_K_FRACTION: usize = 10;

/// Default tolerance of the iterative solver: a bound on each kept eigenvector's
/// estimated error ‖Kc v - mu v‖ / gap (see [`ResolvedSolver::Iterative`]). 1e-9 leaves a
/// factor 10 to the 1e-8 (relative to each score column's scale) at which the fit
/// reproduces scikit-learn.
pub const DEFAULT_TOL: f64 = 1e-9;
/// Default maximum number of restarts of the iterative solver.
pub const DEFAULT_MAX_ITER: usize = 1000;
/// Default relative tolerance of the Nyström pseudo-inverses: eigenvalues of the
/// symmetrised K_mm and K'_mm at or below `pinv_rtol` times the largest are dropped.
/// 1e-9 is the value of the reference fixtures (smaller values keep the null
/// direction of K'_mm, whose computed eigenvalue is ~1e-9 relative, not ~1e-16,
/// because m0 carries the error of an ill-conditioned solve).
pub const DEFAULT_PINV_RTOL: f64 = 1e-9;
/// Default false-alarm rate of the anomaly threshold.
pub const DEFAULT_FALSE_ALARM_RATE: f64 = 0.01;

/// The eigen solver asked for the full fit (the Nyström fit always solves its
/// small problem densely). [`Solver::resolve`] turns it into the
/// [`ResolvedSolver`] that runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Solver {
    /// Dense when n <= [`AUTO_DENSE_MAX_N`] or k > n / [`AUTO_DENSE_K_FRACTION`],
    /// iterative otherwise.
    #[default]
    Auto,
    /// [`ResolvedSolver::Dense`].
    Dense,
    /// [`ResolvedSolver::Iterative`].
    Iterative,
}

/// The eigen solver that runs in a full fit, decided once from n and k by
/// [`Solver::resolve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResolvedSolver {
    /// Every eigenvalue of the n x n centred kernel matrix and the eigenvectors of
    /// the top k (Householder tridiagonalisation with faer, implicit QL for the
    /// eigenvalues, inverse iteration for the k eigenvectors), O(n^3) time; also
    /// gives [`FittedKpca::all_eigenvalues`](crate::FittedKpca::all_eigenvalues).
    Dense,
    /// The top k eigenpairs only, by thick-restart Lanczos with full
    /// reorthogonalisation; O(n^2) per pass. Convergence test, for every kept pair
    /// l: ‖Kc v_l - mu_l v_l‖ <= max(tol * gap_l, 1e-12 * mu_1), gap_l = distance
    /// from mu_l to the nearest other Ritz value, confirmed with explicitly computed
    /// residuals. The residual over the gap bounds the sine of the angle between
    /// v_l and its eigenvector, so `tol` bounds each eigenvector's (and score
    /// column's) error; the 1e-12 term accepts pairs at the rounding level (a
    /// cluster of nearly equal eigenvalues, whose individual vectors no solver
    /// determines better).
    Iterative,
}

impl Solver {
    /// Every solver, in declaration order.
    pub const ALL: [Solver; 3] = [Solver::Auto, Solver::Dense, Solver::Iterative];

    /// The solver's name on the command line and in the Python binding
    /// (`"auto"`, `"dense"`, `"iterative"`).
    pub const fn name(self) -> &'static str {
        match self {
            Solver::Auto => "auto",
            Solver::Dense => "dense",
            Solver::Iterative => "iterative",
        }
    }

    /// What the solver does, in one line for help texts.
    pub const fn summary(self) -> &'static str {
        match self {
            Solver::Auto => "dense for n <= 1000 or k > n/10, iterative otherwise",
            Solver::Dense => "every eigenpair of the n x n centred kernel matrix, O(n^3)",
            Solver::Iterative => {
                "the top k eigenpairs only (thick-restart Lanczos), O(n^2) per cycle"
            }
        }
    }

    /// The solver with this [`Solver::name`].
    pub fn from_name(name: &str) -> Option<Solver> {
        Solver::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The solver that runs for n points and k components: [`Solver::Auto`]
    /// decides by [`AUTO_DENSE_MAX_N`] and [`AUTO_DENSE_K_FRACTION`]; the others
    /// name their solver.
    pub fn resolve(self, n: usize, k: usize) -> ResolvedSolver {
        match self {
            Solver::Auto => {
                if n <= AUTO_DENSE_MAX_N || k.saturating_mul(AUTO_DENSE_K_FRACTION) > n {
                    ResolvedSolver::Dense
                } else {
                    ResolvedSolver::Iterative
                }
            }
            Solver::Dense => ResolvedSolver::Dense,
            Solver::Iterative => ResolvedSolver::Iterative,
        }
    }
}

/// How the Nyström landmarks are chosen.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Nystrom {
    /// m landmarks drawn uniformly without replacement with [`crate::SeededRng`] from this seed.
    Random {
        /// Number of landmarks m (k <= m <= n).
        m: usize,
        /// Seed of the generator.
        seed: u64,
    },
    /// These 0-based training row indices (distinct), in this order.
    Indices(Vec<usize>),
    /// m landmarks by k-means++ seeding of the (standardised) training rows
    /// (D² sampling, from this seed; see `landmarks.rs`).
    KMeansPlusPlus {
        /// Number of landmarks m (k <= m <= n).
        m: usize,
        /// Seed of the generator.
        seed: u64,
    },
    /// m landmarks by randomly pivoted Cholesky of the kernel matrix (pivots
    /// drawn in proportion to the residual diagonal, from this seed, on a
    /// uniform pool of at most 20 m rows).
    RpCholesky {
        /// Number of landmarks m (k <= m <= n).
        m: usize,
        /// Seed of the generator.
        seed: u64,
    },
}

impl Nystrom {
    /// m landmarks drawn uniformly without replacement from the seed (see
    /// [`crate::sample_landmarks`] to use another `rand_core` generator).
    pub fn random(m: usize, seed: u64) -> Self {
        Nystrom::Random { m, seed }
    }
    /// These training rows as landmarks.
    pub fn indices(indices: Vec<usize>) -> Self {
        Nystrom::Indices(indices)
    }
    /// m landmarks by k-means++ seeding from the seed.
    pub fn kmeans_pp(m: usize, seed: u64) -> Self {
        Nystrom::KMeansPlusPlus { m, seed }
    }
    /// m landmarks by randomly pivoted Cholesky from the seed.
    pub fn rp_cholesky(m: usize, seed: u64) -> Self {
        Nystrom::RpCholesky { m, seed }
    }
    /// Number of landmarks.
    pub fn m(&self) -> usize {
        match self {
            Nystrom::Random { m, .. }
            | Nystrom::KMeansPlusPlus { m, .. }
            | Nystrom::RpCholesky { m, .. } => *m,
            Nystrom::Indices(v) => v.len(),
        }
    }
    /// The seed the landmarks are drawn with (None for given indices).
    pub fn seed(&self) -> Option<u64> {
        match self {
            Nystrom::Random { seed, .. }
            | Nystrom::KMeansPlusPlus { seed, .. }
            | Nystrom::RpCholesky { seed, .. } => Some(*seed),
            Nystrom::Indices(_) => None,
        }
    }
}

/// How a Nyström fit draws its m landmarks from a seed (given indices,
/// [`Nystrom::Indices`], are not drawn): the choice of the command line's
/// `--landmark-method` and the Python binding's `landmark_method`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LandmarkMethod {
    /// [`Nystrom::Random`].
    #[default]
    Uniform,
    /// [`Nystrom::KMeansPlusPlus`].
    KMeansPlusPlus,
    /// [`Nystrom::RpCholesky`].
    RpCholesky,
}

impl LandmarkMethod {
    /// Every method, in declaration order.
    pub const ALL: [LandmarkMethod; 3] = [
        LandmarkMethod::Uniform,
        LandmarkMethod::KMeansPlusPlus,
        LandmarkMethod::RpCholesky,
    ];

    /// The method's name on the command line and in the Python binding
    /// (`"uniform"`, `"kmeans++"`, `"rpcholesky"`).
    pub const fn name(self) -> &'static str {
        match self {
            LandmarkMethod::Uniform => "uniform",
            LandmarkMethod::KMeansPlusPlus => "kmeans++",
            LandmarkMethod::RpCholesky => "rpcholesky",
        }
    }

    /// What the method does, in one line for help texts.
    pub const fn summary(self) -> &'static str {
        match self {
            LandmarkMethod::Uniform => "M training rows drawn uniformly without replacement",
            LandmarkMethod::KMeansPlusPlus => {
                "k-means++ seeding: each next row drawn in proportion to its squared distance \
                 to the nearest landmark so far"
            }
            LandmarkMethod::RpCholesky => {
                "randomly pivoted Cholesky of the kernel matrix: each next row drawn in \
                 proportion to what the landmarks so far leave unexplained of it (on a uniform \
                 pool of 20 M rows)"
            }
        }
    }

    /// The method with this [`LandmarkMethod::name`].
    pub fn from_name(name: &str) -> Option<LandmarkMethod> {
        LandmarkMethod::ALL.into_iter().find(|l| l.name() == name)
    }

    /// m landmarks drawn by this method from `seed`.
    pub fn nystrom(self, m: usize, seed: u64) -> Nystrom {
        match self {
            LandmarkMethod::Uniform => Nystrom::random(m, seed),
            LandmarkMethod::KMeansPlusPlus => Nystrom::kmeans_pp(m, seed),
            LandmarkMethod::RpCholesky => Nystrom::rp_cholesky(m, seed),
        }
    }
}

/// The entry point, as in linfa: `KernelPca::params()`.
///
/// ```
/// use kpca_fit::{Dataset, KernelPca, KernelSpec, Solver};
/// // 40 points on a noisy circle in 2-D.
/// let rows: Vec<Vec<f64>> = (0..40)
///     .map(|i| {
///         let t = i as f64 * 0.157;
///         vec![t.cos() + 0.01 * (i % 3) as f64, t.sin()]
///     })
///     .collect();
/// let data = Dataset::from_rows(rows)?;
/// let fitted = KernelPca::params()
///     .kernel(KernelSpec::rbf(0.5))
///     .n_components(2)
///     .solver(Solver::Auto)
///     .standardize(true)
///     .check()?
///     .fit(&data)?;
/// let scores = fitted.transform(&data)?; // 40 x 2, row-major
/// assert_eq!(scores.len(), 80);
/// let blob = fitted.to_blob()?;          // the device model
/// assert_eq!(&blob.as_bytes()[..4], b"KPCA");
/// # Ok::<(), kpca_fit::FitError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct KernelPca;

impl KernelPca {
    /// Default parameters: linear kernel, 2 components, [`Solver::Auto`], no
    /// standardisation, full kernel PCA, false-alarm rate 0.01.
    pub fn params() -> KernelPcaParams {
        KernelPcaParams::default()
    }
}

/// Unchecked fit parameters (builder). [`KernelPcaParams::check`] validates what
/// does not depend on the data; [`KernelPcaParams::fit`] checks and fits.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelPcaParams {
    pub(crate) kernel: KernelSpec,
    pub(crate) n_components: usize,
    pub(crate) solver: Solver,
    pub(crate) standardize: bool,
    pub(crate) nystrom: Option<Nystrom>,
    pub(crate) false_alarm_rate: f64,
    pub(crate) tol: f64,
    pub(crate) max_iter: usize,
    pub(crate) pinv_rtol: f64,
}

impl Default for KernelPcaParams {
    fn default() -> Self {
        KernelPcaParams {
            kernel: KernelSpec::linear(),
            n_components: 2,
            solver: Solver::Auto,
            standardize: false,
            nystrom: None,
            false_alarm_rate: DEFAULT_FALSE_ALARM_RATE,
            tol: DEFAULT_TOL,
            max_iter: DEFAULT_MAX_ITER,
            pinv_rtol: DEFAULT_PINV_RTOL,
        }
    }
}

/// Parameters that passed [`KernelPcaParams::check`].
#[derive(Clone, Debug, PartialEq)]
pub struct ValidKernelPcaParams(KernelPcaParams);

impl KernelPcaParams {
    /// The kernel (default linear, as scikit-learn).
    pub fn kernel(mut self, kernel: KernelSpec) -> Self {
        self.kernel = kernel;
        self
    }
    /// Number of components k (default 2).
    pub fn n_components(mut self, k: usize) -> Self {
        self.n_components = k;
        self
    }
    /// The eigen solver of the full fit (default [`Solver::Auto`]; Nyström always
    /// solves its m x m problem densely).
    pub fn solver(mut self, solver: Solver) -> Self {
        self.solver = solver;
        self
    }
    /// Standardise each input feature with the training mean and standard
    /// deviation (ddof = 0) before the kernel; stored in the device model.
    pub fn standardize(mut self, on: bool) -> Self {
        self.standardize = on;
        self
    }
    /// Nyström kernel PCA with these landmarks (default: full kernel PCA).
    pub fn nystrom(mut self, nystrom: Nystrom) -> Self {
        self.nystrom = Some(nystrom);
        self
    }
    /// Full kernel PCA (undoes [`KernelPcaParams::nystrom`]).
    pub fn full(mut self) -> Self {
        self.nystrom = None;
        self
    }
    /// False-alarm rate of the anomaly threshold, in (0, 1) (default 0.01): the
    /// threshold is the (1 - rate) quantile of the training anomaly scores.
    pub fn false_alarm_rate(mut self, rate: f64) -> Self {
        self.false_alarm_rate = rate;
        self
    }
    /// Tolerance of the iterative solver, in (0, 1): the bound on each eigenvector's
    /// estimated error, residual / gap (default [`DEFAULT_TOL`] = 1e-9; see
    /// [`ResolvedSolver::Iterative`]).
    pub fn tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }
    /// Maximum number of restarts of the iterative solver (default 1000).
    pub fn max_iter(mut self, max_iter: usize) -> Self {
        self.max_iter = max_iter;
        self
    }
    /// Relative tolerance of the Nyström pseudo-inverses, in [0, 1) (default 1e-9).
    pub fn pinv_rtol(mut self, rtol: f64) -> Self {
        self.pinv_rtol = rtol;
        self
    }

    /// Checks everything that does not depend on the data: k >= 1, the kernel's
    /// parameters (gamma finite and > 0 when given, degree in 1..=16, coef0 finite),
    /// the false-alarm rate, the solver options, and the Nyström landmark count
    /// (m >= k) and indices (distinct).
    pub fn check(self) -> Result<ValidKernelPcaParams, FitError> {
        let k = self.n_components;
        if k == 0 {
            return Err(FitError::ZeroComponents);
        }
        self.kernel.check()?;
        let rate = self.false_alarm_rate;
        if !(rate > 0.0 && rate < 1.0) {
            return Err(FitError::BadOption {
                name: "false_alarm_rate",
                value: rate,
                expected: "0 < rate < 1",
            });
        }
        if !(self.tol > 0.0 && self.tol < 1.0) {
            return Err(FitError::BadOption {
                name: "tol",
                value: self.tol,
                expected: "0 < tol < 1",
            });
        }
        if self.max_iter == 0 {
            return Err(FitError::BadOption {
                name: "max_iter",
                value: 0.0,
                expected: "at least 1",
            });
        }
        if !(self.pinv_rtol >= 0.0 && self.pinv_rtol < 1.0) {
            return Err(FitError::BadOption {
                name: "pinv_rtol",
                value: self.pinv_rtol,
                expected: "0 <= rtol < 1",
            });
        }
        if let Some(ny) = &self.nystrom {
            let m = ny.m();
            if m < k || m == 0 {
                return Err(FitError::BadLandmarkCount {
                    m,
                    n_points: None,
                    n_components: Some(k),
                });
            }
            if let Nystrom::Indices(idx) = ny {
                let mut sorted = idx.clone();
                sorted.sort_unstable();
                if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                    return Err(FitError::BadLandmarkIndex {
                        index: w[0],
                        n_points: 0,
                        duplicate: true,
                    });
                }
            }
        }
        Ok(ValidKernelPcaParams(self))
    }
}

impl ValidKernelPcaParams {
    /// The checked parameters.
    pub fn params(&self) -> &KernelPcaParams {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each name reads back as its solver or method, and no two share one.
    #[test]
    fn solver_and_landmark_names_read_back() {
        for s in Solver::ALL {
            assert_eq!(Solver::from_name(s.name()), Some(s));
        }
        for l in LandmarkMethod::ALL {
            assert_eq!(LandmarkMethod::from_name(l.name()), Some(l));
        }
        assert_eq!(Solver::from_name("arpack"), None);
        let auto = Solver::Auto.summary();
        assert!(auto.contains(&format!("n <= {AUTO_DENSE_MAX_N}")), "{auto}");
        assert!(
            auto.contains(&format!("n/{AUTO_DENSE_K_FRACTION}")),
            "{auto}"
        );
        assert_eq!(LandmarkMethod::from_name("kmeans"), None);
        assert_eq!(
            LandmarkMethod::RpCholesky.nystrom(5, 2),
            Nystrom::rp_cholesky(5, 2)
        );
    }
}
