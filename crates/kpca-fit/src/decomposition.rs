//! What the full and the Nyström fits hand to the driver, in one form, and the
//! post-processing they share: the positive-eigenvalue check ([`Spectrum`]), then
//! ([`Decomposition::finish`]) scikit-learn's sign rule, the training anomaly
//! scores, the explained-variance ratios and the reconstruction-error curve.

use crate::error::FitError;
use crate::warning::FitWarning;
use crate::POSITIVE_EIG_REL_TOL;
use std::vec;
use std::vec::Vec;

/// Which solver ran, and how it went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SolverReport {
    /// Dense eigendecomposition of the n x n centred kernel matrix.
    Dense,
    /// Thick-restart Lanczos.
    Lanczos {
        /// Matrix-vector products with Kc.
        matvecs: usize,
        /// Largest relative residual ‖Kc v - mu v‖ / ‖Kc‖ of the kept pairs.
        max_residual: f64,
    },
    /// Nyström: dense eigendecompositions of m x m matrices.
    NystromDense,
}

/// What a full or Nyström fit computes, in the unified form used for transforms
/// and the device model: with kappa(x) the kernel values of x against the m stored
/// points,
///
///   y = comp' (kappa(x) - center - (weights' kappa(x) - s) 1)
///   e(x) = k(x, x) - 2 weights' kappa(x) + s - ‖y‖².
///
/// Full: comp = alpha, center = r, weights = 1/n, s = g. Nyström: comp = C,
/// center = n_mean, weights = m0, s = n_mean' m0.
#[derive(Clone, Debug)]
pub(crate) struct FitCore {
    pub points: Vec<f64>,
    pub comp: Vec<f64>,
    pub center: Vec<f64>,
    pub weights: Vec<f64>,
    pub s: f64,
    pub eigenvalues: Vec<f64>,
    pub all_eigenvalues: Option<Vec<f64>>,
    pub explained_variance_ratio: Vec<f64>,
    pub total_variance: f64,
    pub train_scores: Vec<f64>,
    pub train_anomaly: Vec<f64>,
    pub curve: Vec<f64>,
}

/// Eigenvalues that passed the positive-eigenvalue check: the k kept ones, each
/// above [`POSITIVE_EIG_REL_TOL`] times the largest absolute eigenvalue computed.
/// Only [`Spectrum::check`] makes one.
#[derive(Debug)]
pub(crate) struct Spectrum {
    values: Vec<f64>,
    all: Option<Vec<f64>>,
    largest: f64,
    threshold: f64,
}

impl Spectrum {
    /// Keeps the first `k` of `values` (the largest eigenvalues, descending)
    /// when all of them are positive; `all` is every eigenvalue, descending, when
    /// the solver computed them. [`FitError::TooManyComponents`] otherwise, with
    /// the number of positive eigenvalues among those computed.
    pub fn check(
        mut values: Vec<f64>,
        all: Option<Vec<f64>>,
        k: usize,
    ) -> Result<Spectrum, FitError> {
        let computed = all.as_deref().unwrap_or(&values);
        let largest = computed.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let threshold = POSITIVE_EIG_REL_TOL * largest;
        if values.len() < k || values.iter().take(k).any(|&v| v <= threshold) {
            return Err(FitError::TooManyComponents {
                requested: k,
                positive: computed.iter().filter(|&&v| v > threshold).count(),
                examined: computed.len(),
            });
        }
        values.truncate(k);
        Ok(Spectrum {
            values,
            all,
            largest,
            threshold,
        })
    }

    /// The k kept eigenvalues, descending.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Every eigenvalue, descending, when the solver computed them all.
    pub fn all(&self) -> Option<&[f64]> {
        self.all.as_deref()
    }

    /// The largest absolute eigenvalue computed.
    pub fn largest(&self) -> f64 {
        self.largest
    }

    /// The positivity threshold, [`POSITIVE_EIG_REL_TOL`] times [`Spectrum::largest`].
    pub fn threshold(&self) -> f64 {
        self.threshold
    }
}

/// A fit's eigen-decomposition in the unified form of [`FitCore`] (see there for
/// `points`, `comp`, `center`, `weights`, `s`), before the shared post-processing.
#[derive(Debug)]
pub(crate) struct Decomposition {
    /// The kept eigenvalues mu_l (for Nyström, of the approximated centred
    /// kernel matrix: n times the score variances).
    pub spectrum: Spectrum,
    /// Training scores, n x k row-major, signs not yet fixed.
    pub scores: Vec<f64>,
    /// The components, m x k row-major, with the signs of `scores`.
    pub comp: Vec<f64>,
    /// For each training point, its anomaly score plus ‖y‖² (DESIGN.md section 2:
    /// k(x, x) - 2 c'k_x + s; for a full fit the diagonal of Kc).
    pub self_terms: Vec<f64>,
    /// The m stored points (standardised), m x d row-major.
    pub points: Vec<f64>,
    /// See [`FitCore`].
    pub center: Vec<f64>,
    /// See [`FitCore`].
    pub weights: Vec<f64>,
    /// See [`FitCore`].
    pub s: f64,
    /// Which solver ran.
    pub report: SolverReport,
    /// Notes of the fit so far.
    pub warnings: Vec<FitWarning>,
}

impl Decomposition {
    /// The shared tail of both fits: the sign rule on the score columns (the
    /// components follow), the training anomaly scores, the explained-variance
    /// ratios and the reconstruction-error curve.
    pub fn finish(self) -> (FitCore, SolverReport, Vec<FitWarning>) {
        let Decomposition {
            spectrum,
            mut scores,
            mut comp,
            self_terms,
            points,
            center,
            weights,
            s,
            report,
            warnings,
        } = self;
        let k = spectrum.values().len();
        sign_rule(&mut scores, &mut comp, k);
        let train_anomaly: Vec<f64> = scores
            .chunks_exact(k)
            .zip(&self_terms)
            .map(|(y, &e0)| e0 - y.iter().map(|v| v * v).sum::<f64>())
            .collect();
        let (explained_variance_ratio, total_variance) =
            explained_variance_ratio(&spectrum, &self_terms);
        // An eigenvalue over n (one self term per training row) is the
        // variance of its score column.
        let n = self_terms.len() as f64;
        let mean_self = self_terms.iter().sum::<f64>() / n;
        let curve = reconstruction_curve(spectrum.values(), mean_self, n);
        let core = FitCore {
            points,
            comp,
            center,
            weights,
            s,
            eigenvalues: spectrum.values,
            all_eigenvalues: spectrum.all,
            explained_variance_ratio,
            total_variance,
            train_scores: scores,
            train_anomaly,
            curve,
        };
        (core, report, warnings)
    }
}

/// scikit-learn's sign rule (`svd_flip`): each score column (of the row-major
/// n x k `scores`) is multiplied by the sign of its entry of largest absolute
/// value (the first such entry on a tie), so that entry is positive; the same
/// column of the row-major `comp` is multiplied by the same sign. Returns the
/// +1/-1 factor of each column. (For a full fit the score column is
/// sqrt(mu) u, so this is the rule on u.)
pub(crate) fn sign_rule(scores: &mut [f64], comp: &mut [f64], k: usize) -> Vec<f64> {
    let mut largest = LargestEntries::new(k);
    scores
        .chunks_exact(k.max(1))
        .for_each(|row| largest.update(row));
    let signs = largest.signs();
    flip_columns(scores, &signs);
    flip_columns(comp, &signs);
    signs
}

/// Multiplies each column l of the row-major `values` (`signs.len()`
/// columns) by `signs[l]`.
pub(crate) fn flip_columns(values: &mut [f64], signs: &[f64]) {
    for row in values.chunks_exact_mut(signs.len().max(1)) {
        row.iter_mut().zip(signs).for_each(|(v, s)| *v *= s);
    }
}

/// What scikit-learn's sign rule needs of score rows given in order: per
/// column the largest magnitude so far and the sign of its first occurrence.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LargestEntries {
    /// (magnitude, sign) per column.
    pub best: Vec<(f64, f64)>,
}

impl LargestEntries {
    /// For k columns, before any row.
    pub fn new(k: usize) -> Self {
        LargestEntries {
            best: vec![(0.0, 1.0); k],
        }
    }

    /// Takes the next row.
    pub fn update(&mut self, row: &[f64]) {
        for (best, &v) in self.best.iter_mut().zip(row) {
            if v.abs() > best.0 {
                *best = (v.abs(), if v < 0.0 { -1.0 } else { 1.0 });
            }
        }
    }

    /// Takes the entries of the rows that follow (on a tie the earlier
    /// rows' sign stays, as in one pass).
    pub fn merge(&mut self, later: &LargestEntries) {
        for (best, other) in self.best.iter_mut().zip(&later.best) {
            if other.0 > best.0 {
                *best = *other;
            }
        }
    }

    /// The factor (+1 or -1) of each column.
    pub fn signs(&self) -> Vec<f64> {
        self.best.iter().map(|b| b.1).collect()
    }
}

/// Each eigenvalue over the total: the sum of the positive eigenvalues when every
/// eigenvalue is known, else (the iterative solver) the trace, the sum of the
/// self terms. The trace also counts negative eigenvalues (an indefinite kernel,
/// or the rounding noise of a numerically constant one) and can fall to or below
/// the kept eigenvalues' sum: it is bounded below by that sum, so the ratios stay
/// finite and within (0, 1]. Sums are scaled by the largest kept eigenvalue: the
/// eigenvalues can be finite while their sum overflows (kernel values near
/// f64::MAX). Returns the ratios and the total (infinite when it overflows).
pub(crate) fn explained_variance_ratio(spectrum: &Spectrum, self_terms: &[f64]) -> (Vec<f64>, f64) {
    let values = spectrum.values();
    let scale = values.first().copied().filter(|v| *v > 0.0).unwrap_or(1.0);
    let total = match spectrum.all() {
        Some(all) => all
            .iter()
            .filter(|&&v| v > 0.0)
            .map(|v| v / scale)
            .sum::<f64>(),
        None => self_terms
            .iter()
            .map(|v| v / scale)
            .sum::<f64>()
            .max(values.iter().map(|v| v / scale).sum::<f64>()),
    };
    let ratios = values.iter().map(|mu| (mu / scale) / total).collect();
    (ratios, total * scale)
}

/// Entry q - 1: the mean training anomaly score when keeping the first q
/// components, the mean self term `mean_self` minus the variances of the
/// first q score columns (eigenvalue / `per_point`).
pub(crate) fn reconstruction_curve(values: &[f64], mean_self: f64, per_point: f64) -> Vec<f64> {
    let mut remaining = mean_self;
    values
        .iter()
        .map(|mu| {
            remaining -= mu / per_point;
            remaining
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_rule_makes_each_score_columns_largest_entry_positive() {
        // 3 x 2 row-major; column 0 = (0.1, -0.9, 0.3), column 1 = (0.5, 0.2, -0.5).
        let mut scores = [0.1, 0.5, -0.9, 0.2, 0.3, -0.5];
        let mut comp = [1.0, 2.0, 3.0, 4.0];
        let signs = sign_rule(&mut scores, &mut comp, 2);
        assert_eq!(signs, [-1.0, 1.0]);
        assert_eq!(scores, [-0.1, 0.5, 0.9, 0.2, -0.3, -0.5]);
        assert_eq!(comp, [-1.0, 2.0, -3.0, 4.0]);
    }

    #[test]
    fn the_check_refuses_non_positive_and_missing_components() {
        let ok = Spectrum::check(vec![3.0, 2.0, 1.0], None, 2).expect("positive");
        assert_eq!(ok.values(), [3.0, 2.0]);
        let e = Spectrum::check(vec![3.0, 1e-11], Some(vec![3.0, 1e-11, -1.0]), 2).unwrap_err();
        assert_eq!(
            e,
            FitError::TooManyComponents {
                requested: 2,
                positive: 1,
                examined: 3
            }
        );
        assert!(Spectrum::check(vec![3.0], None, 2).is_err());
    }

    /// Without every eigenvalue the total is the trace, which (numerically
    /// constant data, an indefinite kernel) can vanish or fall below the kept
    /// eigenvalues' sum: the ratios stay within (0, 1].
    #[test]
    fn ratios_stay_within_one_when_the_trace_vanishes() {
        let spectrum = Spectrum::check(vec![8e-16], None, 1).expect("positive");
        for trace_terms in [[4e-16, -4e-16], [1e-17, -3e-16], [0.0, 0.0]] {
            let (r, total) = explained_variance_ratio(&spectrum, &trace_terms);
            assert!(total >= 8e-16 * (1.0 - 1e-12), "{total}");
            assert!(r.iter().all(|v| *v > 0.0 && *v <= 1.0), "{r:?}");
        }
        // With every eigenvalue: the share of the positive ones.
        let spectrum = Spectrum::check(vec![3.0], Some(vec![3.0, 1.0, -2.0]), 1).expect("ok");
        assert_eq!(explained_variance_ratio(&spectrum, &[]), (vec![0.75], 4.0));
    }

    #[test]
    fn the_curve_subtracts_each_score_variance_from_the_mean_self_term() {
        let curve = reconstruction_curve(&[4.0, 2.0], 4.0, 2.0);
        assert_eq!(curve, [2.0, 1.0]);
    }
}
