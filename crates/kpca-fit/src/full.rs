//! Full kernel PCA in f64 (DESIGN.md section 1).

use super::eigen::{dense_top, lanczos_top, sign_flip_columns, IterOptions, TopEigen};
use super::fitted::{FitCore, SolverReport};
use super::kernel::{gram_matrix, sq_norms, Kernel64, KernelKind, PANEL};
use super::linalg::dot4;
use super::params::Solver;
use super::symprod::sym_block_product;
use super::{FitError, POSITIVE_EIG_REL_TOL};
use nalgebra::DMatrix;
use rayon::prelude::*;
use std::format;
use std::string::String;
use std::vec;
use std::vec::Vec;

/// Fits full kernel PCA to the (standardised) row-major points `z` (n x d).
///
/// Memory: one n x n f64 matrix plus O(n k). The kernel matrix is built once (its
/// lower triangle in parallel column panels, with its row sums) and handed to the
/// solver without a copy. The iterative solver only reads it: each block product
/// K X is centred afterwards in O(n) per column (Kc = K - 1 r' - r 1' + g 1 1'),
/// so Kc is never formed. The dense solver centres it in place, reduces it in
/// place and computes only the k wanted eigenvectors (see `eigen::dense_top`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fit_full(
    z: &[f64],
    d: usize,
    kernel: &Kernel64,
    k: usize,
    solver: Solver,
    tol: f64,
    max_iter: usize,
    warnings: &mut Vec<String>,
) -> Result<(FitCore, SolverReport), FitError> {
    let n = z.len() / d.max(1);
    let sq = sq_norms(z, d);
    let (mut kmat, row_sums) = gram_matrix(kernel, z, &sq, d)?;

    // Row means r (= column means, K is symmetric) and the grand mean g.
    let r: Vec<f64> = row_sums.iter().map(|s| s / n as f64).collect();
    let g = r.iter().sum::<f64>() / n as f64;
    // The diagonal of Kc = K - 1 r' - r 1' + g 1 1' (so Kc_ij = K_ij - r_i - r_j + g).
    let diag: Vec<f64> = (0..n).map(|j| (kmat[j * n + j] - 2.0 * r[j]) + g).collect();
    let trace: f64 = diag.iter().sum();

    let (eig, report): (TopEigen, SolverReport) = match solver {
        Solver::Iterative => {
            let opts = IterOptions {
                tol,
                max_restarts: max_iter,
            };
            // Kc is never formed: each product is K X, centred afterwards.
            let centred_product = |x: faer::MatRef<'_, f64>, mut y: faer::MatMut<'_, f64>| {
                sym_block_product(&kmat, n, x, y.as_mut());
                centre_product(&r, g, x, y);
            };
            let eig = lanczos_top(n, k, centred_product, opts)?;
            drop(kmat);
            let report = SolverReport::Lanczos {
                matvecs: eig.matvecs,
                max_residual: eig.max_residual,
            };
            (eig, report)
        }
        Solver::Dense | Solver::Auto => {
            centre_in_place(&mut kmat, n, &r, g);
            (
                dense_top(DMatrix::from_vec(n, n, kmat), k)?,
                SolverReport::Dense,
            )
        }
    };
    let TopEigen {
        values,
        mut vectors,
        all_values,
        ..
    } = eig;

    // Positive eigenvalues and the k-th component.
    let reference = all_values
        .as_deref()
        .unwrap_or(&values)
        .iter()
        .fold(0.0f64, |a, v| a.max(v.abs()));
    let threshold = POSITIVE_EIG_REL_TOL * reference;
    let examined = all_values.as_ref().map_or(values.len(), Vec::len);
    let positive = all_values
        .as_deref()
        .unwrap_or(&values)
        .iter()
        .filter(|&&v| v > threshold)
        .count();
    if values.len() < k || values.iter().take(k).any(|&v| v <= threshold) {
        return Err(FitError::TooManyComponents {
            requested: k,
            positive,
            examined,
        });
    }
    match &all_values {
        Some(all) => {
            let negative: Vec<f64> = all.iter().copied().filter(|&v| v < -threshold).collect();
            if let Some(most) = negative.iter().copied().reduce(f64::min) {
                warnings.push(format!(
                    "the kernel matrix is indefinite ({} kernel): {} of the {n} eigenvalues of \
                     the centred kernel matrix are negative (most negative {most:e}, largest \
                     {reference:e}); they are dropped, never kept as components",
                    kernel.kind.name(),
                    negative.len(),
                ));
            }
        }
        None => {
            if kernel.kind == KernelKind::Sigmoid {
                warnings.push(String::from(
                    "the sigmoid kernel is indefinite: negative eigenvalues of the centred kernel \
                     matrix are never kept; the iterative solver does not compute them, so the \
                     explained-variance ratios use trace(Kc) as the total",
                ));
            }
        }
    }

    sign_flip_columns(&mut vectors);
    let mut scores = vec![0.0; n * k];
    let mut comp = vec![0.0; n * k];
    for (l, (col, &mu)) in vectors.column_iter().zip(&values).enumerate() {
        let root = mu.sqrt();
        for (i, &u) in col.iter().enumerate() {
            scores[i * k + l] = u * root;
            comp[i * k + l] = u / root;
        }
    }
    let train_anomaly: Vec<f64> = scores
        .chunks_exact(k)
        .zip(&diag)
        .map(|(y, &kc)| kc - y.iter().map(|v| v * v).sum::<f64>())
        .collect();
    // Sums scaled by the largest kept eigenvalue: the eigenvalues can be finite
    // while their sum overflows (kernel values near f64::MAX).
    let scale = values.first().copied().filter(|v| *v > 0.0).unwrap_or(1.0);
    let total = match &all_values {
        Some(all) => all
            .iter()
            .filter(|&&v| v > 0.0)
            .map(|v| v / scale)
            .sum::<f64>(),
        // The trace also counts negative eigenvalues (an indefinite kernel, or
        // the rounding noise of a numerically constant one) and can fall to or
        // below the kept ones' sum: bound it by that sum, so the ratios stay
        // finite and within (0, 1].
        None => diag
            .iter()
            .map(|v| v / scale)
            .sum::<f64>()
            .max(values.iter().take(k).map(|v| v / scale).sum::<f64>()),
    };
    let eigenvalues: Vec<f64> = values.iter().take(k).copied().collect();
    let explained_variance_ratio = eigenvalues.iter().map(|mu| (mu / scale) / total).collect();
    let mut curve = Vec::with_capacity(k);
    let mut remaining = trace / n as f64;
    for mu in &eigenvalues {
        remaining -= mu / n as f64;
        curve.push(remaining);
    }
    let core = FitCore {
        points: z.to_vec(),
        comp,
        center: r,
        weights: vec![1.0 / n as f64; n],
        s: g,
        eigenvalues,
        all_eigenvalues: all_values,
        explained_variance_ratio,
        train_scores: scores,
        train_anomaly,
        curve,
    };
    Ok((core, report))
}

/// Centres the lower triangle of the column-major n x n kernel matrix in place:
/// Kc_ij = K_ij - (r_i + r_j) + g, with r the row means and g the grand mean.
fn centre_in_place(kmat: &mut [f64], n: usize, r: &[f64], g: f64) {
    kmat.par_chunks_mut(n.max(1) * PANEL)
        .enumerate()
        .for_each(|(block, cols)| {
            for (jj, col) in cols.chunks_exact_mut(n).enumerate() {
                let j = block * PANEL + jj;
                let rj = r[j];
                for (v, &ri) in col.iter_mut().zip(r).skip(j) {
                    *v = (*v - (ri + rj)) + g;
                }
            }
        });
}

/// Turns Y = K X into Y = Kc X in place, for Kc = K - 1 r' - r 1' + g 1 1' (r the
/// row means of K, g their mean): column by column,
/// y -= 1 (r'x) + r (1'x) - g (1'x) 1. O(n) per column; the centred matrix is
/// never formed, which saves a pass that reads and writes all of it.
fn centre_product(r: &[f64], g: f64, x: faer::MatRef<'_, f64>, mut y: faer::MatMut<'_, f64>) {
    for c in 0..x.ncols().min(y.ncols()) {
        let xc = x.col(c);
        let sum_x: f64 = xc.iter().sum();
        let r_dot_x = match xc.try_as_col_major() {
            Some(col) => dot4(col.as_slice(), r),
            None => xc.iter().zip(r).map(|(a, b)| a * b).sum(),
        };
        let shift = r_dot_x - g * sum_x;
        for (v, &ri) in y.as_mut().col_mut(c).iter_mut().zip(r) {
            *v -= shift + ri * sum_x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The implicitly centred product equals the product with the explicitly
    /// centred matrix, Kc_ij = K_ij - r_i - r_j + g.
    #[test]
    fn implicit_centring_equals_the_centred_matrix() {
        const TOL: f64 = 1e-12;
        let (n, b) = (50, 3);
        let k: Vec<f64> = (0..n * n)
            .map(|idx| {
                let (i, j) = (idx % n, idx / n);
                1.0 / (1.0 + (i as f64 - j as f64).abs()) + 0.3
            })
            .collect();
        let r: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| k[j * n + i]).sum::<f64>() / n as f64)
            .collect();
        let g = r.iter().sum::<f64>() / n as f64;
        let x: Vec<f64> = (0..n * b).map(|i| ((i * 13) % 17) as f64 - 8.0).collect();
        let mut y = vec![0.0; n * b];
        for c in 0..b {
            for i in 0..n {
                y[c * n + i] = (0..n).map(|j| k[j * n + i] * x[c * n + j]).sum();
            }
        }
        centre_product(
            &r,
            g,
            faer::MatRef::from_column_major_slice(&x, n, b),
            faer::MatMut::from_column_major_slice_mut(&mut y, n, b),
        );
        let mut kc = k.clone();
        centre_in_place(&mut kc, n, &r, g);
        for c in 0..b {
            for i in 0..n {
                // centre_in_place writes the lower triangle only.
                let want: f64 = (0..n)
                    .map(|j| kc[i.min(j) * n + i.max(j)] * x[c * n + j])
                    .sum();
                let err = (y[c * n + i] - want).abs();
                assert!(err < TOL * n as f64, "({i}, {c}): {err:e}");
            }
        }
    }
}
