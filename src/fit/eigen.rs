//! Symmetric eigen solvers: dense (faer's tridiagonalisation and divide and
//! conquer, sorted here) and an iterative top-k solver (thick-restart Lanczos with
//! full reorthogonalisation).

use super::rng::SeededRng;
use super::FitError;
use nalgebra::{DMatrix, DMatrixView, DVector, SymmetricEigen};
use rand_core::SeedableRng;
use rayon::prelude::*;
use std::vec;
use std::vec::Vec;

/// Seed of the Lanczos starting vector (and of the random vectors that replace an
/// exhausted Krylov space), so that fits are reproducible.
const LANCZOS_SEED: u64 = 0x6B70_6361_4C61_6E63;

/// The top eigenpairs of a symmetric matrix, largest eigenvalue first.
#[derive(Debug)]
pub(crate) struct TopEigen {
    /// The k largest eigenvalues, descending.
    pub values: Vec<f64>,
    /// Unit eigenvectors as the columns of an n x k matrix (signs not yet fixed).
    pub vectors: DMatrix<f64>,
    /// Every eigenvalue, descending, when the solver computed them all (dense).
    pub all_values: Option<Vec<f64>>,
    /// Matrix-vector products done (iterative) or 0 (dense).
    pub matvecs: usize,
    /// Largest relative residual ‖K v - mu v‖ / ‖K‖ of the kept pairs (iterative), or 0.
    pub max_residual: f64,
}

/// Indices that sort `values` descending (NaN last; stable).
pub(crate) fn descending_order(values: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (values.get(a).copied(), values.get(b).copied());
        let (x, y) = (x.unwrap_or(f64::NAN), y.unwrap_or(f64::NAN));
        y.total_cmp(&x)
    });
    order
}

/// scikit-learn's sign rule (`svd_flip`, decision on u): each column is multiplied
/// by the sign of its entry of largest absolute value (the first such entry on a
/// tie), so that entry is positive. Returns the +1/-1 factor of each column.
pub(crate) fn sign_flip_columns(m: &mut DMatrix<f64>) -> Vec<f64> {
    let mut signs = Vec::with_capacity(m.ncols());
    for mut col in m.column_iter_mut() {
        let mut best = 0.0f64;
        let mut sign = 1.0;
        for &v in col.iter() {
            if v.abs() > best {
                best = v.abs();
                sign = if v < 0.0 { -1.0 } else { 1.0 };
            }
        }
        if sign < 0.0 {
            col.neg_mut();
        }
        signs.push(sign);
    }
    signs
}

/// Dense symmetric eigendecomposition of `matrix` (consumed; only its lower
/// triangle is read), top `k` pairs, sorted descending.
///
/// faer's building blocks, run so that no extra n x n copy of `matrix` is made:
/// 1. Householder tridiagonalisation of `matrix` in place (its lower triangle then
///    holds the reflectors; a `bs x (n-1)` block of reflector factors beside it);
/// 2. divide-and-conquer eigendecomposition of the tridiagonal matrix (every
///    eigenvalue; the n x n eigenvector matrix of the tridiagonal problem);
/// 3. only the `k` kept eigenvectors are taken back through the reflectors.
///
/// Memory beyond `matrix` itself: the n x n tridiagonal eigenvector matrix and
/// faer's divide-and-conquer workspace (two n x n scratch matrices and O(n)
/// vectors) while step 2 runs, then n x k.
pub(crate) fn dense_top(matrix: DMatrix<f64>, k: usize) -> Result<TopEigen, FitError> {
    use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
    use faer::linalg::evd::{self, tridiag, SelfAdjointEvdParams};
    use faer::linalg::householder;
    use faer::linalg::temp_mat_scratch;
    use faer::reborrow::{IntoConst, ReborrowMut};
    use faer::{diag::Diag, Mat, MatMut, Par, Spec};

    let not_converged = || FitError::NotConverged {
        solver: "dense",
        iterations: 0,
        residual: f64::NAN,
    };
    let n = matrix.nrows();
    let k = k.min(n);
    if n == 0 {
        return Ok(TopEigen {
            values: Vec::new(),
            vectors: DMatrix::zeros(0, 0),
            all_values: Some(Vec::new()),
            matvecs: 0,
            max_residual: 0.0,
        });
    }
    let par = if rayon::current_num_threads() > 1 {
        Par::rayon(0)
    } else {
        Par::Seq
    };
    let params: Spec<SelfAdjointEvdParams, f64> = Spec::default();
    let mut matrix = matrix;
    let mut a = MatMut::from_column_major_slice_mut(matrix.as_mut_slice(), n, n);

    // 1. Tridiagonalise in place.
    let bs = faer::linalg::qr::no_pivoting::factor::recommended_block_size::<f64>(n, n);
    let mut reflectors = Mat::<f64>::zeros(bs, n - 1);
    {
        let req = tridiag::tridiag_in_place_scratch::<f64>(n, par, params.tridiag.into());
        let mut buf = MemBuffer::new(req);
        tridiag::tridiag_in_place(
            a.rb_mut(),
            reflectors.as_mut(),
            par,
            MemStack::new(&mut buf),
            params.tridiag.into(),
        );
    }
    let a = a.into_const();
    let diag = a.diagonal();
    let subdiag = a.submatrix(1, 0, n - 1, n - 1).diagonal();

    // 2. Every eigenpair of the tridiagonal matrix (ascending).
    let mut s = Diag::<f64>::zeros(n);
    let mut u = Mat::<f64>::zeros(n, n);
    {
        // tridiagonal_self_adjoint_evd: two n-vectors, then divide and conquer
        // (four usize n-vectors, six f64 n-vectors, two n x n matrices); padded.
        let req = StackReq::all_of(&[
            temp_mat_scratch::<f64>(n, 1).array(8),
            StackReq::new::<usize>(n).array(4),
            temp_mat_scratch::<f64>(n, n).array(2),
            temp_mat_scratch::<f64>(n, 4),
        ]);
        let mut buf = MemBuffer::new(req);
        evd::tridiagonal_self_adjoint_evd(
            diag,
            subdiag,
            s.as_mut(),
            Some(u.as_mut()),
            par,
            MemStack::new(&mut buf),
            params,
        )
        .map_err(|_| not_converged())?;
    }
    let values: Vec<f64> = s.column_vector().iter().copied().collect();
    if values.iter().any(|v| !v.is_finite()) {
        return Err(not_converged());
    }
    let order = descending_order(&values);
    let all_values: Vec<f64> = order
        .iter()
        .filter_map(|&i| values.get(i).copied())
        .collect();

    // 3. The kept eigenvectors of the tridiagonal matrix, back through the reflectors.
    let mut vectors = DMatrix::<f64>::zeros(n, k);
    let mut kept = MatMut::from_column_major_slice_mut(vectors.as_mut_slice(), n, k);
    for (dst, &src) in order.iter().take(k).enumerate() {
        kept.rb_mut().col_mut(dst).copy_from(u.as_ref().col(src));
    }
    drop(u);
    if n > 1 {
        let req = householder::apply_block_householder_sequence_on_the_left_in_place_scratch::<f64>(
            n - 1,
            bs,
            k,
        );
        let mut buf = MemBuffer::new(req);
        householder::apply_block_householder_sequence_on_the_left_in_place_with_conj(
            a.submatrix(1, 0, n - 1, n - 1),
            reflectors.as_ref(),
            faer::Conj::No,
            kept.subrows_mut(1, n - 1),
            par,
            MemStack::new(&mut buf),
        );
    }
    Ok(TopEigen {
        values: all_values.iter().take(k).copied().collect(),
        vectors,
        all_values: Some(all_values),
        matvecs: 0,
        max_residual: 0.0,
    })
}

/// h[(i, j)] = v when in range (it always is here; no panicking index).
fn set(h: &mut DMatrix<f64>, i: usize, j: usize, v: f64) {
    if let Some(slot) = h.get_mut((i, j)) {
        *slot = v;
    }
}

/// Options of the iterative solver.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IterOptions {
    /// Relative residual tolerance.
    pub tol: f64,
    /// Maximum number of restarts.
    pub max_restarts: usize,
}

/// A random unit vector orthogonal to the first `cols` columns of the n x p basis
/// in `basis` (column-major), written into column `cols`.
fn random_orthogonal(basis: &mut [f64], n: usize, cols: usize, rng: &mut SeededRng) {
    for _attempt in 0..8 {
        let mut w = DVector::from_fn(n, |_, _| rng.next_f64() - 0.5);
        if cols > 0 {
            if let Some(prev) = basis.get(..n * cols) {
                let view = DMatrixView::from_slice(prev, n, cols);
                for _pass in 0..2 {
                    let c = view.tr_mul(&w);
                    w.gemv(-1.0, &view, &c, 1.0);
                }
            }
        }
        let norm = w.norm();
        if norm > 1e-8 {
            w /= norm;
            if let Some(dst) = basis.get_mut(n * cols..n * (cols + 1)) {
                dst.copy_from_slice(w.as_slice());
            }
            return;
        }
    }
}

/// The `k` largest eigenpairs of the symmetric n x n operator `op` (y = K x) by
/// thick-restart Lanczos (Wu and Simon 2000) with full reorthogonalisation.
///
/// The Krylov basis has p = min(n, max(2k + 16, k + 32)) vectors. Each new vector
/// is orthogonalised against the whole basis twice (classical Gram-Schmidt applied
/// twice), which keeps the basis orthonormal to working precision, and the
/// projected matrix H = V'KV is built from those coefficients. After each cycle the
/// Rayleigh-Ritz pairs (theta_i, V y_i) of H are formed; the q = k + (p - k)/2 with
/// the largest theta are kept and the expansion restarts from the residual vector.
/// When the Krylov space becomes invariant, it continues with a random vector
/// orthogonal to the basis (so multiple and zero eigenvalues are found too).
///
/// Convergence test: ‖K v_i - theta_i v_i‖ <= tol * max_j |theta_j| for every kept
/// pair i < k (max_j |theta_j| estimates ‖K‖₂ = |mu_1| for a positive semi-definite
/// K). It is checked on the Lanczos estimate ‖f‖ |e_p' y_i| and then confirmed with
/// explicitly computed residuals (k extra products).
pub(crate) fn lanczos_top<F>(
    n: usize,
    k: usize,
    op: F,
    opts: IterOptions,
) -> Result<TopEigen, FitError>
where
    F: Fn(&[f64], &mut [f64]),
{
    let k = k.min(n);
    let p = n.min((2 * k + 16).max(k + 32));
    let keep = (k + (p - k) / 2).min(p.saturating_sub(1)).max(k);
    let mut rng = SeededRng::seed_from_u64(LANCZOS_SEED);
    let mut basis = vec![0.0; n * p];
    let mut h = DMatrix::<f64>::zeros(p, p);
    let mut w = DVector::<f64>::zeros(n);
    let mut residual_vec = DVector::<f64>::zeros(n);
    let mut beta_last;
    let mut matvecs = 0usize;
    let mut start = 0usize;
    let mut worst = f64::INFINITY;
    random_orthogonal(&mut basis, n, 0, &mut rng);
    let mut norm_estimate = 0.0f64;

    for restart in 0..opts.max_restarts.max(1) {
        beta_last = 0.0;
        for j in start..p {
            {
                let vj = basis.get(n * j..n * (j + 1)).unwrap_or(&[]);
                op(vj, w.as_mut_slice());
                matvecs += 1;
            }
            norm_estimate = norm_estimate.max(w.norm());
            let prev = basis.get(..n * (j + 1)).unwrap_or(&[]);
            let view = DMatrixView::from_slice(prev, n, j + 1);
            let mut coeffs = DVector::<f64>::zeros(j + 1);
            for _pass in 0..2 {
                let c = view.tr_mul(&w);
                w.gemv(-1.0, &view, &c, 1.0);
                coeffs += c;
            }
            // Column j of H = V'KV: the couplings to the kept Ritz vectors (rows
            // below `start`) and the Lanczos coefficients.
            for (i, &c) in coeffs.iter().enumerate() {
                set(&mut h, i, j, c);
                set(&mut h, j, i, c);
            }
            let beta = w.norm();
            if j + 1 < p {
                if beta > 1e3 * f64::EPSILON * norm_estimate.max(f64::MIN_POSITIVE) {
                    if let Some(dst) = basis.get_mut(n * (j + 1)..n * (j + 2)) {
                        for (d, &v) in dst.iter_mut().zip(w.iter()) {
                            *d = v / beta;
                        }
                    }
                } else {
                    random_orthogonal(&mut basis, n, j + 1, &mut rng);
                }
            } else {
                beta_last = beta;
                residual_vec.copy_from(&w);
            }
        }

        // Rayleigh-Ritz on the projected matrix.
        let eig =
            SymmetricEigen::try_new(h.clone(), f64::EPSILON, 0).ok_or(FitError::NotConverged {
                solver: "lanczos (projected problem)",
                iterations: restart,
                residual: f64::NAN,
            })?;
        let order = descending_order(eig.eigenvalues.as_slice());
        let theta: Vec<f64> = order
            .iter()
            .filter_map(|&i| eig.eigenvalues.get(i).copied())
            .collect();
        let y = eig.eigenvectors.select_columns(&order);
        let scale = theta
            .iter()
            .fold(0.0f64, |a, t| a.max(t.abs()))
            .max(f64::MIN_POSITIVE);
        let estimate = (0..k)
            .map(|i| beta_last * y.get((p - 1, i)).map_or(f64::INFINITY, |v| v.abs()) / scale)
            .fold(0.0f64, f64::max);
        let all = DMatrixView::from_slice(&basis, n, p);

        if estimate <= opts.tol || p == n {
            let y_k = y.columns(0, k);
            let vectors = all * y_k;
            // Confirm with explicit residuals.
            let mut true_worst = 0.0f64;
            let mut kv = vec![0.0; n];
            for (i, col) in vectors.column_iter().enumerate() {
                let t = theta.get(i).copied().unwrap_or(0.0);
                op(col.as_slice(), &mut kv);
                matvecs += 1;
                let r: f64 = kv
                    .iter()
                    .zip(col.iter())
                    .map(|(a, v)| (a - t * v).powi(2))
                    .sum::<f64>()
                    .sqrt();
                true_worst = true_worst.max(r / scale);
            }
            worst = true_worst;
            if true_worst <= opts.tol || (p == n && true_worst <= 1e3 * opts.tol.max(f64::EPSILON))
            {
                return Ok(TopEigen {
                    values: theta.iter().take(k).copied().collect(),
                    vectors,
                    all_values: None,
                    matvecs,
                    max_residual: true_worst,
                });
            }
        } else {
            worst = estimate;
        }

        // Thick restart: keep the `keep` leading Ritz vectors, continue from the residual.
        let ritz = all * y.columns(0, keep);
        if let Some(dst) = basis.get_mut(..n * keep) {
            dst.copy_from_slice(ritz.as_slice());
        }
        h.fill(0.0);
        for (i, &t) in theta.iter().take(keep).enumerate() {
            set(&mut h, i, i, t);
        }
        if beta_last > 1e3 * f64::EPSILON * norm_estimate.max(f64::MIN_POSITIVE) {
            // Reorthogonalise the residual against the new basis too (it is
            // orthogonal in exact arithmetic).
            let prev = basis.get(..n * keep).unwrap_or(&[]);
            let view = DMatrixView::from_slice(prev, n, keep);
            let c = view.tr_mul(&residual_vec);
            residual_vec.gemv(-1.0, &view, &c, 1.0);
            let norm = residual_vec.norm();
            if let Some(dst) = basis.get_mut(n * keep..n * (keep + 1)) {
                for (d, &v) in dst.iter_mut().zip(residual_vec.iter()) {
                    *d = v / norm;
                }
            }
        } else {
            random_orthogonal(&mut basis, n, keep, &mut rng);
        }
        start = keep;
    }
    Err(FitError::NotConverged {
        solver: "lanczos",
        iterations: opts.max_restarts,
        residual: worst,
    })
}

/// y = K x for a symmetric matrix stored column-major (so row i is column i),
/// parallel over rows.
pub(crate) fn sym_matvec(matrix: &DMatrix<f64>, x: &[f64], y: &mut [f64]) {
    let n = matrix.nrows();
    y.par_iter_mut()
        .zip(matrix.as_slice().par_chunks(n.max(1)))
        .for_each(|(yi, col)| {
            *yi = col.iter().zip(x).map(|(a, b)| a * b).sum();
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_matrix(n: usize) -> DMatrix<f64> {
        let mut rng = SeededRng::seed_from_u64(3);
        let b = DMatrix::from_fn(n, n, |_, _| rng.next_f64() - 0.5);
        // Decaying spectrum, positive semi-definite.
        let d = DMatrix::from_diagonal(&DVector::from_fn(n, |i, _| 0.8f64.powi(i as i32)));
        let q = b.qr().q();
        &q * d * q.transpose()
    }

    #[test]
    fn lanczos_matches_dense_on_a_decaying_spectrum() {
        let n = 120;
        let k = 5;
        let m = test_matrix(n);
        let dense = dense_top(m.clone(), k).unwrap();
        let it = lanczos_top(
            n,
            k,
            |x, y| sym_matvec(&m, x, y),
            IterOptions {
                tol: 1e-12,
                max_restarts: 200,
            },
        )
        .unwrap();
        for i in 0..k {
            assert!((dense.values[i] - it.values[i]).abs() < 1e-12, "{i}");
            let dot = dense.vectors.column(i).dot(&it.vectors.column(i)).abs();
            assert!((dot - 1.0).abs() < 1e-10, "{i}: {dot}");
        }
    }

    #[test]
    fn low_rank_and_small_n_are_handled() {
        // Rank-2 matrix: the Krylov space becomes invariant; random restarts continue.
        let n = 50;
        let u = DMatrix::from_fn(n, 2, |i, j| ((i * (j + 2)) as f64).sin());
        let m = &u * u.transpose();
        let it = lanczos_top(
            n,
            4,
            |x, y| sym_matvec(&m, x, y),
            IterOptions {
                tol: 1e-12,
                max_restarts: 100,
            },
        )
        .unwrap();
        let dense = dense_top(m.clone(), 4).unwrap();
        for i in 0..4 {
            assert!((dense.values[i] - it.values[i]).abs() < 1e-10 * dense.values[0]);
        }
        // n smaller than the basis: one exact cycle.
        let small = test_matrix(10);
        let it = lanczos_top(
            10,
            3,
            |x, y| sym_matvec(&small, x, y),
            IterOptions {
                tol: 1e-12,
                max_restarts: 5,
            },
        )
        .unwrap();
        let dense = dense_top(small, 3).unwrap();
        for i in 0..3 {
            assert!((dense.values[i] - it.values[i]).abs() < 1e-12);
        }
    }

    #[test]
    fn sign_rule_makes_largest_entry_positive() {
        let mut m = DMatrix::from_column_slice(3, 2, &[0.1, -0.9, 0.3, 0.5, 0.2, -0.5]);
        let s = sign_flip_columns(&mut m);
        assert_eq!(s, vec![-1.0, 1.0]);
        assert_eq!(m[(1, 0)], 0.9);
        assert_eq!(m[(0, 1)], 0.5);
    }
}
