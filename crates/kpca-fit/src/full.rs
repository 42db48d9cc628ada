//! Full kernel PCA in f64 (DESIGN.md section 1): the kernel matrix, its
//! centring and the eigenpairs of the centred matrix, dense or iterative.

use crate::data::TrainingData;
use crate::decomposition::SolverReport;
use crate::decomposition::{Decomposition, Spectrum};
use crate::eigen::{dense_top, lanczos_top, IterOptions, TopEigen};
use crate::error::FitError;
use crate::kernel::{gram_matrix, sq_norms, KernelId, PANEL};
use crate::linalg::dot4;
use crate::params::{KernelPcaParams, ResolvedSolver, ValidKernelPcaParams};
use crate::symprod::sym_block_product;
use crate::warning::FitWarning;
use rayon::prelude::*;
use std::vec;
use std::vec::Vec;

/// The centring of the kernel matrix K (DESIGN.md section 1):
/// Kc = K - 1 r' - r 1' + g 1 1'.
struct Centring {
    /// Row means r (= column means, K is symmetric).
    r: Vec<f64>,
    /// Grand mean g.
    g: f64,
    /// The diagonal of Kc: Kc_jj = K_jj - 2 r_j + g.
    diag: Vec<f64>,
}

impl Centring {
    /// From the kernel matrix (column-major n x n, lower triangle) and its row sums.
    fn new(kmat: &[f64], row_sums: &[f64]) -> Self {
        let n = row_sums.len();
        let r: Vec<f64> = row_sums.iter().map(|s| s / n as f64).collect();
        let g = r.iter().sum::<f64>() / n as f64;
        let diag = (0..n).map(|j| (kmat[j * n + j] - 2.0 * r[j]) + g).collect();
        Centring { r, g, diag }
    }
}

/// Fits full kernel PCA to the training data `train` with the checked
/// parameters, by `solver`; the driver applies the shared post-processing.
///
/// Memory: one n x n f64 matrix plus O(n k). The kernel matrix is built once (its
/// lower triangle in parallel column panels, with its row sums) and handed to the
/// solver without a copy. The iterative solver only reads it: each block product
/// K X is centred afterwards in O(n) per column (Kc = K - 1 r' - r 1' + g 1 1'),
/// so Kc is never formed. The dense solver centres it in place, reduces it in
/// place and computes only the k wanted eigenvectors (see `eigen::dense_top`).
pub(crate) fn fit(
    params: &ValidKernelPcaParams,
    train: &TrainingData,
    solver: ResolvedSolver,
) -> Result<Decomposition, FitError> {
    let p = params.params();
    let (n, k) = (train.n, p.n_components);
    let sq = sq_norms(&train.z, train.d);
    let (kmat, row_sums) = gram_matrix(&train.kernel, &train.z, &sq, train.d)?;
    let centring = Centring::new(&kmat, &row_sums);
    let (eig, report) = solve(kmat, &centring, k, solver, p)?;
    let spectrum = Spectrum::check(eig.values, eig.all_values, k)?;
    let warnings = indefiniteness(&spectrum, train.kernel.kind, n)
        .into_iter()
        .collect();
    let (scores, comp) = scaled_vectors(&eig.vectors, spectrum.values());
    Ok(Decomposition {
        spectrum,
        scores,
        comp,
        self_terms: centring.diag,
        points: train.z.clone(),
        center: centring.r,
        weights: vec![1.0 / n as f64; n],
        s: centring.g,
        report,
        warnings,
    })
}

/// The top k eigenpairs of Kc by `solver`, consuming the kernel matrix.
fn solve(
    mut kmat: Vec<f64>,
    centring: &Centring,
    k: usize,
    solver: ResolvedSolver,
    p: &KernelPcaParams,
) -> Result<(TopEigen, SolverReport), FitError> {
    let n = centring.r.len();
    match solver {
        ResolvedSolver::Iterative => {
            let opts = IterOptions {
                tol: p.tol,
                max_restarts: p.max_iter,
            };
            // Kc is never formed: each product is K X, centred afterwards.
            let centred_product = |x: faer::MatRef<'_, f64>, mut y: faer::MatMut<'_, f64>| {
                sym_block_product(&kmat, n, x, y.as_mut());
                centre_product(&centring.r, centring.g, x, y);
            };
            let eig = lanczos_top(n, k, centred_product, opts)?;
            let report = SolverReport::Lanczos {
                matvecs: eig.matvecs,
                max_residual: eig.max_residual,
            };
            Ok((eig, report))
        }
        ResolvedSolver::Dense => {
            centre_in_place(&mut kmat, n, &centring.r, centring.g);
            let eig = dense_top(kmat, n, k)?;
            Ok((eig, SolverReport::Dense))
        }
    }
}

/// The warning about negative eigenvalues of Kc, if any: counted when the
/// solver computed every eigenvalue; for the sigmoid kernel under the iterative
/// solver, that they were not computed.
fn indefiniteness(spectrum: &Spectrum, kind: KernelId, n: usize) -> Option<FitWarning> {
    match spectrum.all() {
        Some(all) => {
            let negative: Vec<f64> = all
                .iter()
                .copied()
                .filter(|&v| v < -spectrum.threshold())
                .collect();
            let most_negative = negative.iter().copied().reduce(f64::min)?;
            Some(FitWarning::IndefiniteKernel {
                kernel: kind,
                negative: negative.len(),
                total: n,
                most_negative,
                largest: spectrum.largest(),
            })
        }
        None => (kind == KernelId::Sigmoid)
            .then_some(FitWarning::NegativeEigenvaluesNotComputed { kernel: kind }),
    }
}

/// Training scores y_l(x_j) = sqrt(mu_l) (u_l)_j and components
/// alpha_l = u_l / sqrt(mu_l), both n x k row-major, from the unit eigenvectors
/// (the columns of the column-major n x k `vectors`).
pub(crate) fn scaled_vectors(vectors: &[f64], values: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let k = values.len();
    let n = vectors.len() / k.max(1);
    let mut scores = vec![0.0; n * k];
    let mut comp = vec![0.0; n * k];
    for (l, (col, &mu)) in vectors.chunks_exact(n.max(1)).zip(values).enumerate() {
        let root = mu.sqrt();
        for (i, &u) in col.iter().enumerate() {
            scores[i * k + l] = u * root;
            comp[i * k + l] = u / root;
        }
    }
    (scores, comp)
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
