//! Kernel PCA of a precomputed kernel matrix (scikit-learn's
//! `kernel="precomputed"`): host only, since the device evaluates its own
//! kernels on stored points and a kernel matrix gives it none.
//!
//! The centring is scikit-learn's `KernelCenterer`, which does not assume a
//! symmetric matrix: Kc_ij = K_ij - c_j - r_i + g with c the column means, r
//! the row means and g the grand mean of the training matrix (for a test row
//! k against the n training points, kc_j = k_j - c_j - mean(k) + g). The
//! eigenpairs are those of the lower triangle of Kc (as LAPACK's `syevd`
//! reads it), signs by scikit-learn's rule (each eigenvector's entry of
//! largest magnitude positive).

use crate::decomposition::sign_rule;
use crate::eigen::dense_top;
use crate::error::FitError;
use crate::full::scaled_vectors;
use crate::POSITIVE_EIG_REL_TOL;

/// Negative eigenvalues below minus this times the largest eigenvalue, among
/// those selected, make the fit fail (scikit-learn's
/// `_check_psd_eigenvalues` ratio).
pub const SIGNIFICANT_NEGATIVE_RATIO: f64 = 1e-5;

/// Which k eigenvalues a fit selects before its checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The k largest (scikit-learn's dense and arpack solvers).
    Largest,
    /// The k largest in magnitude (scikit-learn's randomized solver): a
    /// significant negative one among them fails the fit.
    LargestModulus,
}

/// A fitted kernel PCA of a precomputed kernel matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct PrecomputedKpca {
    n: usize,
    col_means: Vec<f64>,
    grand_mean: f64,
    /// alpha_l = u_l / sqrt(mu_l), n x k row-major.
    comp: Vec<f64>,
    eigenvalues: Vec<f64>,
    /// sqrt(mu_l) u_l, n x k row-major.
    scores: Vec<f64>,
}

impl PrecomputedKpca {
    /// Fits on the row-major n x n kernel matrix `kmat` at most `k` components:
    /// those of the k selected eigenvalues that are positive (above
    /// [`POSITIVE_EIG_REL_TOL`] times the largest), so fewer when the matrix
    /// has fewer. Errors: [`FitError::NotSquare`], [`FitError::NonFiniteInput`],
    /// [`FitError::ZeroComponents`], [`FitError::NegativeEigenvalues`].
    pub fn fit(kmat: &[f64], n: usize, k: usize, selection: Selection) -> Result<Self, FitError> {
        if n == 0 || kmat.len() != n * n {
            return Err(FitError::NotSquare {
                len: kmat.len(),
                rows: n,
            });
        }
        if k == 0 {
            return Err(FitError::ZeroComponents);
        }
        if let Some(at) = kmat.iter().position(|v| !v.is_finite()) {
            return Err(FitError::NonFiniteInput {
                row: at / n,
                column: at % n,
            });
        }
        let row_means: Vec<f64> = kmat
            .chunks_exact(n)
            .map(|r| r.iter().sum::<f64>() / n as f64)
            .collect();
        let mut col_means = vec![0.0; n];
        for row in kmat.chunks_exact(n) {
            for (c, v) in col_means.iter_mut().zip(row) {
                *c += v;
            }
        }
        col_means.iter_mut().for_each(|c| *c /= n as f64);
        let grand_mean = col_means.iter().sum::<f64>() / n as f64;
        // Column-major lower triangle of Kc: element (i, j), i >= j, at j n + i.
        let mut centred = vec![0.0; n * n];
        for j in 0..n {
            for i in j..n {
                centred[j * n + i] = kmat[i * n + j] - col_means[j] - row_means[i] + grand_mean;
            }
        }
        let eig = dense_top(centred, n, k.min(n))?;
        let all = eig.all_values.clone().unwrap_or_else(|| eig.values.clone());
        check_selected(&all, k, selection)?;
        let largest = all.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let kept = eig
            .values
            .iter()
            .take_while(|&&v| v > POSITIVE_EIG_REL_TOL * largest)
            .count();
        let (mut scores, mut comp) = scaled_vectors(&eig.vectors[..kept * n], &eig.values[..kept]);
        sign_rule(&mut scores, &mut comp, kept);
        Ok(PrecomputedKpca {
            n,
            col_means,
            grand_mean,
            comp,
            eigenvalues: eig.values[..kept].to_vec(),
            scores,
        })
    }

    /// Number of components kept.
    pub fn n_components(&self) -> usize {
        self.eigenvalues.len()
    }
    /// The kept eigenvalues mu_l of the centred matrix, descending.
    pub fn eigenvalues(&self) -> &[f64] {
        &self.eigenvalues
    }
    /// The training rows' scores, n x k row-major.
    pub fn train_scores(&self) -> &[f64] {
        &self.scores
    }

    /// Scores of test rows: `rows` holds each row's kernel values against the
    /// n training points (rows x n, row-major).
    pub fn transform(&self, rows: &[f64]) -> Result<Vec<f64>, FitError> {
        let (n, k) = (self.n, self.n_components());
        if !rows.len().is_multiple_of(n) {
            return Err(FitError::FeatureMismatch {
                expected: n,
                got: rows.len() % n,
            });
        }
        let mut out = Vec::with_capacity(rows.len() / n * k);
        for row in rows.chunks_exact(n) {
            let shift = self.grand_mean - row.iter().sum::<f64>() / n as f64;
            let mut y = vec![0.0; k];
            for ((&v, &c), alpha) in row
                .iter()
                .zip(&self.col_means)
                .zip(self.comp.chunks_exact(k.max(1)))
            {
                let kc = v - c + shift;
                for (yl, a) in y.iter_mut().zip(alpha) {
                    *yl += kc * a;
                }
            }
            out.extend(y);
        }
        if let Some(at) = out.iter().position(|v| !v.is_finite()) {
            return Err(FitError::NonFiniteInput {
                row: at / k.max(1),
                column: 0,
            });
        }
        Ok(out)
    }
}

/// Fails when the k selected eigenvalues include a significantly negative one.
fn check_selected(all: &[f64], k: usize, selection: Selection) -> Result<(), FitError> {
    let mut selected: Vec<f64> = all.to_vec();
    if selection == Selection::LargestModulus {
        selected.sort_by(|a, b| b.abs().total_cmp(&a.abs()));
    }
    selected.truncate(k);
    let largest = selected.iter().copied().fold(0.0f64, f64::max);
    let most_negative = selected.iter().copied().fold(0.0f64, f64::min);
    if most_negative < -SIGNIFICANT_NEGATIVE_RATIO * largest.max(f64::MIN_POSITIVE) {
        return Err(FitError::NegativeEigenvalues {
            value: most_negative,
            largest,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_symmetric_matrix_is_centred_as_scikit_learn_does() {
        // [[1, 2], [3, 40]] centres to [[9, -9], [-9, 9]] exactly.
        let a = PrecomputedKpca::fit(&[1.0, 2.0, 3.0, 40.0], 2, 1, Selection::Largest).unwrap();
        let b = PrecomputedKpca::fit(&[9.0, -9.0, -9.0, 9.0], 2, 1, Selection::Largest).unwrap();
        assert_eq!(a.eigenvalues(), b.eigenvalues());
        assert_eq!(a.train_scores(), b.train_scores());
        assert!((a.eigenvalues()[0] - 18.0).abs() < 1e-12);
    }

    #[test]
    fn significant_negative_eigenvalues_fail_only_when_selected() {
        // Centred diag(3, -1, ...) embedding: eigenvalues of [[2, 0], [0, -1]]-like matrix.
        let k = [4.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0];
        // Centring changes the matrix; the most negative eigenvalue stays negative.
        assert!(matches!(
            PrecomputedKpca::fit(&k, 3, 3, Selection::Largest),
            Err(FitError::NegativeEigenvalues { .. })
        ));
        assert!(PrecomputedKpca::fit(&k, 3, 1, Selection::Largest).is_ok());
        assert!(matches!(
            PrecomputedKpca::fit(&k, 3, 2, Selection::LargestModulus),
            Err(FitError::NegativeEigenvalues { .. })
        ));
    }

    #[test]
    fn transform_of_the_training_matrix_gives_the_training_scores() {
        let x: [f64; 8] = [0.0, 1.0, 2.0, 0.5, 1.5, 3.0, 0.2, 2.2];
        let n = x.len();
        let kmat: Vec<f64> = (0..n * n)
            .map(|t| (-(x[t / n] - x[t % n]) * (x[t / n] - x[t % n])).exp())
            .collect();
        let fit = PrecomputedKpca::fit(&kmat, n, 3, Selection::Largest).unwrap();
        let y = fit.transform(&kmat).unwrap();
        for (a, b) in y.iter().zip(fit.train_scores()) {
            assert!((a - b).abs() < 1e-10, "{a} vs {b}");
        }
        assert!(matches!(
            PrecomputedKpca::fit(&kmat[1..], n, 3, Selection::Largest),
            Err(FitError::NotSquare { .. })
        ));
    }
}
