//! Folding a linear or cosine model into a linear map when the device model
//! is built (in f64, before rounding to f32).
//!
//! With the linear kernel the kernel vector is k_x = Z x', so the device
//! model's y = A' k_x + b is y = W' x' + b with W = Z'A (d x k), and the
//! score's c'k_x is v'x' with v = Z'c. The folded model stores k + 1 points,
//! the columns of W and then v, with A = [I; 0] and c = [0 .. 0 1]: the same
//! model in the core's format, evaluated by the same code, at k + 1 kernel
//! evaluations instead of m. The cosine kernel works on x' / ‖x'‖ and unit
//! points: W = Ẑ'A and v = Ẑ'c over the normalised points Ẑ, each folded
//! point stored with unit norm and its norm moved into A (or c).
//!
//! A linear model without standardisation is also moved to its points'
//! centre mu (input map x - mu, 1/std = 1), so that raw inputs far from the
//! origin keep their accuracy: with r = x - mu, y = W'r + (b + W'mu) and
//! k(x,x) - 2c'k_x + s = ‖r‖² - 2(v - mu)'r + (s + ‖mu‖² - 2v'mu).

use std::vec;
use std::vec::Vec;

/// A device model before rounding, in the device's input space (x' after
/// the input map): points m x d, A m x k, b k, c m, s.
pub(crate) struct Expansion<'a> {
    pub points: &'a [f64],
    pub a: &'a [f64],
    pub b: &'a [f64],
    pub c: &'a [f64],
    pub s: f64,
    pub dim: usize,
    pub n_components: usize,
}

/// A folded model in f32: k + 1 points (k + 1) x d, A (k + 1) x k, b, c, s
/// and, for a shifted linear model, the centre its inputs are taken from.
pub(crate) struct LinearMap {
    pub points: Vec<f32>,
    pub a: Vec<f32>,
    pub b: Vec<f32>,
    pub c: Vec<f32>,
    pub s: f32,
    pub centre: Option<Vec<f32>>,
}

/// Whether folding pays: k + 1 points instead of m.
pub(crate) fn worth_folding(n_points: usize, n_components: usize) -> bool {
    n_components + 1 < n_points
}

/// W = Z'A (d x k, row-major) and v = Z'c (d) over `rows` (m x d) of the expansion.
fn map_of(e: &Expansion<'_>, rows: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (d, k) = (e.dim, e.n_components);
    let mut w = vec![0.0f64; d * k];
    let mut v = vec![0.0f64; d];
    for ((z, arow), &ci) in rows.chunks_exact(d).zip(e.a.chunks_exact(k)).zip(e.c) {
        for (j, &zj) in z.iter().enumerate() {
            for (wl, &al) in w[j * k..(j + 1) * k].iter_mut().zip(arow) {
                *wl += zj * al;
            }
            v[j] += zj * ci;
        }
    }
    (w, v)
}

/// Column `l` of the d x k row-major `w`.
fn column(w: &[f64], k: usize, l: usize) -> Vec<f64> {
    w.chunks_exact(k).map(|row| row[l]).collect()
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn to32(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// The mean of the rows of `points` (m x d), rounded to f32: the centre a
/// device model's input map subtracts.
pub(crate) fn centre_of(points: &[f64], d: usize) -> Vec<f32> {
    let d = d.max(1);
    let m = (points.len() / d).max(1) as f64;
    let mut centre = vec![0.0f64; d];
    for z in points.chunks_exact(d) {
        for (c, v) in centre.iter_mut().zip(z) {
            *c += v / m;
        }
    }
    to32(&centre)
}

/// The folded linear-kernel model, moved to the points' centre when `shift`.
pub(crate) fn fold_linear(e: &Expansion<'_>, shift: bool) -> LinearMap {
    let (d, k) = (e.dim, e.n_components);
    // The centre the device subtracts is the f32 one; the algebra uses it exactly.
    let centre32 = if shift {
        centre_of(e.points, d)
    } else {
        vec![0.0; d]
    };
    let mu: Vec<f64> = centre32.iter().map(|&v| f64::from(v)).collect();
    let (w, v) = map_of(e, e.points);
    let mut points = Vec::with_capacity((k + 1) * d);
    for l in 0..k {
        points.extend(column(&w, k, l).iter().map(|&x| x as f32));
    }
    points.extend(v.iter().zip(&mu).map(|(vj, mj)| (vj - mj) as f32));
    let mut b = e.b.to_vec();
    for (row, &mj) in w.chunks_exact(k).zip(&mu) {
        for (bl, wl) in b.iter_mut().zip(row) {
            *bl += wl * mj;
        }
    }
    let mu_sq: f64 = mu.iter().map(|x| x * x).sum();
    let v_mu: f64 = v.iter().zip(&mu).map(|(a, b)| a * b).sum();
    let mut c = vec![0.0f32; k + 1];
    c[k] = 1.0;
    LinearMap {
        points,
        a: identity_rows(k, &vec![1.0; k]),
        b: to32(&b),
        c,
        s: (e.s + mu_sq - 2.0 * v_mu) as f32,
        centre: shift.then_some(centre32),
    }
}

/// The folded cosine-kernel model: unit points, their norms moved into A and c.
pub(crate) fn fold_cosine(e: &Expansion<'_>) -> LinearMap {
    let (d, k) = (e.dim, e.n_components);
    let unit_rows: Vec<f64> = e
        .points
        .chunks_exact(d)
        .flat_map(|z| {
            let n = norm(z);
            z.iter().map(move |&v| if n > 0.0 { v / n } else { 0.0 })
        })
        .collect();
    let (w, v) = map_of(e, &unit_rows);
    let mut points = Vec::with_capacity((k + 1) * d);
    let mut scales = Vec::with_capacity(k);
    let mut push_unit = |col: &[f64]| {
        let n = norm(col);
        points.extend(
            col.iter()
                .map(|&x| if n > 0.0 { (x / n) as f32 } else { 0.0 }),
        );
        n
    };
    for l in 0..k {
        scales.push(push_unit(&column(&w, k, l)));
    }
    let v_norm = push_unit(&v);
    let mut c = vec![0.0f32; k + 1];
    c[k] = v_norm as f32;
    LinearMap {
        points,
        a: identity_rows(k, &scales),
        b: to32(e.b),
        c,
        s: e.s as f32,
        centre: None,
    }
}

/// A = [diag(scales); 0]: (k + 1) x k, row-major.
fn identity_rows(k: usize, scales: &[f64]) -> Vec<f32> {
    let mut a = vec![0.0f32; (k + 1) * k];
    for (l, &sc) in scales.iter().enumerate() {
        a[l * k + l] = sc as f32;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folded model's terms against the expansion's, relative: the
    /// folded points, A, b, c and s are rounded to f32 once (about 6e-8
    /// each), summed over k + 1 points and d features.
    const FOLD_REL_TOL: f64 = 1e-6;

    /// The folded model's y and score pieces against the expansion's, in f64,
    /// for random data: the algebra of the fold (shifted or not, cosine).
    #[test]
    fn folding_keeps_projection_and_score_terms() {
        let (m, d, k) = (9usize, 3usize, 2usize);
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let points: Vec<f64> = (0..m * d).map(|_| 50.0 + rnd()).collect();
        let a: Vec<f64> = (0..m * k).map(|_| rnd()).collect();
        let b: Vec<f64> = (0..k).map(|_| rnd()).collect();
        let c: Vec<f64> = (0..m).map(|_| rnd() / m as f64).collect();
        let e = Expansion {
            points: &points,
            a: &a,
            b: &b,
            c: &c,
            s: 0.3,
            dim: d,
            n_components: k,
        };
        let x: Vec<f64> = (0..d).map(|_| 50.0 + rnd()).collect();
        let dot = |p: &[f64], q: &[f64]| p.iter().zip(q).map(|(u, v)| u * v).sum::<f64>();
        for cosine in [false, true] {
            let kern = |p: &[f64], q: &[f64]| {
                if cosine {
                    dot(p, q) / (norm(p) * norm(q))
                } else {
                    dot(p, q)
                }
            };
            // The expansion: y = A'k_x + b, t = k(x,x) - 2c'k_x + s.
            let kx: Vec<f64> = points.chunks_exact(d).map(|z| kern(&x, z)).collect();
            let want_y: Vec<f64> = (0..k)
                .map(|l| {
                    b[l] + kx
                        .iter()
                        .enumerate()
                        .map(|(i, kv)| a[i * k + l] * kv)
                        .sum::<f64>()
                })
                .collect();
            let want_t = kern(&x, &x) - 2.0 * dot(&c, &kx) + e.s;
            for shift in [false, true] {
                if cosine && shift {
                    continue;
                }
                let f = if cosine {
                    fold_cosine(&e)
                } else {
                    fold_linear(&e, shift)
                };
                let centre: Vec<f64> = match &f.centre {
                    Some(c) => c.iter().map(|&v| f64::from(v)).collect(),
                    None => vec![0.0; d],
                };
                let r: Vec<f64> = x.iter().zip(&centre).map(|(a, b)| a - b).collect();
                let fp: Vec<f64> = f.points.iter().map(|&v| f64::from(v)).collect();
                let fkx: Vec<f64> = fp
                    .chunks_exact(d)
                    .map(|z| {
                        if cosine && norm(z) == 0.0 {
                            0.0
                        } else {
                            kern(&r, z)
                        }
                    })
                    .collect();
                assert_eq!(fkx.len(), k + 1);
                for (l, &want) in want_y.iter().enumerate() {
                    let y: f64 = f64::from(f.b[l])
                        + fkx
                            .iter()
                            .enumerate()
                            .map(|(i, kv)| f64::from(f.a[i * k + l]) * kv)
                            .sum::<f64>();
                    let tol = FOLD_REL_TOL * (1.0 + want.abs());
                    assert!(
                        (y - want).abs() <= tol,
                        "y{l} cosine {cosine} shift {shift}: {y} vs {want}"
                    );
                }
                let fc: Vec<f64> = f.c.iter().map(|&v| f64::from(v)).collect();
                let t = kern(&r, &r) - 2.0 * dot(&fc, &fkx) + f64::from(f.s);
                let tol = FOLD_REL_TOL * want_t.abs().max(1.0);
                assert!(
                    (t - want_t).abs() <= tol,
                    "t cosine {cosine} shift {shift}: {t} vs {want_t}"
                );
            }
        }
    }
}
