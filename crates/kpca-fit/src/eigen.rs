//! Symmetric eigen solvers: dense (faer's tridiagonalisation, implicit QL for the
//! eigenvalues, inverse iteration for the k wanted eigenvectors) and an iterative
//! top-k solver (thick-restart block Lanczos with full reorthogonalisation).

use super::rng::SeededRng;
use super::FitError;
use nalgebra::{DMatrix, SymmetricEigen};
use rand_core::SeedableRng;
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
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
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

/// Every eigenvalue of the symmetric tridiagonal matrix with diagonal `d` and
/// off-diagonal `e` (`e[i]` couples rows i and i + 1; `e.len() == d.len()`, the last
/// entry is ignored), by the implicit QL algorithm with Wilkinson shifts (no
/// eigenvectors: O(n²) time, no memory beyond `d` and `e`). `d` is overwritten
/// with the eigenvalues (unsorted), `e` is destroyed. An off-diagonal entry counts
/// as zero when |e_m| <= eps ‖T‖ (‖T‖ = max_i |d_i| + |e_i|, so every eigenvalue is
/// accurate to a few eps ‖T‖, as a dense solver's). Err when an eigenvalue needs
/// more than 60 iterations or T is not finite.
fn tridiag_eigenvalues(d: &mut [f64], e: &mut [f64]) -> Result<(), ()> {
    let n = d.len();
    if n == 0 {
        return Ok(());
    }
    e[n - 1] = 0.0;
    let norm = (0..n)
        .map(|i| d[i].abs() + e[i].abs())
        .fold(0.0f64, f64::max);
    if !norm.is_finite() {
        return Err(());
    }
    for l in 0..n {
        let mut iter = 0;
        loop {
            let mut m = l;
            while m + 1 < n {
                if e[m].abs() <= f64::EPSILON * norm {
                    break;
                }
                m += 1;
            }
            if m == l {
                break;
            }
            iter += 1;
            if iter > 60 {
                return Err(());
            }
            let el = e[l];
            let mut g = (d[l + 1] - d[l]) / (2.0 * el);
            let mut r = g.hypot(1.0);
            g = d[m] - d[l] + el / (g + r.copysign(g));
            let (mut s, mut c, mut p) = (1.0f64, 1.0f64, 0.0f64);
            let mut i = m;
            let mut deflated = false;
            while i > l {
                i -= 1;
                let f = s * e[i];
                let b = c * e[i];
                r = f.hypot(g);
                e[i + 1] = r;
                if r == 0.0 {
                    // Underflow: the matrix splits here; start over.
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    deflated = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2.0 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
            }
            if deflated {
                continue;
            }
            d[l] -= p;
            e[l] = g;
            e[m] = 0.0;
        }
    }
    Ok(())
}

/// One solve (T - lambda I) x = b for the symmetric tridiagonal T (diagonal `d`,
/// off-diagonal `e`) by Gaussian elimination with partial pivoting; `x` holds b on
/// entry and the solution on exit. Zero pivots are replaced by `tiny` (inverse
/// iteration wants the nearly singular solve).
fn tridiag_shifted_solve(d: &[f64], e: &[f64], lambda: f64, tiny: f64, x: &mut [f64]) {
    let n = d.len();
    if n == 0 {
        return;
    }
    // Upper factor rows (u0 on the diagonal, u1 and u2 above), multipliers, swaps.
    let mut u0 = vec![0.0; n];
    let mut u1 = vec![0.0; n];
    let mut u2 = vec![0.0; n];
    let mut mult = vec![0.0; n];
    let mut swap = vec![false; n];
    let nz = |v: f64| {
        if v.abs() < tiny {
            tiny.copysign(v)
        } else {
            v
        }
    };
    // The row being eliminated: entries at columns i, i + 1, i + 2.
    let (mut r0, mut r1, mut r2) = (d[0] - lambda, e[0], 0.0);
    for i in 0..n - 1 {
        let sub = e[i];
        let next_diag = d[i + 1] - lambda;
        let next_sup = if i + 2 < n { e[i + 1] } else { 0.0 };
        if r0.abs() >= sub.abs() {
            let p = nz(r0);
            let mu = sub / p;
            u0[i] = p;
            u1[i] = r1;
            u2[i] = r2;
            mult[i] = mu;
            (r0, r1, r2) = (next_diag - mu * r1, next_sup - mu * r2, 0.0);
        } else {
            let mu = r0 / sub;
            u0[i] = sub;
            u1[i] = next_diag;
            u2[i] = next_sup;
            mult[i] = mu;
            swap[i] = true;
            (r0, r1, r2) = (r1 - mu * next_diag, r2 - mu * next_sup, 0.0);
        }
    }
    u0[n - 1] = nz(r0);
    let _ = (r1, r2);
    // Forward: apply the row swaps and multipliers to b.
    for i in 0..n - 1 {
        let (mut bi, mut bj) = (x[i], x[i + 1]);
        if swap[i] {
            core::mem::swap(&mut bi, &mut bj);
        }
        bj -= mult[i] * bi;
        x[i] = bi;
        x[i + 1] = bj;
    }
    // Back substitution.
    for i in (0..n).rev() {
        // Row i of the upper factor reaches columns i + 1 and i + 2 (where they exist).
        let mut v = x[i];
        if i + 1 < n {
            v -= u1[i] * x[i + 1];
        }
        if i + 2 < n {
            v -= u2[i] * x[i + 2];
        }
        x[i] = v / u0[i];
    }
}

/// The eigenvectors of the symmetric tridiagonal T (diagonal `d`, off-diagonal
/// `e`) for the eigenvalues `lambdas` (accurate ones, largest first), by inverse
/// iteration: three solves from a seeded random start, each followed by
/// Gram-Schmidt (twice) against the vectors already found for eigenvalues within
/// 1e-3 ‖T‖ (so clustered and repeated eigenvalues get orthogonal vectors), then
/// normalisation. Returns them as the columns of an n x k column-major buffer.
fn tridiag_eigenvectors(d: &[f64], e: &[f64], lambdas: &[f64]) -> Vec<f64> {
    let n = d.len();
    let k = lambdas.len();
    let norm_t = (0..n)
        .map(|i| d[i].abs() + e[i].abs() + if i > 0 { e[i - 1].abs() } else { 0.0 })
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let tiny = f64::EPSILON * norm_t;
    let cluster = 1e-3 * norm_t;
    let mut rng = SeededRng::seed_from_u64(LANCZOS_SEED ^ 0x5354_4549_4e00);
    let mut out = vec![0.0; n * k];
    for (j, &lambda) in lambdas.iter().enumerate() {
        let (done, rest) = out.split_at_mut(j * n);
        let x = &mut rest[..n];
        for v in x.iter_mut() {
            *v = rng.next_f64() - 0.5;
        }
        let close: Vec<usize> = (0..j)
            .filter(|&i| (lambdas[i] - lambda).abs() <= cluster)
            .collect();
        for _iteration in 0..3 {
            let scale = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            if scale > 0.0 {
                x.iter_mut().for_each(|v| *v /= scale);
            }
            tridiag_shifted_solve(d, e, lambda, tiny, x);
            for _pass in 0..2 {
                for &i in &close {
                    let q = &done[i * n..(i + 1) * n];
                    let dot: f64 = q.iter().zip(x.iter()).map(|(a, b)| a * b).sum();
                    x.iter_mut().zip(q).for_each(|(v, qv)| *v -= dot * qv);
                }
            }
            let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm > 0.0 && norm.is_finite() {
                x.iter_mut().for_each(|v| *v /= norm);
            } else {
                for v in x.iter_mut() {
                    *v = rng.next_f64() - 0.5;
                }
            }
        }
    }
    out
}

/// Dense symmetric eigensolver of `matrix` (consumed; only its lower triangle is
/// read): every eigenvalue and the eigenvectors of the top `k`, sorted descending.
///
/// 1. faer's blocked Householder tridiagonalisation of `matrix` in place (its
///    lower triangle then holds the reflectors, a `bs x (n-1)` block of reflector
///    factors beside it);
/// 2. every eigenvalue of the tridiagonal matrix by implicit QL without
///    eigenvectors (O(n) memory);
/// 3. the k wanted eigenvectors of the tridiagonal matrix by inverse iteration
///    (O(n k)), taken back through the reflectors with faer.
///
/// Memory beyond `matrix` itself: O(n k) plus the `bs x n` reflector factors and
/// faer's workspaces (sized by faer's own scratch functions). No second n x n
/// matrix is ever allocated (faer's own eigendecomposition needs three: a copy,
/// the eigenvectors and a divide-and-conquer workspace).
pub(crate) fn dense_top(matrix: DMatrix<f64>, k: usize) -> Result<TopEigen, FitError> {
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::linalg::evd::{tridiag, SelfAdjointEvdParams};
    use faer::linalg::householder;
    use faer::reborrow::{IntoConst, ReborrowMut};
    use faer::{Mat, MatMut, Par, Spec};

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
    let diag: Vec<f64> = a.diagonal().column_vector().iter().copied().collect();
    let mut off: Vec<f64> = a
        .submatrix(1, 0, n - 1, n - 1)
        .diagonal()
        .column_vector()
        .iter()
        .copied()
        .collect();
    off.push(0.0);

    // 2. Every eigenvalue.
    let mut values = diag.clone();
    let mut scratch_e = off.clone();
    tridiag_eigenvalues(&mut values, &mut scratch_e).map_err(|_| not_converged())?;
    drop(scratch_e);
    if values.iter().any(|v| !v.is_finite()) {
        return Err(not_converged());
    }
    let order = descending_order(&values);
    let all_values: Vec<f64> = order.iter().map(|&i| values[i]).collect();
    let top: Vec<f64> = all_values.iter().take(k).copied().collect();

    // 3. The kept eigenvectors of the tridiagonal matrix, back through the reflectors.
    let mut vectors = DMatrix::from_vec(n, k, tridiag_eigenvectors(&diag, &off, &top));
    let mut kept = MatMut::from_column_major_slice_mut(vectors.as_mut_slice(), n, k);
    if n > 1 && k > 0 {
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
            kept.rb_mut().subrows_mut(1, n - 1),
            par,
            MemStack::new(&mut buf),
        );
    }
    Ok(TopEigen {
        values: top,
        vectors,
        all_values: Some(all_values),
        matvecs: 0,
        max_residual: 0.0,
    })
}

/// Every eigenpair of a small symmetric matrix (the m x m matrices of the Nyström
/// fit), by faer's self-adjoint eigendecomposition with the workspace from faer's
/// `self_adjoint_evd_scratch`. Returns (eigenvalues ascending, eigenvectors as
/// columns). Only the lower triangle of `matrix` is read.
pub(crate) fn full_evd(matrix: &DMatrix<f64>) -> Result<(Vec<f64>, DMatrix<f64>), FitError> {
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::linalg::evd::{self, ComputeEigenvectors, SelfAdjointEvdParams};
    use faer::{diag::Diag, MatMut, MatRef, Par, Spec};
    let n = matrix.nrows();
    let par = if rayon::current_num_threads() > 1 {
        Par::rayon(0)
    } else {
        Par::Seq
    };
    let params: Spec<SelfAdjointEvdParams, f64> = Spec::default();
    let mut s = Diag::<f64>::zeros(n);
    let mut u = DMatrix::<f64>::zeros(n, n);
    if n == 0 {
        return Ok((Vec::new(), u));
    }
    let req = evd::self_adjoint_evd_scratch::<f64>(n, ComputeEigenvectors::Yes, par, params);
    let mut buf = MemBuffer::new(req);
    evd::self_adjoint_evd(
        MatRef::from_column_major_slice(matrix.as_slice(), n, n),
        s.as_mut(),
        Some(MatMut::from_column_major_slice_mut(u.as_mut_slice(), n, n)),
        par,
        MemStack::new(&mut buf),
        params,
    )
    .map_err(|_| FitError::NotConverged {
        solver: "dense (m x m)",
        iterations: 0,
        residual: f64::NAN,
    })?;
    Ok((s.column_vector().iter().copied().collect(), u))
}

/// A residual ‖K x - theta x‖ at or below this times |theta_1| always passes the
/// iterative solver's convergence test (see [`lanczos_top`]).
const RESIDUAL_FLOOR: f64 = 1e-12;

/// Options of the iterative solver.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IterOptions {
    /// Bound on the estimated eigenvector error ‖r_i‖ / gap_i (see [`lanczos_top`]).
    pub tol: f64,
    /// Maximum number of passes (block products with the matrix).
    pub max_restarts: usize,
}

/// x'y over the common length, in four interleaved partial sums (so that it
/// vectorises; the rounding differs from a left-to-right sum by a few ulps).
pub(crate) fn dot4(x: &[f64], y: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let mut xs = x.chunks_exact(4);
    let mut ys = y.chunks_exact(4);
    for (a, b) in (&mut xs).zip(&mut ys) {
        for ((s, p), q) in acc.iter_mut().zip(a).zip(b) {
            *s += p * q;
        }
    }
    let tail: f64 = xs
        .remainder()
        .iter()
        .zip(ys.remainder())
        .map(|(p, q)| p * q)
        .sum();
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + tail
}

/// Fills column `j` of the n-row column-major `buf` with a random vector.
fn random_column(buf: &mut [f64], n: usize, j: usize, rng: &mut SeededRng) {
    for v in &mut buf[j * n..(j + 1) * n] {
        *v = rng.next_f64() - 0.5;
    }
}

/// The parallelism of the big products.
fn par() -> faer::Par {
    if rayon::current_num_threads() > 1 {
        faer::Par::rayon(0)
    } else {
        faer::Par::Seq
    }
}

/// Orthonormalises the `bw` columns of `block` (n x bw, column-major) against the
/// first `c` columns of the orthonormal `basis` and among themselves (classical
/// Gram-Schmidt against the basis, twice; then column by column, twice). A column
/// that loses more than all but 1e-8 of its norm (the space is nearly invariant) is
/// replaced by a random vector and orthonormalised again.
fn orthonormalize_block(
    basis: &[f64],
    c: usize,
    block: &mut [f64],
    n: usize,
    bw: usize,
    rng: &mut SeededRng,
) {
    use faer::reborrow::ReborrowMut;
    use faer::{Accum, MatMut, MatRef};
    let v = MatRef::from_column_major_slice(&basis[..n * c], n, c);
    let project_out = |block: &mut [f64]| {
        if c == 0 {
            return;
        }
        let mut coeff = vec![0.0; c * bw];
        for _pass in 0..2 {
            let b = MatRef::from_column_major_slice(&block[..], n, bw);
            let mut cm = MatMut::from_column_major_slice_mut(&mut coeff, c, bw);
            faer::linalg::matmul::matmul(cm.rb_mut(), Accum::Replace, v.transpose(), b, 1.0, par());
            let mut bm = MatMut::from_column_major_slice_mut(&mut block[..], n, bw);
            faer::linalg::matmul::matmul(
                bm.rb_mut(),
                Accum::Add,
                v,
                MatRef::from_column_major_slice(&coeff, c, bw),
                -1.0,
                par(),
            );
        }
    };
    project_out(block);
    for j in 0..bw {
        for attempt in 0..4 {
            let (prev, rest) = block.split_at_mut(j * n);
            let x = &mut rest[..n];
            let before = dot4(x, x).sqrt();
            for _pass in 0..2 {
                for q in prev.chunks_exact(n) {
                    let dot = dot4(q, x);
                    x.iter_mut().zip(q).for_each(|(a, b)| *a -= dot * b);
                }
            }
            let norm = dot4(x, x).sqrt();
            if norm > 1e-8 * before && norm > 0.0 && norm.is_finite() {
                x.iter_mut().for_each(|a| *a /= norm);
                break;
            }
            // Nearly dependent: a random replacement, made orthogonal to the basis.
            random_column(block, n, j, rng);
            if c > 0 && attempt < 3 {
                let col = &mut block[j * n..(j + 1) * n];
                let mut coeff = vec![0.0; c];
                for _pass in 0..2 {
                    let b = MatRef::from_column_major_slice(&col[..], n, 1);
                    let mut cm = MatMut::from_column_major_slice_mut(&mut coeff, c, 1);
                    faer::linalg::matmul::matmul(
                        cm.rb_mut(),
                        Accum::Replace,
                        v.transpose(),
                        b,
                        1.0,
                        par(),
                    );
                    let mut bm = MatMut::from_column_major_slice_mut(&mut col[..], n, 1);
                    faer::linalg::matmul::matmul(
                        bm.rb_mut(),
                        Accum::Add,
                        v,
                        MatRef::from_column_major_slice(&coeff, c, 1),
                        -1.0,
                        par(),
                    );
                }
            }
        }
    }
}

/// dst (n x r) = src (n x c) * y (c x r), all column-major.
fn times(src: &[f64], n: usize, c: usize, y: &[f64], r: usize, dst: &mut [f64]) {
    use faer::{Accum, MatMut, MatRef};
    faer::linalg::matmul::matmul(
        MatMut::from_column_major_slice_mut(dst, n, r),
        Accum::Replace,
        MatRef::from_column_major_slice(&src[..n * c], n, c),
        MatRef::from_column_major_slice(y, c, r),
        1.0,
        par(),
    );
}

/// The `k` largest eigenpairs of the symmetric n x n operator `op` (Y = K X for a
/// block of columns X) by thick-restart block Lanczos with full
/// reorthogonalisation and Rayleigh-Ritz at every pass.
///
/// The search space V (at most `cap` = min(n, 8b) orthonormal columns, block size
/// b = min(n, max(k, 8))) is kept together with K V and the projected matrix
/// H = V'KV, so each pass costs one product of the matrix with a block of b
/// columns (one read of the lower triangle for b vectors; a wider block converges
/// in slightly fewer passes but costs more flops per pass: measured on the
/// benchmark data, b = k = 8 needs 160 products at n = 8000 against 296 for
/// b = k + 8 and is about 20% faster) plus O(n cap (k + b)) for the new columns of
/// H, the Ritz vectors and the reorthogonalisation. Each pass: Rayleigh-Ritz on H
/// gives Ritz pairs (theta_i, x_i = V y_i) with residuals
/// r_i = (KV) y_i - theta_i x_i for the k + b leading pairs; the residuals of the
/// first b of them that have not converged (by the test below; pairs past the
/// k-th always count as not converged), orthonormalised against V, are the next
/// block. Until some pair converges this is block Lanczos; afterwards the block
/// reaches past the k-th eigenvalue instead of repeating converged directions.
/// When V is full, it is cut back to its `cap / 2` (at least k + b) leading Ritz
/// vectors (thick restart: K V is transformed with them and H becomes
/// diag(theta), no product needed); cutting back to `cap - b` restarts at every
/// pass for the same number of products (measured: 168 at n = 4000) at twice the
/// cost in Ritz vectors.
///
/// Convergence test, for every kept pair i < k:
///
/// ‖K x_i - theta_i x_i‖ <= max(tol * gap_i, 1e-12 * max_j |theta_j|),
///
/// gap_i = distance from theta_i to the nearest other Ritz value (max_j |theta_j|
/// estimates ‖K‖₂ = |mu_1| for a positive semi-definite K). ‖r_i‖ / gap_i bounds
/// the sine of the angle between x_i and its eigenvector (Davis-Kahan, with the
/// Ritz values standing in for the eigenvalues) and the eigenvalue error is at most
/// ‖r_i‖² / gap_i, so `tol` bounds the error of each eigenvector (and of each
/// column of scores relative to its 2-norm sqrt(mu_i)). The second term
/// ([`RESIDUAL_FLOOR`], the rounding level of the products) accepts pairs whose
/// residual cannot usefully shrink further: those of a cluster with gaps below
/// 1e-12 |mu_1| / tol, whose individual vectors no solver determines better.
/// Checked on the residuals above and then confirmed with one explicit product
/// K X_k (k more products).
pub(crate) fn lanczos_top<F>(
    n: usize,
    k: usize,
    op: F,
    opts: IterOptions,
) -> Result<TopEigen, FitError>
where
    F: Fn(faer::MatRef<'_, f64>, faer::MatMut<'_, f64>),
{
    use faer::{Accum, MatMut, MatRef};
    let k = k.min(n);
    if n == 0 || k == 0 {
        return Ok(TopEigen {
            values: Vec::new(),
            vectors: DMatrix::zeros(n, 0),
            all_values: None,
            matvecs: 0,
            max_residual: 0.0,
        });
    }
    let b = k.max(8).min(n);
    let cap = (8 * b).max(k + 3 * b).min(n);
    let keep = (cap / 2).max(k + b).min(cap.saturating_sub(b)).max(k);
    let mut rng = SeededRng::seed_from_u64(LANCZOS_SEED);
    let mut basis = vec![0.0; n * cap];
    let mut kbasis = vec![0.0; n * cap];
    // H = V'KV, cap x cap column-major; its leading c x c block is current.
    let mut h = vec![0.0; cap * cap];
    let mut c = 0usize;
    let mut matvecs = 0usize;
    let mut worst = f64::INFINITY;
    let mut block = vec![0.0; n * b];
    for j in 0..b {
        random_column(&mut block, n, j, &mut rng);
    }
    let mut bw = b;
    orthonormalize_block(&basis, 0, &mut block, n, bw, &mut rng);

    for pass in 0..opts.max_restarts.max(1) {
        // Extend V by the block and K V by its product.
        let c0 = c;
        basis[n * c..n * (c + bw)].copy_from_slice(&block[..n * bw]);
        op(
            MatRef::from_column_major_slice(&block[..n * bw], n, bw),
            MatMut::from_column_major_slice_mut(&mut kbasis[n * c..n * (c + bw)], n, bw),
        );
        matvecs += bw;
        c += bw;

        // The new columns of H: V' (K V_new), then mirrored into the new rows.
        {
            let mut hnew = vec![0.0; c * bw];
            faer::linalg::matmul::matmul(
                MatMut::from_column_major_slice_mut(&mut hnew, c, bw),
                Accum::Replace,
                MatRef::from_column_major_slice(&basis[..n * c], n, c).transpose(),
                MatRef::from_column_major_slice(&kbasis[n * c0..n * c], n, bw),
                1.0,
                par(),
            );
            for jj in 0..bw {
                for i in 0..c {
                    let v = hnew[jj * c + i];
                    h[(c0 + jj) * cap + i] = v;
                    h[i * cap + c0 + jj] = v;
                }
            }
        }
        // Rayleigh-Ritz on H (symmetrised).
        let hs = DMatrix::from_fn(c, c, |i, j| 0.5 * (h[j * cap + i] + h[i * cap + j]));
        let eig = SymmetricEigen::try_new(hs, f64::EPSILON, 0).ok_or(FitError::NotConverged {
            solver: "lanczos (projected problem)",
            iterations: pass,
            residual: f64::NAN,
        })?;
        let order = descending_order(eig.eigenvalues.as_slice());
        let theta: Vec<f64> = order.iter().map(|&i| eig.eigenvalues[i]).collect();
        let y = eig.eigenvectors.select_columns(&order);
        let scale = theta
            .iter()
            .fold(0.0f64, |a, t| a.max(t.abs()))
            .max(f64::MIN_POSITIVE);
        // A residual at or below RESIDUAL_FLOOR |theta_1| always passes.
        let floor = RESIDUAL_FLOOR * scale / opts.tol.max(f64::MIN_POSITIVE);
        let gap = |i: usize| -> f64 {
            let mut g = f64::INFINITY;
            if i > 0 {
                g = g.min(theta[i - 1] - theta[i]);
            }
            if i + 1 < theta.len() {
                g = g.min(theta[i] - theta[i + 1]);
            }
            g.max(floor)
        };

        // Will V be cut back after this pass?
        // Residuals of the k wanted pairs and of the b after them (the candidates
        // for the next block).
        let r = (k + b).min(c);
        let restart = c + b > cap;
        let q = if restart { keep.min(c).max(r) } else { r };
        // Ritz vectors and K times them: the q leading ones (r for the residuals,
        // all q when restarting).
        let yq = y.columns(0, q).into_owned();
        let mut x = vec![0.0; n * q];
        let mut kx = vec![0.0; n * q];
        times(&basis, n, c, yq.as_slice(), q, &mut x);
        times(&kbasis, n, c, yq.as_slice(), q, &mut kx);
        let mut res = vec![0.0; n * r];
        let mut estimate = 0.0f64;
        let mut converged = vec![false; r];
        for (i, (rv, (kxv, xv))) in res
            .chunks_exact_mut(n)
            .zip(kx.chunks_exact(n).zip(x.chunks_exact(n)))
            .enumerate()
        {
            let t = theta[i];
            rv.iter_mut()
                .zip(kxv.iter().zip(xv))
                .for_each(|(a, (kv, v))| *a = kv - t * v);
            let norm = dot4(rv, rv).sqrt();
            if i < k {
                estimate = estimate.max(norm / gap(i));
                converged[i] = norm / gap(i) <= opts.tol;
            }
        }
        worst = estimate;

        if estimate <= opts.tol || c >= n {
            // Confirm with explicit residuals.
            let xk = &x[..n * k];
            let mut prod = vec![0.0; n * k];
            op(
                MatRef::from_column_major_slice(xk, n, k),
                MatMut::from_column_major_slice_mut(&mut prod, n, k),
            );
            matvecs += k;
            let mut true_worst = 0.0f64;
            let mut max_residual = 0.0f64;
            for (i, (p, xv)) in prod.chunks_exact(n).zip(xk.chunks_exact(n)).enumerate() {
                let t = theta[i];
                let rn = p
                    .iter()
                    .zip(xv)
                    .map(|(a, v)| (a - t * v).powi(2))
                    .sum::<f64>()
                    .sqrt();
                true_worst = true_worst.max(rn / gap(i));
                max_residual = max_residual.max(rn / scale);
            }
            worst = true_worst;
            if true_worst <= opts.tol || (c >= n && true_worst <= 1e3 * opts.tol.max(f64::EPSILON))
            {
                return Ok(TopEigen {
                    values: theta.iter().take(k).copied().collect(),
                    vectors: DMatrix::from_vec(n, k, xk.to_vec()),
                    all_values: None,
                    matvecs,
                    max_residual,
                });
            }
            if c >= n {
                break;
            }
            // The estimate passed but the explicit residuals did not: widen the
            // search on the wanted pairs again.
            converged.fill(false);
        }

        // Thick restart: V, K V := the q leading Ritz vectors and K times them.
        if restart {
            basis[..n * q].copy_from_slice(&x);
            kbasis[..n * q].copy_from_slice(&kx);
            h.fill(0.0);
            for (i, &t) in theta.iter().take(q).enumerate() {
                h[i * cap + i] = t;
            }
            c = q;
        }
        // The next block: the residuals of the leading Ritz pairs that have not
        // converged (wanted pairs first, then those after them, which widen the
        // block's reach past the k-th eigenvalue once the leading pairs have
        // converged).
        let chosen: Vec<usize> = (0..r)
            .filter(|&i| !converged[i])
            .take(b.min(n - c))
            .collect();
        bw = chosen.len();
        if bw == 0 {
            break;
        }
        block.fill(0.0);
        for (dst, &i) in block.chunks_exact_mut(n).zip(&chosen) {
            dst.copy_from_slice(&res[i * n..(i + 1) * n]);
        }
        orthonormalize_block(&basis, c, &mut block[..n * bw], n, bw, &mut rng);
    }
    Err(FitError::NotConverged {
        solver: "lanczos",
        iterations: opts.max_restarts,
        residual: worst,
    })
}

#[cfg(test)]
mod tests {
    use super::super::symprod::sym_block_product;
    use super::*;
    use nalgebra::DVector;

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
            |x, y| sym_block_product(m.as_slice(), n, x, y),
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
            |x, y| sym_block_product(m.as_slice(), n, x, y),
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
            |x, y| sym_block_product(small.as_slice(), 10, x, y),
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
