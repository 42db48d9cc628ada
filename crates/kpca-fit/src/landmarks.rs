//! Landmark selection beyond uniform sampling, from the (standardised)
//! training rows: k-means++ seeding (D² sampling in the input space, Arthur
//! and Vassilvitskii 2007) and randomly pivoted Cholesky (pivots drawn with
//! probability proportional to the residual diagonal of the kernel matrix,
//! Chen, Epperly, Tropp and Webber 2022). Both draw from [`SeededRng`], so a
//! seed gives the same landmarks on every machine.
//!
//! Pivoted Cholesky keeps an n x m factor; to bound its memory it runs on a
//! uniform pool of at most [`RPC_POOL_PER_LANDMARK`] m candidate rows (all
//! rows when n is smaller).

use crate::error::FitError;
use crate::kernel::{cross_kernel, sq_norms, Kernel64};
use crate::rng::{sample_landmarks, SeededRng};
use rand_core::SeedableRng;
use rayon::prelude::*;
use std::vec;
use std::vec::Vec;

/// Candidate rows per landmark of the pivoted-Cholesky pool.
pub const RPC_POOL_PER_LANDMARK: usize = 20;

/// An index drawn with probability proportional to `weights` (each >= 0),
/// or `None` when they sum to zero (or are not finite).
fn draw(rng: &mut SeededRng, weights: &[f64]) -> Option<usize> {
    let total: f64 = weights.iter().sum();
    if !(total.is_finite() && total > 0.0) {
        return None;
    }
    let mut target = rng.next_f64() * total;
    for (i, &w) in weights.iter().enumerate() {
        if target < w {
            return Some(i);
        }
        target -= w;
    }
    weights.iter().rposition(|&w| w > 0.0)
}

/// The first `m` of the rows that are not yet chosen, in order (when the
/// weights vanish: every row is already a landmark or a copy of one).
fn fill_in_order(chosen: &mut Vec<usize>, n: usize, m: usize) {
    let mut taken = vec![false; n];
    chosen.iter().for_each(|&i| taken[i] = true);
    chosen.extend((0..n).filter(|&i| !taken[i]).take(m - chosen.len()));
}

/// k-means++ seeding: m distinct rows of the row-major `z` (d columns), the
/// first uniform, each next with probability proportional to its squared
/// distance to the nearest landmark so far. Sorted ascending.
pub(crate) fn kmeans_pp(z: &[f64], d: usize, m: usize, seed: u64) -> Result<Vec<usize>, FitError> {
    let n = z.len() / d.max(1);
    check_count(m, n)?;
    let mut rng = SeededRng::seed_from_u64(seed);
    let mut chosen = sample_landmarks(&mut rng, n, 1)?;
    let mut nearest = vec![f64::INFINITY; n];
    while chosen.len() < m {
        let last = chosen[chosen.len() - 1];
        let c = &z[last * d..(last + 1) * d];
        nearest
            .par_iter_mut()
            .zip(z.par_chunks(d))
            .for_each(|(best, row)| {
                let dist: f64 = row.iter().zip(c).map(|(a, b)| (a - b) * (a - b)).sum();
                *best = best.min(dist);
            });
        match draw(&mut rng, &nearest) {
            Some(i) => chosen.push(i),
            None => fill_in_order(&mut chosen, n, m),
        }
    }
    chosen.sort_unstable();
    Ok(chosen)
}

/// Randomly pivoted Cholesky on the kernel matrix of a uniform pool of at
/// most [`RPC_POOL_PER_LANDMARK`] m rows: m pivots, each drawn with
/// probability proportional to the residual diagonal of K - F F' (F the
/// pool x t factor so far). Returns the pivots as row indices of `z`,
/// sorted ascending.
pub(crate) fn rp_cholesky(
    z: &[f64],
    d: usize,
    kernel: &Kernel64,
    m: usize,
    seed: u64,
) -> Result<Vec<usize>, FitError> {
    let n = z.len() / d.max(1);
    check_count(m, n)?;
    let mut rng = SeededRng::seed_from_u64(seed);
    let pool = candidate_pool(&mut rng, n, m)?;
    let points: Vec<f64> = pool
        .iter()
        .flat_map(|&i| z[i * d..(i + 1) * d].iter().copied())
        .collect();
    rp_cholesky_in_pool(&points, &pool, d, kernel, m, &mut rng)
}

/// The candidate rows of a pivoted-Cholesky (or streamed) landmark choice of
/// m among n rows: every row when there are at most
/// [`RPC_POOL_PER_LANDMARK`] m, else that many drawn uniformly from `rng`.
pub(crate) fn candidate_pool(
    rng: &mut SeededRng,
    n: usize,
    m: usize,
) -> Result<Vec<usize>, FitError> {
    let pool_size = n.min(m.saturating_mul(RPC_POOL_PER_LANDMARK));
    if pool_size == n {
        Ok((0..n).collect())
    } else {
        sample_landmarks(rng, n, pool_size)
    }
}

/// Randomly pivoted Cholesky on the rows `points` (row-major, d columns) of
/// the candidate rows `pool`, continuing `rng`: m pivots, returned as
/// entries of `pool`, sorted ascending.
pub(crate) fn rp_cholesky_in_pool(
    points: &[f64],
    pool: &[usize],
    d: usize,
    kernel: &Kernel64,
    m: usize,
    rng: &mut SeededRng,
) -> Result<Vec<usize>, FitError> {
    check_count(m, pool.len())?;
    let sq = sq_norms(points, d.max(1));
    let p = pool.len();
    let mut residual: Vec<f64> = sq.iter().map(|&s| kernel.self_eval(s)).collect();
    let mut factor: Vec<Vec<f64>> = Vec::with_capacity(m); // columns of F, each p long
    let mut chosen: Vec<usize> = Vec::with_capacity(m);
    while chosen.len() < m {
        let Some(piv) = draw(rng, &residual) else {
            let mut in_pool: Vec<usize> = chosen.clone();
            fill_in_order(&mut in_pool, p, m);
            chosen = in_pool;
            break;
        };
        let pivot_point = &points[piv * d..(piv + 1) * d];
        let mut g = cross_kernel(kernel, pivot_point, &sq[piv..piv + 1], points, d)?;
        for col in &factor {
            let f = col[piv];
            g.iter_mut().zip(col).for_each(|(gi, ci)| *gi -= ci * f);
        }
        let root = g[piv].max(0.0).sqrt();
        if root == 0.0 {
            residual[piv] = 0.0;
            continue;
        }
        g.iter_mut().for_each(|v| *v /= root);
        residual
            .iter_mut()
            .zip(&g)
            .for_each(|(r, gi)| *r = (*r - gi * gi).max(0.0));
        residual[piv] = 0.0;
        factor.push(g);
        chosen.push(piv);
    }
    let mut rows: Vec<usize> = chosen.iter().map(|&i| pool[i]).collect();
    rows.sort_unstable();
    Ok(rows)
}

/// [`FitError::BadLandmarkCount`] unless 1 <= m <= n.
fn check_count(m: usize, n: usize) -> Result<(), FitError> {
    if m == 0 || m > n {
        return Err(FitError::BadLandmarkCount {
            m,
            n_points: Some(n),
            n_components: None,
        });
    }
    Ok(())
}
