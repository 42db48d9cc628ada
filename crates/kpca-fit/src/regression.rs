//! Kernel principal component regression (seed 001, Section 8), full and
//! Nyström: a least-squares fit of centred targets on the k component scores.
//!
//! The training score columns s_l are centred and orthogonal (for both fits:
//! they are the projections of the centred feature vectors onto orthogonal
//! directions), with s_l's' s_l = mu_l, so the least-squares weights are
//! W_lj = s_l' (t_j - mean(t_j)) / mu_l and the intercept the targets' means;
//! a prediction is mean(t) + W' y(x), affine in the kernel vector since y is.
//! Components whose mu_l is at most [`PCR_EIG_REL_TOL`] times the largest get
//! weight 0 (their direction carries no training variance to regress on).

use crate::data::Dataset;
use crate::error::FitError;
use crate::fitted::FittedKpca;
pub use crate::heads::RegressionHead;
use std::vec::Vec;

/// Components with mu_l at most this times mu_1 get no regression weight.
pub const PCR_EIG_REL_TOL: f64 = 1e-12;

impl FittedKpca {
    /// Fits the regression head on `targets`, one row per training row (in
    /// the training order) and 1 to [`kpca_core::MAX_TARGETS`] columns
    /// ([`FitError::BadTargets`] otherwise), replacing any earlier one;
    /// [`FitError::RowsNotKept`] after a streamed fit.
    pub fn fit_regression(&mut self, targets: &Dataset<'_>) -> Result<(), FitError> {
        if !self.rows_kept() {
            return Err(FitError::RowsNotKept {
                what: "a regression head",
            });
        }
        let t = targets.n_features();
        if targets.n_rows() != self.n_train || t == 0 || t > kpca_core::MAX_TARGETS {
            return Err(FitError::BadTargets {
                rows: self.n_train,
                got_rows: targets.n_rows(),
                columns: t,
            });
        }
        targets.check_finite()?;
        let k = self.n_components();
        let n = self.n_train as f64;
        let mut intercept = vec![0.0; t];
        for row in targets.rows() {
            for (c, v) in intercept.iter_mut().zip(row) {
                *c += v / n;
            }
        }
        let mut weights = vec![0.0; k * t];
        for (s, row) in self.core.train_scores.chunks_exact(k).zip(targets.rows()) {
            for (sl, w_row) in s.iter().zip(weights.chunks_exact_mut(t)) {
                for ((w, v), c) in w_row.iter_mut().zip(row).zip(&intercept) {
                    *w += sl * (v - c);
                }
            }
        }
        let top = self.core.eigenvalues.first().copied().unwrap_or(0.0);
        for (&mu, w_row) in self
            .core
            .eigenvalues
            .iter()
            .zip(weights.chunks_exact_mut(t))
        {
            let keep = mu > PCR_EIG_REL_TOL * top;
            for w in w_row {
                *w = if keep { *w / mu } else { 0.0 };
            }
        }
        self.regression = Some(RegressionHead { weights, intercept });
        Ok(())
    }

    /// The regression head, when fitted.
    pub fn regression_head(&self) -> Option<&RegressionHead> {
        self.regression.as_ref()
    }

    /// The regression predictions of each row of `data`, rows x t row-major.
    /// [`FitError::NoRegression`] without a fitted head.
    pub fn predict(&self, data: &Dataset<'_>) -> Result<Vec<f64>, FitError> {
        let head = self.regression.as_ref().ok_or(FitError::NoRegression)?;
        let scores = self.transform(data)?;
        let k = self.n_components();
        let t = head.n_targets();
        let mut out = Vec::with_capacity(data.n_rows() * t);
        for y in scores.chunks_exact(k) {
            let mut p = head.intercept.clone();
            for (yl, w_row) in y.iter().zip(head.weights.chunks_exact(t)) {
                for (pj, w) in p.iter_mut().zip(w_row) {
                    *pj += yl * w;
                }
            }
            out.extend(p);
        }
        Ok(out)
    }
}
