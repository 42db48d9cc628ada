//! Nyström kernel PCA in f64 (DESIGN.md section 3, Hallgren).

use super::eigen::{dense_top, descending_order, full_evd};
use super::fitted::FitCore;
use super::kernel::{cross_kernel, sq_norms, Kernel64};
use super::linalg::par;
use super::{FitError, POSITIVE_EIG_REL_TOL};
use nalgebra::{DMatrix, DVector};
use std::format;
use std::string::String;
use std::vec;
use std::vec::Vec;

/// Training points per streamed block of K_nm (an m x ROW_BLOCK buffer).
const ROW_BLOCK: usize = 2048;

/// Eigendecomposition of the symmetrised `m`, keeping eigenvalues above
/// `rtol` times the largest. Returns (kept eigenvalues, their eigenvectors m x r,
/// number of eigenvalues below -rtol * largest).
fn sym_pinv_parts(m: DMatrix<f64>, rtol: f64) -> Result<(Vec<f64>, DMatrix<f64>, usize), FitError> {
    let sym = (&m + m.transpose()) * 0.5;
    drop(m);
    let (values, vectors) = full_evd(&sym)?;
    drop(sym);
    let largest = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if largest.is_nan() || largest <= 0.0 {
        return Err(FitError::SingularLandmarks);
    }
    let cut = rtol * largest;
    let keep: Vec<usize> = descending_order(&values)
        .into_iter()
        .filter(|&i| values[i] > cut)
        .collect();
    let negative = values.iter().filter(|&&v| v < -cut).count();
    let kept_values = keep.iter().map(|&i| values[i]).collect();
    Ok((kept_values, vectors.select_columns(&keep), negative))
}

/// Subtracts `shift` from every m-long column of `cols` (in parallel) and, when
/// `sum` is set, returns the sum of the shifted columns (else an empty vector).
fn shift_columns(cols: &mut [f64], shift: &[f64], sum: bool) -> Vec<f64> {
    use rayon::prelude::*;
    let m = shift.len();
    if m == 0 {
        return Vec::new();
    }
    let zero = || if sum { vec![0.0; m] } else { Vec::new() };
    cols.par_chunks_mut(m * 64)
        .fold(zero, |mut acc, group| {
            for col in group.chunks_exact_mut(m) {
                col.iter_mut().zip(shift).for_each(|(v, s)| *v -= s);
                acc.iter_mut().zip(col.iter()).for_each(|(a, v)| *a += v);
            }
            acc
        })
        .reduce(zero, |mut a, b| {
            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
            a
        })
}

/// lhs' rhs (lhs rows x a, rhs rows x b), one parallel matrix product.
fn tr_mul_into(lhs: &DMatrix<f64>, rhs: &DMatrix<f64>) -> DMatrix<f64> {
    let mut out = DMatrix::<f64>::zeros(lhs.ncols(), rhs.ncols());
    faer::linalg::matmul::matmul(
        faer::MatMut::from_column_major_slice_mut(out.as_mut_slice(), lhs.ncols(), rhs.ncols()),
        faer::Accum::Replace,
        faer::MatRef::from_column_major_slice(lhs.as_slice(), lhs.nrows(), lhs.ncols()).transpose(),
        faer::MatRef::from_column_major_slice(rhs.as_slice(), rhs.nrows(), rhs.ncols()),
        1.0,
        par(),
    );
    out
}

/// Fits Nyström kernel PCA with the given landmark rows of the (standardised)
/// row-major points `z` (n x d).
///
/// Memory O(m² + m · ROW_BLOCK + n k): K_nm is never stored. It is computed in
/// blocks of [`ROW_BLOCK`] training points, twice:
/// 1. the first pass accumulates, for kappa_i = k(X_S, x_i) shifted by mu0 (the
///    mean kernel row of the landmarks, close to the data mean, which keeps the
///    cancellation below small), s1 = sum (kappa_i - mu0) and
///    s2 = sum (kappa_i - mu0)(kappa_i - mu0)' (one triangle, a matrix product per
///    block); then n_mean = mu0 + s1 / n and the scatter about the mean is
///    S = s2 - s1 s1' / n. With M = I - 1 m0', the centred rows are
///    K'_nm' e_i = M (kappa_i - n_mean), so K'_nm' K'_nm = M S M' and
///    N = Q' S Q / n with Q = M' K'_mm^(-1/2) (m x r);
/// 2. the second pass computes the training scores
///    W_i = C' M (kappa_i - n_mean) = Q_k' (kappa_i - n_mean) and m0' kappa_i.
pub(crate) fn fit_nystrom(
    z: &[f64],
    d: usize,
    kernel: &Kernel64,
    k: usize,
    landmarks: &[usize],
    pinv_rtol: f64,
    warnings: &mut Vec<String>,
) -> Result<FitCore, FitError> {
    use faer::linalg::matmul::triangular::{self, BlockStructure};
    let n = z.len() / d.max(1);
    let m = landmarks.len();
    let mut points = Vec::with_capacity(m * d);
    for &i in landmarks {
        points.extend_from_slice(&z[i * d..(i + 1) * d]);
    }
    let point_sq = sq_norms(&points, d);
    let data_sq = sq_norms(z, d);
    let kdiag: Vec<f64> = data_sq.iter().map(|&s| kernel.self_eval(s)).collect();
    drop(data_sq);

    // K_mm, and the shift mu0 (its column means).
    let kmm = DMatrix::from_vec(m, m, cross_kernel(kernel, &points, &point_sq, &points, d)?);
    let mu0: Vec<f64> = kmm
        .column_iter()
        .map(|c| c.iter().sum::<f64>() / m.max(1) as f64)
        .collect();

    // Pass 1: s1 and the lower triangle of s2.
    let mut s1 = vec![0.0; m];
    let mut s2 = DMatrix::<f64>::zeros(m, m);
    for block in z.chunks(d.max(1) * ROW_BLOCK) {
        let mut kb = cross_kernel(kernel, &points, &point_sq, block, d)?;
        let c = kb.len() / m.max(1);
        let block_sum = shift_columns(&mut kb, &mu0, true);
        s1.iter_mut().zip(&block_sum).for_each(|(a, b)| *a += b);
        let kbm = faer::MatRef::from_column_major_slice(&kb, m, c);
        triangular::matmul(
            faer::MatMut::from_column_major_slice_mut(s2.as_mut_slice(), m, m),
            BlockStructure::TriangularLower,
            faer::Accum::Add,
            kbm,
            BlockStructure::Rectangular,
            kbm.transpose(),
            BlockStructure::Rectangular,
            1.0,
            par(),
        );
    }
    let n_f = n as f64;
    let n_mean: Vec<f64> = mu0.iter().zip(&s1).map(|(mu, s)| mu + s / n_f).collect();
    // S = s2 - s1 s1' / n, made symmetric from its lower triangle.
    let scatter = DMatrix::from_fn(m, m, |i, j| {
        let (i, j) = if i >= j { (i, j) } else { (j, i) };
        s2[(i, j)] - s1[i] * s1[j] / n_f
    });
    drop(s2);

    // m0 = K_mm^+ n_mean.
    let (s_mm, v_mm, neg_mm) = sym_pinv_parts(kmm.clone(), pinv_rtol)?;
    let n_mean_v = DVector::from_column_slice(&n_mean);
    let coeffs = v_mm.tr_mul(&n_mean_v);
    let scaled = DVector::from_iterator(coeffs.len(), coeffs.iter().zip(&s_mm).map(|(c, s)| c / s));
    let m0v = &v_mm * scaled;
    drop(v_mm);
    let m0: Vec<f64> = m0v.iter().copied().collect();
    let a = n_mean.iter().zip(&m0).map(|(x, y)| x * y).sum::<f64>();

    // K'_mm = K_mm - 1 n_mean' - n_mean 1' + a 1 1', and P = K'_mm^(-1/2) (m x r).
    let kmm_c = DMatrix::from_fn(m, m, |i, j| kmm[(i, j)] - n_mean[j] - n_mean[i] + a);
    drop(kmm);
    let (s_c, v_c, neg_c) = sym_pinv_parts(kmm_c, pinv_rtol)?;
    if neg_mm + neg_c > 0 {
        warnings.push(format!(
            "the kernel matrix of the landmarks is indefinite ({} kernel): {neg_mm} negative \
             eigenvalues of K_mm and {neg_c} of the centred K'_mm are dropped from their \
             pseudo-inverses",
            kernel.kind.name()
        ));
    }
    let mut p_mat = v_c;
    for (mut col, &s) in p_mat.column_iter_mut().zip(&s_c) {
        col /= s.sqrt();
    }
    // Q = M' P = P - m0 (1' P).
    let mut q_mat = p_mat.clone();
    for mut col in q_mat.column_iter_mut() {
        let total: f64 = col.iter().sum();
        for (v, w) in col.iter_mut().zip(&m0) {
            *v -= w * total;
        }
    }

    // N = Q' S Q / n (r x r).
    let sq_prod = tr_mul_into(&scatter, &q_mat); // S Q (S symmetric)
    drop(scatter);
    let n_mat = tr_mul_into(&q_mat, &sq_prod) / n_f;
    drop(sq_prod);
    let n_sym = (&n_mat + n_mat.transpose()) * 0.5;
    drop(n_mat);
    let eig = dense_top(n_sym, k)?;
    let all = eig.all_values.unwrap_or_default();
    let reference = all.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
    let threshold = POSITIVE_EIG_REL_TOL * reference;
    let positive = all.iter().filter(|&&v| v > threshold).count();
    if eig.values.len() < k || eig.values.iter().any(|&v| v <= threshold) {
        return Err(FitError::TooManyComponents {
            requested: k,
            positive,
            examined: all.len(),
        });
    }
    let vk = eig.vectors; // r x k
    let qk = &q_mat * &vk; // m x k
    drop(q_mat);

    // Pass 2: training scores W_i = Q_k' (kappa_i - n_mean) (k x n column-major =
    // n x k row-major) and t_i = m0' kappa_i = m0' (kappa_i - n_mean) + a, both
    // from one product with [Q_k | m0].
    let mut qk_m0 = DMatrix::<f64>::zeros(m, k + 1);
    qk_m0.columns_mut(0, k).copy_from(&qk);
    qk_m0.column_mut(k).copy_from_slice(&m0);
    let mut w = DMatrix::<f64>::zeros(k, n);
    let mut t = Vec::with_capacity(n);
    let mut wt = Vec::new();
    for (bi, block) in z.chunks(d.max(1) * ROW_BLOCK).enumerate() {
        let mut kb = cross_kernel(kernel, &points, &point_sq, block, d)?;
        let c = kb.len() / m.max(1);
        shift_columns(&mut kb, &n_mean, false);
        wt.clear();
        wt.resize((k + 1) * c, 0.0);
        faer::linalg::matmul::matmul(
            faer::MatMut::from_column_major_slice_mut(&mut wt, k + 1, c),
            faer::Accum::Replace,
            faer::MatRef::from_column_major_slice(qk_m0.as_slice(), m, k + 1).transpose(),
            faer::MatRef::from_column_major_slice(&kb, m, c),
            1.0,
            par(),
        );
        let start = bi * ROW_BLOCK * k;
        let dst = &mut w.as_mut_slice()[start..start + c * k];
        for (out, col) in dst.chunks_exact_mut(k).zip(wt.chunks_exact(k + 1)) {
            let (scores, last) = col.split_at(k);
            out.copy_from_slice(scores);
            t.push(last[0] + a);
        }
    }
    let mut comp_mat = &p_mat * &vk; // C, m x k
                                     // Sign rule on the score columns W_l (sklearn's rule; for m = n, W_l = sqrt(mu) u_l).
    for (l, mut row) in w.row_iter_mut().enumerate() {
        let mut best = 0.0f64;
        let mut sign = 1.0;
        for &v in row.iter() {
            if v.abs() > best {
                best = v.abs();
                sign = if v < 0.0 { -1.0 } else { 1.0 };
            }
        }
        if sign < 0.0 {
            row.neg_mut();
            comp_mat.column_mut(l).neg_mut();
        }
    }
    let train_scores: Vec<f64> = w.as_slice().to_vec();
    let mut comp = vec![0.0; m * k];
    for ((i, l), &v) in (0..k)
        .flat_map(|l| (0..m).map(move |i| (i, l)))
        .zip(comp_mat.iter())
    {
        comp[i * k + l] = v;
    }

    let base: Vec<f64> = kdiag
        .iter()
        .zip(&t)
        .map(|(kd, ti)| kd - 2.0 * ti + a)
        .collect();
    let train_anomaly: Vec<f64> = train_scores
        .chunks_exact(k)
        .zip(&base)
        .map(|(y, b0)| b0 - y.iter().map(|v| v * v).sum::<f64>())
        .collect();
    let eigenvalues: Vec<f64> = eig.values;
    // Scaled by the largest eigenvalue: the sum can overflow where the values do not.
    let scale = eigenvalues
        .first()
        .copied()
        .filter(|v| *v > 0.0)
        .unwrap_or(1.0);
    let total: f64 = all.iter().filter(|&&v| v > 0.0).map(|v| v / scale).sum();
    let explained_variance_ratio = eigenvalues.iter().map(|l| (l / scale) / total).collect();
    let mut remaining = base.iter().sum::<f64>() / n as f64;
    let mut curve = Vec::with_capacity(k);
    for lam in &eigenvalues {
        remaining -= lam;
        curve.push(remaining);
    }
    Ok(FitCore {
        points,
        comp,
        center: n_mean,
        weights: m0,
        s: a,
        eigenvalues,
        all_eigenvalues: Some(all),
        explained_variance_ratio,
        train_scores,
        train_anomaly,
        curve,
    })
}
