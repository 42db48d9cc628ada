//! Nyström kernel PCA in f64 (DESIGN.md section 3, Hallgren).

use super::eigen::{dense_top, descending_order};
use super::fitted::FitCore;
use super::kernel::{cross_kernel, sq_norms, Kernel64};
use super::{FitError, POSITIVE_EIG_REL_TOL};
use nalgebra::{DMatrix, DMatrixView, DMatrixViewMut, DVector, SymmetricEigen};
use rayon::prelude::*;
use std::format;
use std::string::String;
use std::vec;
use std::vec::Vec;

/// Columns (training points) per parallel task when forming B and N.
const COLUMN_BLOCK: usize = 256;

/// Eigendecomposition of the symmetrised `m`, keeping eigenvalues above
/// `rtol` times the largest. Returns (kept eigenvalues, their eigenvectors m x r,
/// number of eigenvalues below -rtol * largest).
fn sym_pinv_parts(m: DMatrix<f64>, rtol: f64) -> Result<(Vec<f64>, DMatrix<f64>, usize), FitError> {
    let sym = (&m + m.transpose()) * 0.5;
    drop(m);
    let eig = SymmetricEigen::try_new(sym, f64::EPSILON, 0).ok_or(FitError::NotConverged {
        solver: "dense (Nyström pseudo-inverse)",
        iterations: 0,
        residual: f64::NAN,
    })?;
    let values = eig.eigenvalues.as_slice();
    let largest = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if largest.is_nan() || largest <= 0.0 {
        return Err(FitError::SingularLandmarks);
    }
    let cut = rtol * largest;
    let keep: Vec<usize> = descending_order(values)
        .into_iter()
        .filter(|&i| values.get(i).is_some_and(|&v| v > cut))
        .collect();
    let negative = values.iter().filter(|&&v| v < -cut).count();
    let kept_values = keep
        .iter()
        .filter_map(|&i| values.get(i).copied())
        .collect();
    Ok((
        kept_values,
        eig.eigenvectors.select_columns(&keep),
        negative,
    ))
}

/// Fits Nyström kernel PCA with the given landmark rows of the (standardised)
/// row-major points `z` (n x d).
///
/// Memory O(n m): the m x n matrix K_nm' is built in parallel blocks of points and
/// centred in place; B = K'_mm^(-1/2) K'_nm' (r x n, r <= m kept directions) is
/// formed block by block, after which K_nm' is freed; N = B B' / n is accumulated
/// over blocks of points. N's eigenvalues are computed as the squared singular
/// values of B / sqrt(n) would be, without squaring K'_mm^(-1/2) K'_nm' K'_nm K'_mm^(-1/2)
/// explicitly, which keeps the error of the small directions of K'_mm from growing.
pub(crate) fn fit_nystrom(
    z: &[f64],
    d: usize,
    kernel: &Kernel64,
    k: usize,
    landmarks: &[usize],
    pinv_rtol: f64,
    warnings: &mut Vec<String>,
) -> Result<FitCore, FitError> {
    let n = z.len() / d.max(1);
    let m = landmarks.len();
    let mut points = Vec::with_capacity(m * d);
    for &i in landmarks {
        let row = z
            .get(i * d..(i + 1) * d)
            .ok_or(FitError::BadLandmarkIndex {
                index: i,
                n_points: n,
                duplicate: false,
            })?;
        points.extend_from_slice(row);
    }
    let point_sq = sq_norms(&points, d);
    let data_sq = sq_norms(z, d);
    // K_nm' (m x n, column-major): column i is kappa(x_i).
    let mut kmn = cross_kernel(kernel, &points, &point_sq, z, d)?;
    let kdiag: Vec<f64> = data_sq.iter().map(|&s| kernel.self_eval(s)).collect();

    // n_mean = K_nm' 1 / n.
    let n_mean: Vec<f64> = kmn
        .par_chunks(m * COLUMN_BLOCK)
        .map(|cols| {
            let mut acc = vec![0.0; m];
            for col in cols.chunks_exact(m) {
                for (a, v) in acc.iter_mut().zip(col) {
                    *a += v;
                }
            }
            acc
        })
        .reduce(
            || vec![0.0; m],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    *x += y;
                }
                a
            },
        )
        .into_iter()
        .map(|v| v / n as f64)
        .collect();

    // K_mm: the landmark columns of K_nm'.
    let mut kmm = DMatrix::<f64>::zeros(m, m);
    for (j, &i) in landmarks.iter().enumerate() {
        if let Some(col) = kmn.get(i * m..(i + 1) * m) {
            kmm.column_mut(j).copy_from_slice(col);
        }
    }

    // m0 = K_mm^+ n_mean.
    let (s_mm, v_mm, neg_mm) = sym_pinv_parts(kmm.clone(), pinv_rtol)?;
    let n_mean_v = DVector::from_column_slice(&n_mean);
    let coeffs = v_mm.tr_mul(&n_mean_v);
    let scaled = DVector::from_iterator(coeffs.len(), coeffs.iter().zip(&s_mm).map(|(c, s)| c / s));
    let m0v = &v_mm * scaled;
    let m0: Vec<f64> = m0v.iter().copied().collect();
    let a = n_mean.iter().zip(&m0).map(|(x, y)| x * y).sum::<f64>();

    // t_i = m0' kappa(x_i), then centre K_nm' in place:
    // K'_nm' column i = kappa(x_i) - n_mean - (t_i - a) 1.
    let t: Vec<f64> = kmn
        .par_chunks_mut(m)
        .map(|col| {
            let ti = col.iter().zip(&m0).map(|(x, y)| x * y).sum::<f64>();
            let shift = ti - a;
            for (v, nm) in col.iter_mut().zip(&n_mean) {
                *v = *v - nm - shift;
            }
            ti
        })
        .collect();

    // K'_mm = K_mm - 1 n_mean' - n_mean 1' + a 1 1', and P = K'_mm^(-1/2) (m x r).
    let kmm_c = DMatrix::from_fn(m, m, |i, j| {
        kmm.get((i, j)).copied().unwrap_or(0.0)
            - n_mean.get(j).copied().unwrap_or(0.0)
            - n_mean.get(i).copied().unwrap_or(0.0)
            + a
    });
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
    let r = s_c.len();
    let mut p_mat = v_c;
    for (mut col, &s) in p_mat.column_iter_mut().zip(&s_c) {
        col /= s.sqrt();
    }

    // B = P' K'_nm' (r x n), block by block; then free K_nm'.
    let mut b = vec![0.0; r * n];
    b.par_chunks_mut(r.max(1) * COLUMN_BLOCK)
        .zip(kmn.par_chunks(m * COLUMN_BLOCK))
        .for_each(|(out, cols)| {
            let c = cols.len() / m;
            let src = DMatrixView::from_slice(cols, m, c);
            let mut dst = DMatrixViewMut::from_slice(out, r, c);
            dst.gemm_tr(1.0, &p_mat, &src, 0.0);
        });
    drop(kmn);

    // N = B B' / n (r x r), accumulated over blocks of points.
    let n_mat = b
        .par_chunks(r.max(1) * COLUMN_BLOCK)
        .map(|cols| {
            let c = cols.len() / r.max(1);
            let v = DMatrixView::from_slice(cols, r, c);
            let mut acc = DMatrix::<f64>::zeros(r, r);
            acc.gemm(1.0, &v, &v.transpose(), 0.0);
            acc
        })
        .reduce(|| DMatrix::<f64>::zeros(r, r), |x, y| x + y)
        / n as f64;
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

    // Training scores W = K'_nm C = B' V_k: as V_k' B (k x n column-major = n x k row-major).
    let b_view = DMatrixView::from_slice(&b, r, n);
    let mut w = vk.tr_mul(&b_view);
    drop(b);
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
        if let Some(c) = comp.get_mut(i * k + l) {
            *c = v;
        }
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
    let total: f64 = all.iter().filter(|&&v| v > 0.0).sum();
    let explained_variance_ratio = eigenvalues.iter().map(|l| l / total).collect();
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
