//! Dataset-level reconstruction errors and the Nyström confidence bound
//! (seed 001, Sections 4 and 6), for every number of components q = 1..=k.
//!
//! The reconstruction error of q components is the mean squared feature-space
//! distance of the training points from their projections:
//! R_q = V - (lambda_1 + .. + lambda_q), with lambda_l = mu_l / n the score
//! variances and V = trace(Kc) / n the total variance. V is exact from the
//! n x n kernel matrix (O(n^2 d)), or, for a Nyström fit, estimated in O(n d)
//! from the landmark columns as nystrompca's `get_reconstruction_errors(approx=True)`
//! does: V ~ mean_i k(x_i, x_i) - mean_ij K_nm[i, j].
//!
//! The bound (nystrompca's `calc_conf_bound`) holds with probability at least
//! the confidence level alpha over the draw of the m landmarks from the n
//! training rows. With L the eigenvalues of K_mm / m (uncentred, largest first,
//! those below 1e-12 set to 0), delta = ln(2 / (1 - alpha)) and the kernel's
//! bound B (sup |k|):
//!
//!   D   = (n - m) / n * (B sqrt(2 delta) / sqrt(n - m)
//!         + B^2 / sqrt(m) * (sqrt(2 ln 2) + 2 sqrt(2 pi) Phi(-sqrt(2 ln 2))))
//!   D_j = min(1, D^2 / (L_j - L_{j+1})^2), or 1 when the gap is at most 1e-14
//!   bound_q = sum_{j <= q} L_j D_j + D max_{j <= q} D_j,
//!
//! defined for q < m (the m-th is NaN); all zero when m = n.

use crate::data::Dataset;
use crate::eigen::dense::dense_top;
use crate::error::FitError;
use crate::fitted::{FittedKpca, Method};
use crate::kernel::{cross_kernel, sq_norms, KernelId};
use std::vec::Vec;

/// The confidence level of the bound when none is given (nystrompca's default).
pub const DEFAULT_BOUND_CONFIDENCE: f64 = 0.9;

/// Eigenvalues of K_mm / m below this are taken as 0 (nystrompca's
/// `get_eigendecomposition` eps).
pub const BOUND_EIG_ZERO: f64 = 1e-12;

/// An eigen-gap at most this gets D_j = 1 (nystrompca's rule).
pub const BOUND_GAP_TOL: f64 = 1e-14;

/// Rows of the training data per kernel block of the exact total variance.
const EXACT_BLOCK: usize = 256;

/// How the total variance V of the reconstruction errors is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorEstimate {
    /// From the full n x n kernel matrix (O(n^2 d) time, O(n) memory).
    Exact,
    /// Nyström fits: from the landmark columns in O(n d) (nystrompca's
    /// `approx=True`); a full fit's V is exact either way.
    Approximate,
}

impl FittedKpca {
    /// The reconstruction errors R_q, q = 1..=k, of the training data `train`
    /// (the rows the model was fitted on, in the data's units;
    /// [`FitError::BadTargets`] when their count differs). A full fit needs no
    /// data: pass `None`, and its curve is returned (exact, both estimates).
    pub fn reconstruction_errors(
        &self,
        train: Option<&Dataset<'_>>,
        estimate: ErrorEstimate,
    ) -> Result<Vec<f64>, FitError> {
        let total = match (&self.method, train) {
            (Method::Full, _) => return Ok(self.core.curve.clone()),
            (Method::Nystrom { .. }, None) => {
                return Err(FitError::BoundUndefined {
                    reason: "a Nystrom fit's reconstruction errors need its training data",
                })
            }
            (Method::Nystrom { .. }, Some(data)) => self.total_variance_of(data, estimate)?,
        };
        let mut errors = Vec::with_capacity(self.n_components());
        let mut captured = 0.0;
        for lambda in self.score_variances() {
            captured += lambda;
            errors.push(total - captured);
        }
        Ok(errors)
    }

    /// V for the training rows `data`, exact or estimated.
    fn total_variance_of(
        &self,
        data: &Dataset<'_>,
        estimate: ErrorEstimate,
    ) -> Result<f64, FitError> {
        if data.n_rows() != self.n_train || data.n_features() != self.n_features {
            return Err(FitError::BadTargets {
                rows: self.n_train,
                got_rows: data.n_rows(),
                columns: data.n_features(),
            });
        }
        data.check_finite()?;
        let d = self.n_features;
        let z = match &self.standardizer {
            Some(s) => s.apply_all(data.values()),
            None => data.values().to_vec(),
        };
        let sq = sq_norms(&z, d);
        let n = self.n_train as f64;
        let mean_diag = sq.iter().map(|&s| self.kernel.self_eval(s)).sum::<f64>() / n;
        let mean_all = match estimate {
            // The stored centre is n_mean = K_nm' 1 / n, so mean(K_nm) is its mean.
            ErrorEstimate::Approximate => {
                self.core.center.iter().sum::<f64>() / self.core.center.len() as f64
            }
            ErrorEstimate::Exact => {
                let mut sum = 0.0;
                for block in z.chunks(d * EXACT_BLOCK) {
                    sum += cross_kernel(&self.kernel, &z, &sq, block, d)?
                        .iter()
                        .sum::<f64>();
                }
                sum / (n * n)
            }
        };
        Ok(mean_diag - mean_all)
    }

    /// The Nyström confidence bound at `confidence` (in (0, 1)) for q = 1..=k
    /// (entry q - 1; NaN where q = m). Zero for a full fit (m = n: the
    /// Nyström approximation is then exact). [`FitError::BoundUndefined`] for
    /// kernels without a finite bound B (linear, polynomial, sigmoid) or a
    /// confidence outside (0, 1).
    pub fn confidence_bound(&self, confidence: f64) -> Result<Vec<f64>, FitError> {
        if !(confidence > 0.0 && confidence < 1.0) {
            return Err(FitError::BoundUndefined {
                reason: "the confidence level must lie strictly between 0 and 1",
            });
        }
        let b = kernel_bound(self.kernel.kind)?;
        let k = self.n_components();
        let m = self.n_points();
        if m >= self.n_train {
            return Ok(vec![0.0; k]);
        }
        let d = self.n_features;
        let sq = sq_norms(&self.core.points, d);
        let kmm = cross_kernel(&self.kernel, &self.core.points, &sq, &self.core.points, d)?;
        let scaled: Vec<f64> = kmm.iter().map(|v| v / m as f64).collect();
        let mut eig = dense_top(scaled, m, 1)?
            .all_values
            .ok_or(FitError::BoundUndefined {
                reason: "the landmarks' eigenvalues are unavailable",
            })?;
        eig.sort_by(|a, b| b.total_cmp(a));
        for v in &mut eig {
            if *v < BOUND_EIG_ZERO {
                *v = 0.0;
            }
        }
        let mut bound = bound_from_spectrum(&eig, self.n_train, b, confidence);
        bound.resize(k.max(bound.len()), f64::NAN);
        bound.truncate(k);
        Ok(bound)
    }
}

/// sup |k| of a kernel: 1 for rbf, laplacian and cosine; none otherwise.
fn kernel_bound(kind: KernelId) -> Result<f64, FitError> {
    match kind {
        KernelId::Rbf | KernelId::Laplacian | KernelId::Cosine => Ok(1.0),
        _ => Err(FitError::BoundUndefined {
            reason:
                "the kernel is unbounded (the bound needs sup |k| finite: rbf, laplacian, cosine)",
        }),
    }
}

/// The bound for every q = 1..=m from the eigenvalues `l` of K_mm / m (largest
/// first), n training rows, kernel bound `b` and confidence `alpha`.
pub fn bound_from_spectrum(l: &[f64], n: usize, b: f64, alpha: f64) -> Vec<f64> {
    let m = l.len();
    if m == 0 {
        return Vec::new();
    }
    if m >= n {
        return vec![0.0; m];
    }
    let (nf, mf) = (n as f64, m as f64);
    let delta = libm::log(2.0 / (1.0 - alpha));
    let term1 = b * libm::sqrt(2.0 * delta) / libm::sqrt(nf - mf);
    let root = libm::sqrt(2.0 * core::f64::consts::LN_2);
    let term2 = b * b / libm::sqrt(mf)
        * (root + 2.0 * libm::sqrt(2.0 * core::f64::consts::PI) * normal_cdf(-root));
    let dev = (nf - mf) / nf * (term1 + term2);
    let mut out = Vec::with_capacity(m);
    let (mut sum, mut max_dk) = (0.0f64, f64::NEG_INFINITY);
    for j in 0..m - 1 {
        let gap = l[j] - l[j + 1];
        let dk = if gap > BOUND_GAP_TOL {
            (dev * dev / (gap * gap)).min(1.0)
        } else {
            1.0
        };
        sum += l[j] * dk;
        max_dk = max_dk.max(dk);
        out.push(sum + dev * max_dk);
    }
    out.push(f64::NAN);
    out
}

/// The standard normal distribution function, Phi(x) = erfc(-x / sqrt 2) / 2.
fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / core::f64::consts::SQRT_2)
}
