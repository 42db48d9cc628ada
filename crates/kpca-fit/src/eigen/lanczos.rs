//! The iterative top-k solver: thick-restart block Lanczos with full
//! reorthogonalisation and Rayleigh-Ritz at every pass, for a symmetric matrix
//! known only by its products with blocks of vectors ([`lanczos_top`]). Each pass
//! is a few steps on a [`LanczosState`]: `expand`, `rayleigh_ritz`,
//! `ritz_vectors`, `converged`, `restart`, `next_block`.

use super::{descending_order, full_evd, TopEigen, SEED};
use crate::error::FitError;
use crate::linalg::{dot4, par, times, Dense};
use crate::rng::SeededRng;
use faer::reborrow::ReborrowMut;
use faer::{Accum, MatMut, MatRef, Par};
use rand_core::SeedableRng;
use std::vec;
use std::vec::Vec;

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
/// b = k + 8 and is about 20% faster; with the product taking 16 columns per read
/// of the matrix, b = 16 needs 248 products in 16 reads at n = 4000 against 160
/// in 20 and is still about 50% slower, the product being bound by its
/// multiply-adds rather than by the reads) plus O(n cap (k + b)) for the new
/// columns of H, the Ritz vectors and the reorthogonalisation. Each pass:
/// Rayleigh-Ritz on H gives Ritz pairs (theta_i, x_i = V y_i) with residuals
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
    F: Fn(MatRef<'_, f64>, MatMut<'_, f64>),
{
    let k = k.min(n);
    if n == 0 || k == 0 {
        return Ok(TopEigen {
            values: Vec::new(),
            vectors: Vec::new(),
            all_values: None,
            matvecs: 0,
            max_residual: 0.0,
        });
    }
    let mut state = LanczosState::new(n, k, op, opts.tol);
    for pass in 0..opts.max_restarts.max(1) {
        state.expand();
        let ritz = state.rayleigh_ritz(pass)?;
        let restart = state.must_restart();
        let mut vectors = state.ritz_vectors(&ritz, restart);
        state.worst = vectors.estimate;
        if vectors.estimate <= opts.tol || state.spans_everything() {
            match state.converged(&ritz, &vectors) {
                Confirmation::Converged(top) => return Ok(top),
                Confirmation::Exhausted => break,
                // The estimate passed but the explicit residuals did not: widen
                // the search on the wanted pairs again.
                Confirmation::Unconfirmed => vectors.converged.fill(false),
            }
        }
        if restart {
            state.restart(&ritz, &vectors);
        }
        if !state.next_block(&vectors) {
            break;
        }
    }
    Err(FitError::NotConverged {
        solver: "lanczos",
        iterations: opts.max_restarts,
        residual: state.worst,
    })
}

/// The search space of [`lanczos_top`] between passes: the orthonormal basis V,
/// K V and H = V'KV, and the block that extends them next.
struct LanczosState<F> {
    /// The operator: Y = K X for a block X.
    op: F,
    /// Order of K.
    n: usize,
    /// Eigenpairs wanted.
    k: usize,
    /// Block size b = min(n, max(k, 8)).
    b: usize,
    /// Most columns of V: min(n, max(8b, k + 3b)).
    cap: usize,
    /// Ritz vectors kept by a thick restart: cap / 2, at least k + b.
    keep: usize,
    /// The convergence tolerance.
    tol: f64,
    rng: SeededRng,
    /// V, n x cap column-major; its first `c` columns are current.
    basis: Vec<f64>,
    /// K V, as `basis`.
    kbasis: Vec<f64>,
    /// H = V'KV, cap x cap column-major; its leading c x c block is current.
    h: Vec<f64>,
    /// Current columns of V.
    c: usize,
    /// The next block (n x b, its first `bw` columns used), orthonormal to V.
    block: Vec<f64>,
    /// Columns of the next block.
    bw: usize,
    /// Products with K so far (columns).
    matvecs: usize,
    /// The largest estimated eigenvector error of the last pass.
    worst: f64,
}

/// Rayleigh-Ritz on H: Ritz values descending and their eigenvectors of H.
struct Ritz {
    /// Ritz values, descending.
    theta: Vec<f64>,
    /// Eigenvectors of H (c x c), in the order of `theta`.
    y: Dense,
    /// max |theta_j| (at least the smallest positive f64): the estimate of ‖K‖₂.
    scale: f64,
    /// The smallest gap used: RESIDUAL_FLOOR * scale / tol.
    floor: f64,
}

impl Ritz {
    /// Distance from theta_i to the nearest other Ritz value, at least `floor`.
    fn gap(&self, i: usize) -> f64 {
        let theta = &self.theta;
        let mut g = f64::INFINITY;
        if i > 0 {
            g = g.min(theta[i - 1] - theta[i]);
        }
        if i + 1 < theta.len() {
            g = g.min(theta[i] - theta[i + 1]);
        }
        g.max(self.floor)
    }
}

/// The leading Ritz vectors of a pass, K times them and their residuals.
struct RitzVectors {
    /// Ritz vectors x_i = V y_i, n x q (q = r, or more when restarting).
    x: Vec<f64>,
    /// K x_i, n x q.
    kx: Vec<f64>,
    /// Columns with residuals: the k wanted pairs and the b after them.
    r: usize,
    /// Residuals (K V) y_i - theta_i x_i, n x r.
    res: Vec<f64>,
    /// Whether pair i passed the estimated test (pairs past the k-th never do).
    converged: Vec<bool>,
    /// Largest estimated error ‖r_i‖ / gap_i of the wanted pairs.
    estimate: f64,
}

/// The outcome of the explicit residual check.
enum Confirmation {
    /// Every wanted pair passed.
    Converged(TopEigen),
    /// V spans the whole space and the pairs still failed.
    Exhausted,
    /// The explicit residuals did not confirm the estimate.
    Unconfirmed,
}

impl<F> LanczosState<F>
where
    F: Fn(MatRef<'_, f64>, MatMut<'_, f64>),
{
    /// Sizes, empty V, and a seeded random, orthonormal first block.
    fn new(n: usize, k: usize, op: F, tol: f64) -> Self {
        let b = k.max(8).min(n);
        let cap = (8 * b).max(k + 3 * b).min(n);
        let keep = (cap / 2).max(k + b).min(cap.saturating_sub(b)).max(k);
        let mut state = LanczosState {
            op,
            n,
            k,
            b,
            cap,
            keep,
            tol,
            rng: SeededRng::seed_from_u64(SEED),
            basis: vec![0.0; n * cap],
            kbasis: vec![0.0; n * cap],
            h: vec![0.0; cap * cap],
            c: 0,
            block: vec![0.0; n * b],
            bw: b,
            matvecs: 0,
            worst: f64::INFINITY,
        };
        for j in 0..b {
            random_column(&mut state.block, n, j, &mut state.rng);
        }
        orthonormalize_block(&state.basis, 0, &mut state.block, n, b, &mut state.rng);
        state
    }

    /// Whether V spans the whole space.
    fn spans_everything(&self) -> bool {
        self.c >= self.n
    }

    /// Whether V must be cut back after this pass (the next block would not fit).
    fn must_restart(&self) -> bool {
        self.c + self.b > self.cap
    }

    /// Extends V by the block, K V by its product with K, and H by the new
    /// columns V' (K V_new), mirrored into the new rows.
    fn expand(&mut self) {
        let (n, c0, bw, cap) = (self.n, self.c, self.bw, self.cap);
        let c = c0 + bw;
        self.basis[n * c0..n * c].copy_from_slice(&self.block[..n * bw]);
        (self.op)(
            MatRef::from_column_major_slice(&self.block[..n * bw], n, bw),
            MatMut::from_column_major_slice_mut(&mut self.kbasis[n * c0..n * c], n, bw),
        );
        self.matvecs += bw;
        self.c = c;
        let mut hnew = vec![0.0; c * bw];
        faer::linalg::matmul::matmul(
            MatMut::from_column_major_slice_mut(&mut hnew, c, bw),
            Accum::Replace,
            MatRef::from_column_major_slice(&self.basis[..n * c], n, c).transpose(),
            MatRef::from_column_major_slice(&self.kbasis[n * c0..n * c], n, bw),
            1.0,
            par(),
        );
        for jj in 0..bw {
            for i in 0..c {
                let v = hnew[jj * c + i];
                self.h[(c0 + jj) * cap + i] = v;
                self.h[i * cap + c0 + jj] = v;
            }
        }
    }

    /// Rayleigh-Ritz on the (symmetrised) current H.
    fn rayleigh_ritz(&self, pass: usize) -> Result<Ritz, FitError> {
        let (c, cap, h) = (self.c, self.cap, &self.h);
        let hs = Dense::from_fn(c, c, |i, j| 0.5 * (h[j * cap + i] + h[i * cap + j]));
        let (values, vectors) = full_evd(hs.as_ref(), "lanczos (projected problem)", Par::Seq)
            .map_err(|e| match e {
                FitError::NotConverged { solver, .. } => FitError::NotConverged {
                    solver,
                    iterations: pass,
                    residual: f64::NAN,
                },
                other => other,
            })?;
        let order = descending_order(&values);
        let theta: Vec<f64> = order.iter().map(|&i| values[i]).collect();
        let y = Dense::from_fn(c, c, |i, j| vectors[(i, order[j])]);
        let scale = theta
            .iter()
            .fold(0.0f64, |a, t| a.max(t.abs()))
            .max(f64::MIN_POSITIVE);
        // A residual at or below RESIDUAL_FLOOR |theta_1| always passes.
        let floor = RESIDUAL_FLOOR * scale / self.tol.max(f64::MIN_POSITIVE);
        Ok(Ritz {
            theta,
            y,
            scale,
            floor,
        })
    }

    /// The leading Ritz vectors and K times them (r = k + b of them for the
    /// residuals, at least `keep` when restarting), the residuals of the first r
    /// and the estimated convergence test of the wanted ones.
    fn ritz_vectors(&self, ritz: &Ritz, restart: bool) -> RitzVectors {
        let (n, c, k) = (self.n, self.c, self.k);
        let r = (k + self.b).min(c);
        let q = if restart { self.keep.min(c).max(r) } else { r };
        let yq = ritz.y.as_ref().subcols(0, q);
        let mut x = vec![0.0; n * q];
        let mut kx = vec![0.0; n * q];
        times(&self.basis, n, c, yq, &mut x);
        times(&self.kbasis, n, c, yq, &mut kx);
        let mut res = vec![0.0; n * r];
        let mut estimate = 0.0f64;
        let mut converged = vec![false; r];
        for (i, (rv, (kxv, xv))) in res
            .chunks_exact_mut(n)
            .zip(kx.chunks_exact(n).zip(x.chunks_exact(n)))
            .enumerate()
        {
            let t = ritz.theta[i];
            rv.iter_mut()
                .zip(kxv.iter().zip(xv))
                .for_each(|(a, (kv, v))| *a = kv - t * v);
            let norm = dot4(rv, rv).sqrt();
            if i < k {
                estimate = estimate.max(norm / ritz.gap(i));
                converged[i] = norm / ritz.gap(i) <= self.tol;
            }
        }
        RitzVectors {
            x,
            kx,
            r,
            res,
            converged,
            estimate,
        }
    }

    /// The convergence test on explicitly computed residuals K x_i - theta_i x_i
    /// of the k wanted Ritz pairs (k more products). Once V spans everything, a
    /// residual within 1e3 tol is accepted.
    fn converged(&mut self, ritz: &Ritz, vectors: &RitzVectors) -> Confirmation {
        let (n, k) = (self.n, self.k);
        let xk = &vectors.x[..n * k];
        let mut prod = vec![0.0; n * k];
        (self.op)(
            MatRef::from_column_major_slice(xk, n, k),
            MatMut::from_column_major_slice_mut(&mut prod, n, k),
        );
        self.matvecs += k;
        let mut true_worst = 0.0f64;
        let mut max_residual = 0.0f64;
        for (i, (p, xv)) in prod.chunks_exact(n).zip(xk.chunks_exact(n)).enumerate() {
            let t = ritz.theta[i];
            let rn = p
                .iter()
                .zip(xv)
                .map(|(a, v)| (a - t * v).powi(2))
                .sum::<f64>()
                .sqrt();
            true_worst = true_worst.max(rn / ritz.gap(i));
            max_residual = max_residual.max(rn / ritz.scale);
        }
        self.worst = true_worst;
        let tol = self.tol;
        let everything = self.spans_everything();
        if true_worst <= tol || (everything && true_worst <= 1e3 * tol.max(f64::EPSILON)) {
            Confirmation::Converged(TopEigen {
                values: ritz.theta.iter().take(k).copied().collect(),
                vectors: xk.to_vec(),
                all_values: None,
                matvecs: self.matvecs,
                max_residual,
            })
        } else if everything {
            Confirmation::Exhausted
        } else {
            Confirmation::Unconfirmed
        }
    }

    /// Thick restart: V, K V := the leading Ritz vectors and K times them, H :=
    /// diag(theta) (no product needed).
    fn restart(&mut self, ritz: &Ritz, vectors: &RitzVectors) {
        let (n, cap) = (self.n, self.cap);
        let q = vectors.x.len() / n;
        self.basis[..n * q].copy_from_slice(&vectors.x);
        self.kbasis[..n * q].copy_from_slice(&vectors.kx);
        self.h.fill(0.0);
        for (i, &t) in ritz.theta.iter().take(q).enumerate() {
            self.h[i * cap + i] = t;
        }
        self.c = q;
    }

    /// The next block: the residuals of the leading Ritz pairs that have not
    /// converged (wanted pairs first, then those after them, which widen the
    /// block's reach past the k-th eigenvalue once the leading pairs have
    /// converged), orthonormalised against V. False when there are none.
    fn next_block(&mut self, vectors: &RitzVectors) -> bool {
        let n = self.n;
        let chosen: Vec<usize> = (0..vectors.r)
            .filter(|&i| !vectors.converged[i])
            .take(self.b.min(n - self.c))
            .collect();
        self.bw = chosen.len();
        if self.bw == 0 {
            return false;
        }
        self.block.fill(0.0);
        for (dst, &i) in self.block.chunks_exact_mut(n).zip(&chosen) {
            dst.copy_from_slice(&vectors.res[i * n..(i + 1) * n]);
        }
        let bw = self.bw;
        orthonormalize_block(
            &self.basis,
            self.c,
            &mut self.block[..n * bw],
            n,
            bw,
            &mut self.rng,
        );
        true
    }
}

/// Fills column `j` of the n-row column-major `buf` with a random vector.
fn random_column(buf: &mut [f64], n: usize, j: usize, rng: &mut SeededRng) {
    for v in &mut buf[j * n..(j + 1) * n] {
        *v = rng.next_f64() - 0.5;
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
    let v = MatRef::from_column_major_slice(&basis[..n * c], n, c);
    project_out(v, block, bw);
    for j in 0..bw {
        for attempt in 0..4 {
            if normalize_against_previous(block, n, j) {
                break;
            }
            // Nearly dependent: a random replacement, made orthogonal to the basis.
            random_column(block, n, j, rng);
            if c > 0 && attempt < 3 {
                project_out(v, &mut block[j * n..(j + 1) * n], 1);
            }
        }
    }
}

/// block (n x bw) -= V (V' block), twice (classical Gram-Schmidt against the
/// orthonormal columns of `v`; nothing when `v` has none).
fn project_out(v: MatRef<'_, f64>, block: &mut [f64], bw: usize) {
    let (n, c) = (v.nrows(), v.ncols());
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
}

/// Makes column `j` of `block` orthogonal to the columns before it (modified
/// Gram-Schmidt, twice) and normalises it; false (the column left unnormalised)
/// when it kept no more than 1e-8 of its norm or is not finite.
fn normalize_against_previous(block: &mut [f64], n: usize, j: usize) -> bool {
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
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::dense_top;
    use super::*;
    use crate::symprod::sym_block_product;

    /// A column-major n x n buffer with entries f(i, j).
    fn buffer(n: usize, f: impl Fn(usize, usize) -> f64) -> Vec<f64> {
        (0..n * n).map(|idx| f(idx % n, idx / n)).collect()
    }

    /// Q diag(0.8^i) Q' for a random orthogonal Q: a decaying spectrum,
    /// positive semi-definite.
    fn test_matrix(n: usize) -> Vec<f64> {
        let mut rng = SeededRng::seed_from_u64(3);
        let random: Vec<f64> = (0..n * n).map(|_| rng.next_f64() - 0.5).collect();
        let q = MatRef::from_column_major_slice(&random, n, n)
            .qr()
            .compute_Q();
        buffer(n, |i, j| {
            (0..n)
                .map(|l| q[(i, l)] * 0.8f64.powi(l as i32) * q[(j, l)])
                .sum()
        })
    }

    fn column(v: &[f64], n: usize, i: usize) -> &[f64] {
        &v[i * n..(i + 1) * n]
    }

    #[test]
    fn lanczos_matches_dense_on_a_decaying_spectrum() {
        let n = 120;
        let k = 5;
        let m = test_matrix(n);
        let dense = dense_top(m.clone(), n, k).unwrap();
        let it = lanczos_top(
            n,
            k,
            |x, y| sym_block_product(&m, n, x, y),
            IterOptions {
                tol: 1e-12,
                max_restarts: 200,
            },
        )
        .unwrap();
        for i in 0..k {
            assert!((dense.values[i] - it.values[i]).abs() < 1e-12, "{i}");
            let dot = dot4(column(&dense.vectors, n, i), column(&it.vectors, n, i)).abs();
            assert!((dot - 1.0).abs() < 1e-10, "{i}: {dot}");
        }
    }

    #[test]
    fn low_rank_and_small_n_are_handled() {
        // Rank-2 matrix: the Krylov space becomes invariant; random restarts continue.
        let n = 50;
        let u = |i: usize, j: usize| ((i * (j + 2)) as f64).sin();
        let m = buffer(n, |i, j| u(i, 0) * u(j, 0) + u(i, 1) * u(j, 1));
        let it = lanczos_top(
            n,
            4,
            |x, y| sym_block_product(&m, n, x, y),
            IterOptions {
                tol: 1e-12,
                max_restarts: 100,
            },
        )
        .unwrap();
        let dense = dense_top(m.clone(), n, 4).unwrap();
        for i in 0..4 {
            assert!((dense.values[i] - it.values[i]).abs() < 1e-10 * dense.values[0]);
        }
        // n smaller than the basis: one exact cycle.
        let small = test_matrix(10);
        let it = lanczos_top(
            10,
            3,
            |x, y| sym_block_product(&small, 10, x, y),
            IterOptions {
                tol: 1e-12,
                max_restarts: 5,
            },
        )
        .unwrap();
        let dense = dense_top(small, 10, 3).unwrap();
        for i in 0..3 {
            assert!((dense.values[i] - it.values[i]).abs() < 1e-12);
        }
    }
}
