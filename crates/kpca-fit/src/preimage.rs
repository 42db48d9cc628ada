//! The pre-image (seed 004): a point's reconstruction lives in feature space,
//! and an input-space representative is estimated separately.
//!
//! - The learned map (scikit-learn's `fit_inverse_transform`): kernel ridge
//!   regression from the k scores of the stored points back to those points,
//!   with the model's kernel and parameters and ridge `alpha`:
//!   dual = (K_T + alpha I)^-1 Z, with K_T the kernel matrix of the score
//!   vectors t_i and Z the stored points (in the fit's input space: standardised
//!   when the fit standardises), and x-hat(y) = k_T(y)' dual, then the
//!   standardisation undone. For a full fit the stored points are the training
//!   rows (scikit-learn's map exactly); for a Nyström fit they are the m
//!   landmarks, so the device's cost stays O(m).
//! - The fixed-point iteration of Mika et al. (1999), rbf only: the feature-space
//!   reconstruction is phi-hat = sum_i g_i phi(z_i) with
//!   g = weights + A y (A the folded projection of DESIGN.md; for a full fit
//!   g_i = 1/n + sum_l y_l (alpha_il - mean_j alpha_jl)), and the pre-image z
//!   minimising ||phi(z) - phi-hat|| satisfies
//!   z = sum_i g_i k(z, z_i) z_i / sum_i g_i k(z, z_i). [`fixed_point`] iterates it
//!   from the learned map's answer with the stopping rule of [`MIKA_STEP_TOL`]
//!   and [`MIKA_DENOMINATOR_TOL`].

use crate::data::Dataset;
use crate::error::FitError;
use crate::fitted::{FittedKpca, Method};
pub use crate::heads::PreImageMap;
use crate::kernel::{cross_kernel, sq_norms, Kernel64, KernelId};
use faer::linalg::solvers::Solve;
use faer::Mat;
use std::cmp::Ordering;
use std::vec::Vec;

/// Default ridge of the learned pre-image map (scikit-learn's `alpha`).
pub const DEFAULT_PREIMAGE_ALPHA: f64 = 1.0;

/// The fixed-point iteration stops when a step moves z by at most this times
/// (1 + ||z||) (keeping that step).
pub const MIKA_STEP_TOL: f64 = 1e-12;

/// The fixed-point iteration stops, keeping the current z, when the
/// denominator sum_i g_i k(z, z_i) is at most this times sum_i |g_i k(z, z_i)|
/// (the weighted mean is then undefined: z is far from every stored point
/// with positive weight).
pub const MIKA_DENOMINATOR_TOL: f64 = 1e-12;

impl FittedKpca {
    /// Fits the learned pre-image map with ridge `alpha` (> 0, finite; scikit-learn's
    /// `fit_inverse_transform=True` with `alpha`), replacing any earlier one. It
    /// regresses from the scores of the stored points (the training rows of a
    /// full fit, with their training scores; the landmarks of a Nyström fit)
    /// back to those points. O(rows^3) time, O(rows^2) memory.
    pub fn fit_inverse_transform(&mut self, alpha: f64) -> Result<(), FitError> {
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(FitError::BadOption {
                name: "alpha",
                value: alpha,
                expected: "finite and > 0",
            });
        }
        let scores = self.stored_point_scores()?;
        let map = learned_map(
            &self.kernel,
            &scores,
            &self.core.points,
            self.n_features,
            alpha,
        )?;
        self.preimage = Some(map);
        Ok(())
    }

    /// The learned pre-image map, when fitted.
    pub fn preimage_map(&self) -> Option<&PreImageMap> {
        self.preimage.as_ref()
    }

    /// The scores of the stored points in row order: the training scores of a
    /// full fit (scikit-learn's `X_transformed_fit_`), the transform of the
    /// landmarks of a Nyström fit.
    fn stored_point_scores(&self) -> Result<Vec<f64>, FitError> {
        match self.method {
            Method::Full => Ok(self.core.train_scores.clone()),
            Method::Nystrom { .. } => {
                let raw = self.to_raw_units(&self.core.points);
                self.transform(&Dataset::new(raw, self.n_features)?)
            }
        }
    }

    /// Rows of the fit's input space (standardised when the fit standardises)
    /// in the data's units.
    pub(crate) fn to_raw_units(&self, rows: &[f64]) -> Vec<f64> {
        match &self.standardizer {
            Some(st) => rows
                .chunks_exact(self.n_features)
                .flat_map(|z| {
                    z.iter()
                        .zip(&st.mean)
                        .zip(&st.std)
                        .map(|((v, m), s)| v * s + m)
                })
                .collect(),
            None => rows.to_vec(),
        }
    }

    /// The learned map applied to score rows (rows x k, row-major): the
    /// pre-images, rows x d in the data's units (scikit-learn's
    /// `inverse_transform`). [`FitError::NoPreImage`] without a fitted map.
    pub fn inverse_transform(&self, scores: &[f64]) -> Result<Vec<f64>, FitError> {
        let map = self.preimage.as_ref().ok_or(FitError::NoPreImage)?;
        let k = self.n_components();
        if let Some(at) = scores.iter().position(|v| !v.is_finite()) {
            return Err(FitError::NonFiniteInput {
                row: at / k.max(1),
                column: at % k.max(1),
            });
        }
        if !scores.len().is_multiple_of(k) {
            return Err(FitError::FeatureMismatch {
                expected: k,
                got: scores.len() % k,
            });
        }
        let fit_space = apply_map(&self.kernel, map, scores, k, self.n_features)?;
        Ok(self.to_raw_units(&fit_space))
    }

    /// The pre-image of each row of `data`: the learned map applied to its
    /// scores, then, for rbf models, `steps` fixed-point steps of Mika et al.
    /// (see [`fixed_point`]; `steps` = 0 gives the learned map's answer).
    /// Rows x d, in the data's units.
    pub fn preimage(&self, data: &Dataset<'_>, steps: usize) -> Result<Vec<f64>, FitError> {
        let scores = self.transform(data)?;
        let start = self.inverse_transform(&scores)?;
        if steps == 0 || self.kernel.kind != KernelId::Rbf {
            return Ok(start);
        }
        let d = self.n_features;
        let k = self.n_components();
        let (a, _) = self.folded();
        let mut out = Vec::with_capacity(start.len());
        for (y, x0) in scores.chunks_exact(k).zip(start.chunks_exact(d)) {
            let weights = expansion_weights(&self.core.weights, &a, y);
            let z0 = self.standardize_row(x0);
            let z = fixed_point(
                &self.core.points,
                d,
                &weights,
                self.kernel.gamma,
                &z0,
                steps,
            );
            out.extend(self.to_raw_units(&z));
        }
        Ok(out)
    }

    /// One row in the data's units mapped into the fit's input space.
    fn standardize_row(&self, x: &[f64]) -> Vec<f64> {
        match &self.standardizer {
            Some(st) => x
                .iter()
                .zip(&st.mean)
                .zip(&st.std)
                .map(|((v, m), s)| (v - m) / s)
                .collect(),
            None => x.to_vec(),
        }
    }
}

/// Kernel ridge regression from `scores` (rows x k) to `targets` (rows x d).
fn learned_map(
    kernel: &Kernel64,
    scores: &[f64],
    targets: &[f64],
    d: usize,
    alpha: f64,
) -> Result<PreImageMap, FitError> {
    let rows = targets.len() / d.max(1);
    let k = scores.len() / rows.max(1);
    let sq = sq_norms(scores, k);
    // Column-major rows x rows; symmetric.
    let gram = cross_kernel(kernel, scores, &sq, scores, k)?;
    let system = Mat::from_fn(rows, rows, |i, j| {
        gram[j * rows + i] + if i == j { alpha } else { 0.0 }
    });
    let rhs = Mat::from_fn(rows, d, |i, j| targets[i * d + j]);
    let solved = system.partial_piv_lu().solve(&rhs);
    let mut coef = Vec::with_capacity(rows * d);
    for i in 0..rows {
        coef.extend((0..d).map(|j| solved[(i, j)]));
    }
    if !coef.iter().all(|v| v.is_finite()) {
        return Err(FitError::SingularPreImage);
    }
    Ok(PreImageMap {
        alpha,
        scores: scores.to_vec(),
        coef,
    })
}

/// x-hat = k_T(y)' coef for each score row of `scores`, in the fit's input space.
fn apply_map(
    kernel: &Kernel64,
    map: &PreImageMap,
    scores: &[f64],
    k: usize,
    d: usize,
) -> Result<Vec<f64>, FitError> {
    let rows = map.coef.len() / d.max(1);
    let sq = sq_norms(&map.scores, k);
    // Column c holds k(t_i, y_c) for every row i.
    let kt = cross_kernel(kernel, &map.scores, &sq, scores, k)?;
    let mut out = Vec::with_capacity(scores.len() / k * d);
    for col in kt.chunks_exact(rows.max(1)) {
        let mut x = vec![0.0; d];
        for (&kv, beta) in col.iter().zip(map.coef.chunks_exact(d)) {
            for (xj, b) in x.iter_mut().zip(beta) {
                *xj += kv * b;
            }
        }
        out.extend(x);
    }
    Ok(out)
}

/// The expansion weights g = weights + A y of the feature-space reconstruction
/// sum_i g_i phi(z_i) of a point with scores `y` (A row-major m x k).
pub fn expansion_weights(weights: &[f64], a: &[f64], y: &[f64]) -> Vec<f64> {
    let k = y.len().max(1);
    weights
        .iter()
        .zip(a.chunks_exact(k))
        .map(|(w, row)| w + row.iter().zip(y).map(|(p, q)| p * q).sum::<f64>())
        .collect()
}

/// Mika et al.'s fixed-point iteration for the rbf pre-image, at most `steps`
/// steps from `start`: z <- sum_i g_i k(z, z_i) z_i / sum_i g_i k(z, z_i) over
/// the stored `points` (m x d) with expansion `weights` g and the kernel's
/// `gamma`. Stops after a step that moves z by at most [`MIKA_STEP_TOL`]
/// (1 + ||z||), and before a step whose denominator is at most
/// [`MIKA_DENOMINATOR_TOL`] times sum_i |g_i k(z, z_i)|.
pub fn fixed_point(
    points: &[f64],
    d: usize,
    weights: &[f64],
    gamma: f64,
    start: &[f64],
    steps: usize,
) -> Vec<f64> {
    let mut z = start.to_vec();
    for _ in 0..steps {
        let mut num = vec![0.0; d];
        let (mut den, mut mag) = (0.0, 0.0);
        for (zi, &g) in points.chunks_exact(d.max(1)).zip(weights) {
            let dist: f64 = z.iter().zip(zi).map(|(a, b)| (a - b) * (a - b)).sum();
            let w = g * (-gamma * dist).exp();
            den += w;
            mag += w.abs();
            for (nj, &v) in num.iter_mut().zip(zi) {
                *nj += w * v;
            }
        }
        // Stops when the weights cancel (or are NaN): the next step would divide by ~0.
        let cancelled =
            den.abs().partial_cmp(&(MIKA_DENOMINATOR_TOL * mag)) != Some(Ordering::Greater);
        if cancelled {
            break;
        }
        let next: Vec<f64> = num.iter().map(|v| v / den).collect();
        let moved: f64 = next
            .iter()
            .zip(&z)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt();
        let size: f64 = next.iter().map(|v| v * v).sum::<f64>().sqrt();
        z = next;
        if moved <= MIKA_STEP_TOL * (1.0 + size) {
            break;
        }
    }
    z
}

impl FittedKpca {
    /// The pre-image section of the device model: the training score
    /// vectors and the dual coefficients in the data's units
    /// (sigma_j beta_ij for a standardised fit, else beta_ij), then the offset
    /// row (the fit's input mean, or 0), so that the device's
    /// x-hat = offset + sum_i k(y, t_i) coef_i is the learned map in the data's
    /// units whatever input map the device applies before projecting.
    pub(crate) fn device_preimage(&self) -> Option<(Vec<f32>, Vec<f32>)> {
        let map = self.preimage.as_ref()?;
        let d = self.n_features;
        let (mean, std): (Vec<f64>, Vec<f64>) = match &self.standardizer {
            Some(st) => (st.mean.clone(), st.std.clone()),
            None => (vec![0.0; d], vec![1.0; d]),
        };
        let mut coef = Vec::with_capacity(map.coef.len() + d);
        for beta in map.coef.chunks_exact(d) {
            coef.extend(beta.iter().zip(&std).map(|(b, s)| (b * s) as f32));
        }
        coef.extend(mean.iter().map(|&m| m as f32));
        let scores = map.scores.iter().map(|&v| v as f32).collect();
        Some((scores, coef))
    }
}
