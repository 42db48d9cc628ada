//! Every eigenpair of a symmetric n x n f32 matrix, in place and without
//! allocation: Householder reduction to tridiagonal form, the orthogonal
//! factor formed explicitly, then the implicit QL iteration with Wilkinson
//! shifts (Golub and Van Loan, "Matrix Computations", §8.3), its rotations
//! applied to the rows of the transposed factor so that every inner loop runs
//! over contiguous memory.
//!
//! Cost: about 4/3 n³ multiply-adds for the reduction, 2/3 n³ to form the
//! factor and about 3 n³ for the rotations (two QL steps per eigenvalue on
//! average). Memory: the matrix itself plus three n-vectors.

use crate::error::Error;

/// QL steps allowed per eigenvalue before [`Error::NoConvergence`].
pub const MAX_QL_STEPS: u32 = 60;

/// Row `i` of the row-major `n`-column matrix `a` (empty when out of range).
fn row(a: &[f32], n: usize, i: usize) -> &[f32] {
    a.get(i * n..(i + 1) * n).unwrap_or(&[])
}

/// Row `i` of `a`, writable (empty when out of range).
fn row_mut(a: &mut [f32], n: usize, i: usize) -> &mut [f32] {
    a.get_mut(i * n..(i + 1) * n).unwrap_or(&mut [])
}

/// Element (i, j) of `a` (0 when out of range).
fn at(a: &[f32], n: usize, i: usize, j: usize) -> f32 {
    a.get(i * n + j).copied().unwrap_or(0.0)
}

/// Sets element (i, j) of `a` (nothing when out of range).
fn put(a: &mut [f32], n: usize, i: usize, j: usize, v: f32) {
    if let Some(x) = a.get_mut(i * n + j) {
        *x = v;
    }
}

/// The vectors the solver works with besides the matrix, each of length n.
pub struct EigenScratch<'w> {
    /// The diagonal of the tridiagonal form, then the eigenvalues.
    pub diag: &'w mut [f32],
    /// Its subdiagonal: `sub[i]` couples i and i + 1 (`sub[n - 1]` = 0).
    pub sub: &'w mut [f32],
    /// The Householder factors, then scratch.
    pub tmp: &'w mut [f32],
}

/// Overwrites the symmetric row-major n x n `a` (both triangles stored) with
/// the transposed eigenvector matrix: row j of `a` is the unit eigenvector of
/// the eigenvalue left in `scratch.diag[j]`. The eigenvalues are not sorted.
///
/// The caller scales `a` to a largest magnitude near 1 (the fit does): the
/// products are not scaled here.
///
/// Errors: [`Error::NoConvergence`] when an eigenvalue needs more than
/// [`MAX_QL_STEPS`] QL steps (not seen on such input), [`Error::PartsLength`]
/// when the buffers are shorter than n² and n.
pub fn symmetric_eigen(
    a: &mut [f32],
    n: usize,
    scratch: &mut EigenScratch<'_>,
) -> Result<(), Error> {
    let short = |v: &[f32]| v.len() < n;
    if a.len() < n * n || short(scratch.diag) || short(scratch.sub) || short(scratch.tmp) {
        return Err(Error::PartsLength);
    }
    tridiagonalize(a, n, scratch);
    form_factor(a, n, scratch.tmp);
    transpose(a, n);
    ql_iterate(a, n, scratch.diag, scratch.sub)
}

/// Householder reduction: for each k < n - 2, the reflector I - beta v v' that
/// maps row k right of the diagonal (by symmetry, column k below it) onto its
/// first entry; v is left in that part of row k and beta in `tmp[k]`. Fills
/// `diag` and `sub`.
fn tridiagonalize(a: &mut [f32], n: usize, s: &mut EigenScratch<'_>) {
    for k in 0..n.saturating_sub(2) {
        crate::codegen::keep_rolled();
        let (top, block) = a.split_at_mut(((k + 1) * n).min(a.len()));
        let v = row_mut(top, n, k).get_mut(k + 1..).unwrap_or(&mut []);
        let (alpha, beta) = make_reflector(v);
        if let Some(x) = s.diag.get_mut(k) {
            *x = at(top, n, k, k);
        }
        if let Some(x) = s.sub.get_mut(k) {
            *x = alpha;
        }
        if let Some(x) = s.tmp.get_mut(k) {
            *x = beta;
        }
        if beta != 0.0 {
            let v = row(top, n, k).get(k + 1..).unwrap_or(&[]);
            // `sub[k + 1..]` is scratch until its own step writes it.
            let w = s.sub.get_mut(k + 1..).unwrap_or(&mut []);
            reflect_both_sides(block, n, k + 1, v, beta, w);
        }
    }
    // The last 2 x 2 block needs no reflector.
    let last = n.saturating_sub(1);
    if n >= 2 {
        let second = n - 2;
        for i in second..n {
            crate::codegen::keep_rolled();
            if let Some(x) = s.diag.get_mut(i) {
                *x = at(a, n, i, i);
            }
        }
        if let Some(x) = s.sub.get_mut(second) {
            *x = at(a, n, last, second);
        }
    } else if let Some(x) = s.diag.get_mut(0) {
        *x = at(a, n, 0, 0);
    }
    if let Some(x) = s.sub.get_mut(last) {
        *x = 0.0;
    }
}

/// Turns `v` (= x) into the Householder vector of x in place and returns
/// (alpha, beta): (I - beta v v') x = alpha e1, with alpha = -sign(x_0) ‖x‖,
/// v_0 = 1 and beta in [1, 2] (LAPACK's normalisation, so neither v nor beta
/// overflows however small x is). beta = 0 when x = 0. ‖x‖ is computed with
/// scaling, so it neither overflows nor underflows for any finite x.
fn make_reflector(v: &mut [f32]) -> (f32, f32) {
    let scale = v.iter().fold(0.0f32, |m, x| m.max(libm::fabsf(*x)));
    if scale == 0.0 || !scale.is_finite() {
        return (v.first().copied().unwrap_or(0.0), 0.0);
    }
    let sum = v.iter().fold(0.0f32, |acc, x| {
        let t = *x / scale;
        acc + t * t
    });
    let norm = scale * crate::fastmath::sqrt(sum);
    let x0 = v.first().copied().unwrap_or(0.0);
    let alpha = if x0 < 0.0 { norm } else { -norm };
    // |x_0 - alpha| = |x_0| + ‖x‖ >= every |x_i|: the ratios stay within 1.
    let pivot = x0 - alpha;
    for x in v.iter_mut() {
        crate::codegen::keep_rolled();
        *x /= pivot;
    }
    if let Some(v0) = v.first_mut() {
        *v0 = 1.0;
    }
    (alpha, (alpha - x0) / alpha)
}

/// B <- H B H for the trailing block B (rows and columns `from..n` of `block`,
/// whose row 0 is row `from` of the matrix) and H = I - beta v v':
/// p = beta B v, w = p - (beta p'v / 2) v, B <- B - v w' - w v'.
/// `w` is scratch of at least n - from floats.
fn reflect_both_sides(
    block: &mut [f32],
    n: usize,
    from: usize,
    v: &[f32],
    beta: f32,
    w: &mut [f32],
) {
    let len = n.saturating_sub(from);
    let w = w.get_mut(..len).unwrap_or(&mut []);
    let mut pv = 0.0f32;
    for (i, wi) in w.iter_mut().enumerate() {
        let r = row(block, n, i).get(from..).unwrap_or(&[]);
        let dot = r.iter().zip(v).fold(0.0f32, |acc, (x, y)| acc + x * y);
        *wi = beta * dot;
        pv += *wi * v.get(i).copied().unwrap_or(0.0);
    }
    let half = 0.5 * beta * pv;
    for (wi, vi) in w.iter_mut().zip(v) {
        *wi -= half * vi;
    }
    let w: &[f32] = w;
    for (i, (&vi, &wi)) in v.iter().zip(w).enumerate() {
        let r = row_mut(block, n, i).get_mut(from..).unwrap_or(&mut []);
        for ((x, &vj), &wj) in r.iter_mut().zip(v).zip(w) {
            *x -= vi * wj + wi * vj;
        }
    }
}

/// Overwrites `a` with Q = H_0 H_1 ... H_{n-3}, from the reflectors that
/// [`tridiagonalize`] left in the rows of `a` and the factors in `beta`,
/// accumulated from the last: after step k, rows and columns k + 1.. hold
/// H_k ... H_{n-3} there.
fn form_factor(a: &mut [f32], n: usize, beta: &mut [f32]) {
    if n == 0 {
        return;
    }
    put(a, n, n - 1, n - 1, 1.0);
    for k in (0..n.saturating_sub(2)).rev() {
        crate::codegen::keep_rolled();
        set_unit(a, n, k + 1);
        let b = beta.get(k).copied().unwrap_or(0.0);
        if b == 0.0 {
            continue;
        }
        let (top, block) = a.split_at_mut(((k + 1) * n).min(a.len()));
        let v = row(top, n, k).get(k + 1..).unwrap_or(&[]);
        apply_left(
            block,
            n,
            k + 1,
            v,
            b,
            beta.get_mut(k + 1..).unwrap_or(&mut []),
        );
    }
    set_unit(a, n, 0);
}

/// Row i and column i of `a` from the diagonal on become the unit vector e_i.
fn set_unit(a: &mut [f32], n: usize, i: usize) {
    if let Some(r) = row_mut(a, n, i).get_mut(i..) {
        for (j, x) in r.iter_mut().enumerate() {
            crate::codegen::keep_rolled();
            *x = if j == 0 { 1.0 } else { 0.0 };
        }
    }
    for r in i + 1..n {
        crate::codegen::keep_rolled();
        put(a, n, r, i, 0.0);
    }
}

/// B <- (I - beta v v') B on rows and columns `from..n` (`block` starts at
/// row `from`): w = v'B, then each row B_i -= beta v_i w. Uses `w` (at least
/// n - from floats; the factors beta of steps after this one, which are no
/// longer needed) as scratch.
fn apply_left(block: &mut [f32], n: usize, from: usize, v: &[f32], beta: f32, w: &mut [f32]) {
    let len = n.saturating_sub(from);
    let w = w.get_mut(..len).unwrap_or(&mut []);
    w.iter_mut().for_each(|x| *x = 0.0);
    for (i, &vi) in v.iter().enumerate() {
        let r = row(block, n, i).get(from..).unwrap_or(&[]);
        for (wj, x) in w.iter_mut().zip(r) {
            *wj += vi * x;
        }
    }
    let w: &[f32] = w;
    for (i, &vi) in v.iter().enumerate() {
        let f = beta * vi;
        let r = row_mut(block, n, i).get_mut(from..).unwrap_or(&mut []);
        for (x, wj) in r.iter_mut().zip(w) {
            *x -= f * wj;
        }
    }
}

/// Transposes the n x n `a` in place.
fn transpose(a: &mut [f32], n: usize) {
    for i in 0..n {
        crate::codegen::keep_rolled();
        for j in i + 1..n {
            crate::codegen::keep_rolled();
            let (x, y) = (at(a, n, i, j), at(a, n, j, i));
            put(a, n, i, j, y);
            put(a, n, j, i, x);
        }
    }
}

/// The implicit QL iteration on the tridiagonal (diag, sub), each rotation
/// applied to rows i and i + 1 of `zt`; leaves the eigenvalues in `diag`.
fn ql_iterate(zt: &mut [f32], n: usize, diag: &mut [f32], sub: &mut [f32]) -> Result<(), Error> {
    // The absolute deflation level: ε times the largest row sum of |T|.
    let norm = diag
        .iter()
        .zip(sub.iter())
        .fold((0.0f32, 0.0f32), |(m, prev), (&d, &e)| {
            let e = libm::fabsf(e);
            (m.max(libm::fabsf(d) + e + prev), e)
        })
        .0;
    let floor = (f32::EPSILON * norm).max(f32::MIN_POSITIVE);
    for l in 0..n {
        crate::codegen::keep_rolled();
        let mut steps = 0;
        loop {
            let m = split_point(diag, sub, n, l, floor);
            if m == l {
                break;
            }
            if steps == MAX_QL_STEPS {
                return Err(Error::NoConvergence);
            }
            steps += 1;
            ql_step(zt, n, diag, sub, l, m);
        }
    }
    Ok(())
}

/// The first m >= l whose subdiagonal entry is negligible next to its two
/// diagonal neighbours or below `floor` (n - 1 when none is).
fn split_point(diag: &[f32], sub: &[f32], n: usize, l: usize, floor: f32) -> usize {
    let mut m = l;
    while m + 1 < n {
        crate::codegen::keep_rolled();
        let dd = libm::fabsf(diag.get(m).copied().unwrap_or(0.0))
            + libm::fabsf(diag.get(m + 1).copied().unwrap_or(0.0));
        let e = libm::fabsf(sub.get(m).copied().unwrap_or(0.0));
        if e + dd == dd || e <= floor {
            break;
        }
        m += 1;
    }
    m
}

/// One implicit QL step with a Wilkinson shift on the unreduced block l..=m.
fn ql_step(zt: &mut [f32], n: usize, diag: &mut [f32], sub: &mut [f32], l: usize, m: usize) {
    let d = |v: &[f32], i: usize| v.get(i).copied().unwrap_or(0.0);
    let set = |v: &mut [f32], i: usize, x: f32| {
        if let Some(y) = v.get_mut(i) {
            *y = x;
        }
    };
    let el = d(sub, l);
    let theta = (d(diag, l + 1) - d(diag, l)) / (2.0 * el);
    let root = hypot(theta, 1.0);
    let mut g = d(diag, m) - d(diag, l) + el / (theta + libm::copysignf(root, theta));
    let (mut s, mut c, mut p) = (1.0f32, 1.0f32, 0.0f32);
    let mut i = m;
    while i > l {
        crate::codegen::keep_rolled();
        i -= 1;
        let f = s * d(sub, i);
        let b = c * d(sub, i);
        let r = hypot(f, g);
        set(sub, i + 1, r);
        if r == 0.0 {
            // The rotation underflowed: the block splits at i; deflate and
            // let the caller look for the new split point.
            set(diag, i + 1, d(diag, i + 1) - p);
            set(sub, m, 0.0);
            return;
        }
        s = f / r;
        c = g / r;
        g = d(diag, i + 1) - p;
        let t = (d(diag, i) - g) * s + 2.0 * c * b;
        p = s * t;
        set(diag, i + 1, g + p);
        g = c * t - b;
        rotate_rows(zt, n, i, c, s);
    }
    set(diag, l, d(diag, l) - p);
    set(sub, l, g);
    set(sub, m, 0.0);
}

/// sqrt(a² + b²) without overflow or harmful underflow, in f32 (libm's
/// hypotf works in f64, which is software arithmetic on the M4F): the larger
/// magnitude times sqrt(1 + r²), r = smaller / larger <= 1. Relative error a
/// few ulp (one division, one square root, two roundings).
fn hypot(a: f32, b: f32) -> f32 {
    let (a, b) = (libm::fabsf(a), libm::fabsf(b));
    let (big, small) = if a >= b { (a, b) } else { (b, a) };
    if big == 0.0 || !big.is_finite() {
        return big + small;
    }
    let r = small / big;
    big * crate::fastmath::sqrt(1.0 + r * r)
}

/// Rows i and i + 1 of `zt` <- (c r_i - s r_{i+1}, s r_i + c r_{i+1}).
fn rotate_rows(zt: &mut [f32], n: usize, i: usize, c: f32, s: f32) {
    let (upper, lower) = zt.split_at_mut(((i + 1) * n).min(zt.len()));
    let ri = row_mut(upper, n, i);
    let rj = lower.get_mut(..n).unwrap_or(&mut []);
    for (x, y) in ri.iter_mut().zip(rj.iter_mut()) {
        let (u, v) = (*x, *y);
        *x = c * u - s * v;
        *y = s * u + c * v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// A deterministic pseudo-random symmetric matrix with entries in [-1, 1].
    fn symmetric(n: usize, seed: u64) -> Vec<f32> {
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        let mut a = vec![0.0f32; n * n];
        for i in 0..n {
            for j in 0..=i {
                let v = next();
                a[i * n + j] = v;
                a[j * n + i] = v;
            }
        }
        a
    }

    fn solve(a: &[f32], n: usize) -> (Vec<f32>, Vec<f32>) {
        let mut z = a.to_vec();
        let (mut d, mut e, mut t) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let mut s = EigenScratch {
            diag: &mut d,
            sub: &mut e,
            tmp: &mut t,
        };
        symmetric_eigen(&mut z, n, &mut s).unwrap();
        (z, d)
    }

    /// Largest |(A v - lambda v)_i| over every pair, and largest |Z Z' - I|,
    /// both relative to the largest |lambda|, computed in f64.
    fn residuals(a: &[f32], n: usize, z: &[f32], d: &[f32]) -> (f64, f64) {
        let scale = d
            .iter()
            .fold(0.0f64, |m, &v| m.max(f64::from(v).abs()))
            .max(1e-30);
        let (mut res, mut orth) = (0.0f64, 0.0f64);
        for j in 0..n {
            let v = &z[j * n..(j + 1) * n];
            for i in 0..n {
                let av: f64 = (0..n)
                    .map(|c| f64::from(a[i * n + c]) * f64::from(v[c]))
                    .sum();
                res = res.max((av - f64::from(d[j]) * f64::from(v[i])).abs() / scale);
            }
            for l in 0..n {
                let w = &z[l * n..(l + 1) * n];
                let dot: f64 = v
                    .iter()
                    .zip(w)
                    .map(|(x, y)| f64::from(*x) * f64::from(*y))
                    .sum();
                orth = orth.max((dot - if j == l { 1.0 } else { 0.0 }).abs());
            }
        }
        (res, orth)
    }

    /// The residual and orthogonality bound of an f32 solver: a small multiple
    /// of n ε (backward stability of the reduction and the rotations).
    fn bound(n: usize) -> f64 {
        4.0 * n as f64 * f64::from(f32::EPSILON)
    }

    #[test]
    fn eigenpairs_of_random_symmetric_matrices_satisfy_their_equations() {
        let sizes: &[usize] = if cfg!(miri) {
            &[1, 2, 3, 9]
        } else {
            &[1, 2, 3, 5, 17, 64, 130]
        };
        for &n in sizes {
            let a = symmetric(n, n as u64 + 7);
            let (z, d) = solve(&a, n);
            let (res, orth) = residuals(&a, n, &z, &d);
            assert!(res <= bound(n), "n = {n}: residual {res}");
            assert!(orth <= bound(n), "n = {n}: orthogonality {orth}");
            // The trace is the sum of the eigenvalues.
            let trace: f64 = (0..n).map(|i| f64::from(a[i * n + i])).sum();
            let sum: f64 = d.iter().map(|&v| f64::from(v)).sum();
            assert!((trace - sum).abs() <= bound(n) * n as f64, "n = {n}: trace");
        }
    }

    #[test]
    fn known_spectrum_is_recovered() {
        // The path graph's Laplacian-like matrix tridiag(-1, 2, -1) has
        // eigenvalues 2 - 2 cos(pi j / (n + 1)).
        let n = if cfg!(miri) { 12 } else { 40 };
        let mut a = vec![0.0f32; n * n];
        for i in 0..n {
            a[i * n + i] = 2.0;
            if i + 1 < n {
                a[i * n + i + 1] = -1.0;
                a[(i + 1) * n + i] = -1.0;
            }
        }
        let (_, mut d) = solve(&a, n);
        d.sort_by(f32::total_cmp);
        for (j, &v) in d.iter().enumerate() {
            let want = 2.0 - 2.0 * (std::f64::consts::PI * (j + 1) as f64 / (n + 1) as f64).cos();
            assert!(
                (f64::from(v) - want).abs() < 1e-5,
                "eigenvalue {j}: {v} vs {want}"
            );
        }
    }

    #[test]
    fn repeated_and_zero_eigenvalues_keep_an_orthonormal_basis() {
        // A rank-2 matrix u u' + w w' with orthogonal u, w of equal norm: the
        // eigenvalue |u|^2 twice and n - 2 zeros.
        let n = 12;
        let u: Vec<f32> = (0..n).map(|i| if i % 2 == 0 { 1.0 } else { 0.0 }).collect();
        let w: Vec<f32> = (0..n).map(|i| if i % 2 == 1 { 1.0 } else { 0.0 }).collect();
        let mut a = vec![0.0f32; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = u[i] * u[j] + w[i] * w[j];
            }
        }
        let (z, d) = solve(&a, n);
        let (res, orth) = residuals(&a, n, &z, &d);
        assert!(res <= bound(n) && orth <= bound(n), "{res} {orth}");
        let mut sorted = d.clone();
        sorted.sort_by(|x, y| y.total_cmp(x));
        assert!((sorted[0] - 6.0).abs() < 1e-5 && (sorted[1] - 6.0).abs() < 1e-5);
        assert!(sorted[2..].iter().all(|v| v.abs() < 1e-5));
    }

    #[test]
    fn hypot_is_accurate_and_never_overflows() {
        for &(a, b) in &[
            (3.0f32, 4.0f32),
            (1e30, 1e30),
            (1e-30, 3e-30),
            (0.0, -2.0),
            (5e-45, 0.0),
            (-7.5, 1e-8),
        ] {
            let want = (f64::from(a).powi(2) + f64::from(b).powi(2)).sqrt();
            let got = f64::from(hypot(a, b));
            assert!(
                (got - want).abs() <= 4.0 * f64::from(f32::EPSILON) * want,
                "{a} {b}: {got} vs {want}"
            );
        }
        assert!(hypot(f32::INFINITY, 1.0).is_infinite());
        assert!(hypot(f32::NAN, 1.0).is_nan());
    }

    #[test]
    fn short_buffers_are_refused() {
        let mut a = vec![0.0f32; 8];
        let (mut d, mut e, mut t) = (vec![0.0; 3], vec![0.0; 3], vec![0.0; 3]);
        let mut s = EigenScratch {
            diag: &mut d,
            sub: &mut e,
            tmp: &mut t,
        };
        assert_eq!(symmetric_eigen(&mut a, 3, &mut s), Err(Error::PartsLength));
    }
}
