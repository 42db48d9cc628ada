//! What a device model holds, put into words: its kernel and parameters, the
//! share of the variance of each stored component, and the parameter list that
//! goes into the comment block of the generated C and Rust sources. Used by
//! `kpca inspect`, `kpca export` and `kpca plot`.

use crate::output::float_text;
use kpca_core::{Kernel, ModelRef};
use kpca_fit::ExportInfo;

/// The kernel and its parameters, e.g. `rbf (gamma = 0.5)`.
pub fn device_kernel_text(kernel: &Kernel) -> String {
    match *kernel {
        Kernel::Linear | Kernel::Cosine => kernel.id().name().into(),
        Kernel::Rbf { gamma } | Kernel::Laplacian { gamma } => {
            format!("{} (gamma = {})", kernel.id().name(), float_text(gamma))
        }
        Kernel::Polynomial {
            gamma,
            degree,
            coef0,
        } => format!(
            "poly (gamma = {}, degree = {degree}, coef0 = {})",
            float_text(gamma),
            float_text(coef0)
        ),
        Kernel::Sigmoid { gamma, coef0 } => format!(
            "sigmoid (gamma = {}, coef0 = {})",
            float_text(gamma),
            float_text(coef0)
        ),
    }
}

/// The fit's total variance, the denominator of its explained-variance ratios
/// in the units of the stored eigenvalues, which format-2 blobs keep in their
/// header (`ModelRef::total_variance`); `None` for format-1 blobs and models
/// that record no fit.
pub fn total_variance(model: &ModelRef<'_>) -> Option<f32> {
    model.total_variance()
}

/// What the variance shares of [`VarianceShares`] are shares of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarianceBasis {
    /// The fit's total variance, stored in the model (format 2): the fit's own
    /// explained-variance ratios.
    FitTotal,
    /// The variance of the given rows in feature space, about the training
    /// mean (the sum over the rows of their anomaly score plus their squared
    /// coordinates); for the training rows of a full fit with a positive
    /// semi-definite kernel this is the fit's total.
    Rows {
        /// How many rows.
        rows: usize,
    },
    /// The k stored eigenvalues only (they sum to 1): the model does not say
    /// what the total is.
    AmongStored,
}

/// The share of each stored component, and of what.
#[derive(Clone, Debug, PartialEq)]
pub struct VarianceShares {
    /// One share per component, in order.
    pub shares: Vec<f64>,
    /// What they are shares of.
    pub basis: VarianceBasis,
}

/// The shares of the fit's total variance when the model stores it, else the
/// proportions among the k stored eigenvalues.
pub fn variance_shares(model: &ModelRef<'_>) -> VarianceShares {
    let eigenvalues = model.eigenvalues();
    match total_variance(model).filter(|t| t.is_finite() && *t > 0.0) {
        Some(total) => VarianceShares {
            shares: eigenvalues
                .iter()
                .map(|&v| f64::from(v) / f64::from(total))
                .collect(),
            basis: VarianceBasis::FitTotal,
        },
        None => VarianceShares {
            shares: explained_among_stored(eigenvalues),
            basis: VarianceBasis::AmongStored,
        },
    }
}

/// The share of each component in the variance of a set of rows about the
/// training mean, from their device coordinates (`coords`, rows x k) and
/// anomaly scores: component l's share is the sum over the rows of y_l^2 over
/// the sum of (e + ‖y‖^2), the squared norm of each row's centred feature-space
/// image. `None` without rows or when that total is not positive and finite.
pub fn shares_of_rows(coords: &[f32], scores: &[f32], k: usize) -> Option<VarianceShares> {
    if k == 0 || scores.is_empty() {
        return None;
    }
    let mut per_component = vec![0.0f64; k];
    let mut total = 0.0f64;
    for (y, &e) in coords.chunks_exact(k).zip(scores) {
        total += f64::from(e);
        for (acc, &v) in per_component.iter_mut().zip(y) {
            let sq = f64::from(v) * f64::from(v);
            *acc += sq;
            total += sq;
        }
    }
    (total.is_finite() && total > 0.0).then(|| VarianceShares {
        shares: per_component.iter().map(|s| s / total).collect(),
        basis: VarianceBasis::Rows { rows: scores.len() },
    })
}

/// Whether `rows` (row-major, d per row, as read for the device) are the
/// model's stored points in order, once standardised as the device does:
/// then they are the training rows of a full fit, and
/// [`shares_of_rows`] of them gives the fit's own shares of its total variance.
/// The comparison allows for the f32 rounding of the rows and of the stored
/// standardisation.
pub fn rows_are_stored_points(model: &ModelRef<'_>, rows: &[f32]) -> bool {
    let points = model.parts().points;
    let d = model.dim();
    if rows.len() != points.len() || d == 0 {
        return false;
    }
    let (mean, inv_std) = model.standardization().unwrap_or((&[], &[]));
    rows.chunks_exact(d)
        .zip(points.chunks_exact(d))
        .all(|(x, z)| {
            x.iter().zip(z).enumerate().all(|(j, (&x, &z))| {
                let (m, s) = match (mean.get(j), inv_std.get(j)) {
                    (Some(&m), Some(&s)) => (f64::from(m), f64::from(s)),
                    _ => (0.0, 1.0),
                };
                let x = f64::from(x);
                let scale = (x.abs() + m.abs()) * s + 1.0;
                ((x - m) * s - f64::from(z)).abs() <= 1e-5 * scale
            })
        })
}

/// Proportion of each stored eigenvalue among the k stored ones.
pub fn explained_among_stored(eigenvalues: &[f32]) -> Vec<f64> {
    let total: f64 = eigenvalues.iter().map(|&v| f64::from(v)).sum();
    eigenvalues
        .iter()
        .map(|&v| {
            if total > 0.0 {
                f64::from(v) / total
            } else {
                0.0
            }
        })
        .collect()
}

/// The comment block of the generated sources, from what the blob holds.
pub fn info_from_model(model: &ModelRef<'_>, source: &str) -> ExportInfo {
    let parts = model.parts();
    let mut p: Vec<(String, String)> = Vec::new();
    p.push(("source".into(), source.into()));
    p.push(("kernel".into(), device_kernel_text(&model.kernel())));
    p.push(("dim".into(), format!("{}", model.dim())));
    p.push(("n_points".into(), format!("{}", model.n_points())));
    p.push(("n_components".into(), format!("{}", model.n_components())));
    p.push(("standardize".into(), format!("{}", model.is_standardized())));
    p.push(("threshold".into(), float_text(model.threshold())));
    let ev: Vec<String> = parts.eigenvalues.iter().map(|&v| float_text(v)).collect();
    p.push(("eigenvalues".into(), ev.join(" ")));
    ExportInfo { parameters: p }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_shares_divide_each_component_by_the_rows_feature_space_norms() {
        // Two rows, k = 2: y = (3, 1) with e = 2, y = (1, 1) with e = 0.
        // Components: 9 + 1 = 10 and 1 + 1 = 2; total 10 + 2 + 2 + 0 = 14.
        let shares = shares_of_rows(&[3.0, 1.0, 1.0, 1.0], &[2.0, 0.0], 2).unwrap();
        assert_eq!(shares.basis, VarianceBasis::Rows { rows: 2 });
        assert!((shares.shares[0] - 10.0 / 14.0).abs() < 1e-15);
        assert!((shares.shares[1] - 2.0 / 14.0).abs() < 1e-15);
        assert_eq!(shares_of_rows(&[], &[], 2), None);
        assert_eq!(shares_of_rows(&[0.0], &[0.0], 1), None);
    }

    #[test]
    fn proportions_among_stored_sum_to_one() {
        let p = explained_among_stored(&[3.0, 1.0]);
        assert_eq!(p, [0.75, 0.25]);
    }
}
