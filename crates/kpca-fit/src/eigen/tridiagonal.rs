//! The symmetric tridiagonal eigenproblem: every eigenvalue by the implicit QL
//! algorithm (no eigenvectors, O(n²) time, O(1) memory beyond the matrix), and
//! the eigenvectors of chosen eigenvalues by inverse iteration (O(n) each).
//!
//! The matrix T is given by its diagonal `d` and off-diagonal `e`: `e[i]` couples
//! rows i and i + 1, `e.len() == d.len()` and the last entry is ignored.

use super::SEED;
use crate::rng::SeededRng;
use rand_core::SeedableRng;
use std::vec;
use std::vec::Vec;

/// Most QL iterations spent on one eigenvalue before giving up.
const MAX_QL_ITERATIONS: usize = 60;

/// Every eigenvalue of T, by the implicit QL algorithm with Wilkinson shifts.
/// `d` is overwritten with the eigenvalues (unsorted), `e` is destroyed. An
/// off-diagonal entry counts as zero when |e_m| <= eps ‖T‖ (‖T‖ = max_i |d_i| +
/// |e_i|, so every eigenvalue is accurate to a few eps ‖T‖, as a dense solver's).
/// Err when an eigenvalue needs more than [`MAX_QL_ITERATIONS`] iterations or T
/// is not finite.
pub(super) fn eigenvalues(d: &mut [f64], e: &mut [f64]) -> Result<(), ()> {
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
        let mut iterations = 0;
        loop {
            let m = split_point(e, l, f64::EPSILON * norm);
            if m == l {
                break;
            }
            iterations += 1;
            if iterations > MAX_QL_ITERATIONS {
                return Err(());
            }
            ql_step(d, e, l, m);
        }
    }
    Ok(())
}

/// The first m >= l at which T splits (|e_m| <= `negligible`, or the last row).
fn split_point(e: &[f64], l: usize, negligible: f64) -> usize {
    let mut m = l;
    while m + 1 < e.len() && e[m].abs() > negligible {
        m += 1;
    }
    m
}

/// One implicit QL step with a Wilkinson shift on the unreduced block l..=m.
fn ql_step(d: &mut [f64], e: &mut [f64], l: usize, m: usize) {
    let el = e[l];
    let mut g = (d[l + 1] - d[l]) / (2.0 * el);
    let mut r = g.hypot(1.0);
    g = d[m] - d[l] + el / (g + r.copysign(g));
    let (mut s, mut c, mut p) = (1.0f64, 1.0f64, 0.0f64);
    for i in (l..m).rev() {
        let f = s * e[i];
        let b = c * e[i];
        r = f.hypot(g);
        e[i + 1] = r;
        if r == 0.0 {
            // Underflow: the matrix splits here; the caller starts over.
            d[i + 1] -= p;
            e[m] = 0.0;
            return;
        }
        s = f / r;
        c = g / r;
        g = d[i + 1] - p;
        r = (d[i] - g) * s + 2.0 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
    }
    d[l] -= p;
    e[l] = g;
    e[m] = 0.0;
}

/// The LU factors of T - lambda I by Gaussian elimination with partial pivoting:
/// row i of the upper factor has `u0[i]` on the diagonal and `u1[i]`, `u2[i]`
/// in the two columns after it; `mult[i]` eliminates row i + 1, after swapping
/// rows i and i + 1 when `swap[i]`.
struct ShiftedLu {
    u0: Vec<f64>,
    u1: Vec<f64>,
    u2: Vec<f64>,
    mult: Vec<f64>,
    swap: Vec<bool>,
}

impl ShiftedLu {
    /// Factors T - lambda I. Pivots smaller than `tiny` in magnitude are replaced
    /// by `tiny` (inverse iteration wants the nearly singular solve).
    fn new(d: &[f64], e: &[f64], lambda: f64, tiny: f64) -> Self {
        let n = d.len();
        let mut lu = ShiftedLu {
            u0: vec![0.0; n],
            u1: vec![0.0; n],
            u2: vec![0.0; n],
            mult: vec![0.0; n],
            swap: vec![false; n],
        };
        if n == 0 {
            return lu;
        }
        let nz = |v: f64| if v.abs() < tiny { tiny.copysign(v) } else { v };
        // The row being eliminated: entries at columns i, i + 1, i + 2.
        let (mut r0, mut r1, mut r2) = (d[0] - lambda, e[0], 0.0);
        for i in 0..n - 1 {
            let sub = e[i];
            let next_diag = d[i + 1] - lambda;
            let next_sup = if i + 2 < n { e[i + 1] } else { 0.0 };
            if r0.abs() >= sub.abs() {
                let p = nz(r0);
                let mu = sub / p;
                (lu.u0[i], lu.u1[i], lu.u2[i], lu.mult[i]) = (p, r1, r2, mu);
                (r0, r1, r2) = (next_diag - mu * r1, next_sup - mu * r2, 0.0);
            } else {
                let mu = r0 / sub;
                (lu.u0[i], lu.u1[i], lu.u2[i], lu.mult[i]) = (sub, next_diag, next_sup, mu);
                lu.swap[i] = true;
                (r0, r1, r2) = (r1 - mu * next_diag, r2 - mu * next_sup, 0.0);
            }
        }
        lu.u0[n - 1] = nz(r0);
        let _ = (r1, r2);
        lu
    }

    /// Solves (T - lambda I) x = b in place (`x` holds b on entry).
    fn solve(&self, x: &mut [f64]) {
        let n = x.len();
        // Forward: the row swaps and multipliers applied to b.
        for i in 0..n.saturating_sub(1) {
            let (mut bi, mut bj) = (x[i], x[i + 1]);
            if self.swap[i] {
                core::mem::swap(&mut bi, &mut bj);
            }
            bj -= self.mult[i] * bi;
            x[i] = bi;
            x[i + 1] = bj;
        }
        // Back substitution; row i reaches columns i + 1 and i + 2 where they exist.
        for i in (0..n).rev() {
            let mut v = x[i];
            if i + 1 < n {
                v -= self.u1[i] * x[i + 1];
            }
            if i + 2 < n {
                v -= self.u2[i] * x[i + 2];
            }
            x[i] = v / self.u0[i];
        }
    }
}

/// The eigenvectors of T for the eigenvalues `lambdas` (accurate ones, largest
/// first), by inverse iteration: three solves from a seeded random start, each
/// followed by Gram-Schmidt (twice) against the vectors already found for
/// eigenvalues within 1e-3 ‖T‖ (so clustered and repeated eigenvalues get
/// orthogonal vectors), then normalisation. Returns them as the columns of an
/// n x k column-major buffer.
pub(super) fn eigenvectors(d: &[f64], e: &[f64], lambdas: &[f64]) -> Vec<f64> {
    let n = d.len();
    let norm_t = (0..n)
        .map(|i| d[i].abs() + e[i].abs() + if i > 0 { e[i - 1].abs() } else { 0.0 })
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let tiny = f64::EPSILON * norm_t;
    let cluster = 1e-3 * norm_t;
    let mut rng = SeededRng::seed_from_u64(SEED ^ 0x5354_4549_4e00);
    let mut out = vec![0.0; n * lambdas.len()];
    for (j, &lambda) in lambdas.iter().enumerate() {
        let (done, rest) = out.split_at_mut(j * n);
        let x = &mut rest[..n];
        fill_random(x, &mut rng);
        let close: Vec<&[f64]> = (0..j)
            .filter(|&i| (lambdas[i] - lambda).abs() <= cluster)
            .map(|i| &done[i * n..(i + 1) * n])
            .collect();
        let lu = ShiftedLu::new(d, e, lambda, tiny);
        for _iteration in 0..3 {
            inverse_iteration_step(&lu, &close, x, &mut rng);
        }
    }
    out
}

/// x := (T - lambda I)^-1 x, made orthogonal to `close` (twice) and normalised;
/// a random vector instead when the result is zero or not finite. The solve is
/// scaled first so that x's largest entry is 1 (it grows by up to 1 / tiny).
fn inverse_iteration_step(lu: &ShiftedLu, close: &[&[f64]], x: &mut [f64], rng: &mut SeededRng) {
    let scale = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    if scale > 0.0 {
        x.iter_mut().for_each(|v| *v /= scale);
    }
    lu.solve(x);
    for _pass in 0..2 {
        for q in close {
            let dot: f64 = q.iter().zip(x.iter()).map(|(a, b)| a * b).sum();
            x.iter_mut()
                .zip(q.iter())
                .for_each(|(v, qv)| *v -= dot * qv);
        }
    }
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        x.iter_mut().for_each(|v| *v /= norm);
    } else {
        fill_random(x, rng);
    }
}

/// Entries uniform in [-0.5, 0.5).
fn fill_random(x: &mut [f64], rng: &mut SeededRng) {
    for v in x.iter_mut() {
        *v = rng.next_f64() - 0.5;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The n x n second-difference matrix (2 on the diagonal, -1 beside it) has
    /// eigenvalues 2 - 2 cos(j pi / (n + 1)) and eigenvectors sin(i j pi / (n + 1)).
    #[test]
    fn second_difference_matrix_has_its_known_eigenpairs() {
        const TOL: f64 = 1e-12;
        let n = 40;
        let d = vec![2.0; n];
        let e = vec![-1.0; n];
        let step = std::f64::consts::PI / (n + 1) as f64;
        let mut want: Vec<f64> = (1..=n)
            .map(|j| 2.0 - 2.0 * (j as f64 * step).cos())
            .collect();
        want.sort_by(|a, b| b.total_cmp(a));

        let (mut values, mut scratch) = (d.clone(), e.clone());
        eigenvalues(&mut values, &mut scratch).expect("converges");
        values.sort_by(|a, b| b.total_cmp(a));
        for (got, want) in values.iter().zip(&want) {
            assert!((got - want).abs() < TOL, "{got} vs {want}");
        }

        let top = &want[..3];
        let vectors = eigenvectors(&d, &e, top);
        for (j, v) in vectors.chunks_exact(n).enumerate() {
            // Eigenvalue j (descending) belongs to frequency n - j.
            let f = (n - j) as f64;
            let exact: Vec<f64> = (1..=n).map(|i| (i as f64 * f * step).sin()).collect();
            let norm = exact.iter().map(|x| x * x).sum::<f64>().sqrt();
            let dot: f64 = v.iter().zip(&exact).map(|(a, b)| a * b).sum::<f64>() / norm;
            assert!(
                (dot.abs() - 1.0).abs() < TOL,
                "vector {j}: |cos| = {}",
                dot.abs()
            );
        }
    }
}
