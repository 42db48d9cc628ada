//! Nyström kernel PCA in f64 (DESIGN.md section 3, Hallgren): two streamed
//! passes over K_nm around the eigendecomposition of an r x r matrix.

use crate::decomposition::{Decomposition, Spectrum};
use crate::driver::TrainingData;
use crate::eigen::{dense_top, descending_order, full_evd};
use crate::fitted::SolverReport;
use crate::kernel::{cross_kernel, sq_norms};
use crate::linalg::par;
use crate::params::ValidKernelPcaParams;
use crate::{FitError, FitWarning};
use nalgebra::{DMatrix, DVector};
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

/// Fits Nyström kernel PCA to the training data `train` with the checked
/// parameters and the given landmark rows; the driver applies the shared
/// post-processing.
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
pub(crate) fn fit(
    params: &ValidKernelPcaParams,
    train: &TrainingData,
    landmarks: &[usize],
) -> Result<Decomposition, FitError> {
    let p = params.params();
    let k = p.n_components;
    let lm = Landmarks::new(train, landmarks);
    let kmm = DMatrix::from_vec(lm.m, lm.m, lm.kernel_columns(train, &lm.points)?);
    let moments = first_pass(train, &lm, &kmm)?;
    let whitening = Whitening::new(kmm, &moments.n_mean, p.pinv_rtol)?;
    let mut warnings = Vec::new();
    let (negative_kmm, negative_centred_kmm) = whitening.negative;
    if negative_kmm + negative_centred_kmm > 0 {
        warnings.push(FitWarning::IndefiniteLandmarks {
            kernel: train.kernel.kind,
            negative_kmm,
            negative_centred_kmm,
        });
    }
    let eig = dense_top(n_matrix(&whitening.q, moments.scatter, train.n), k)?;
    let spectrum = Spectrum::check(eig.values, eig.all_values, k)?;
    let vk = eig.vectors; // r x k
    let (scores, t) = second_pass(train, &lm, &whitening, &moments.n_mean, &vk)?;
    let comp = row_major(&(&whitening.p * &vk)); // C = P V_k, m x k
    let a = whitening.a;
    let self_terms = sq_norms(&train.z, train.d)
        .iter()
        .zip(&t)
        .map(|(&sq, ti)| train.kernel.self_eval(sq) - 2.0 * ti + a)
        .collect();
    Ok(Decomposition {
        spectrum,
        scores,
        comp,
        self_terms,
        per_point: 1.0,
        points: lm.points,
        center: moments.n_mean,
        weights: whitening.m0,
        s: a,
        report: SolverReport::NystromDense,
        warnings,
    })
}

/// The landmarks: their (standardised) points, m x d row-major, and squared norms.
struct Landmarks {
    m: usize,
    points: Vec<f64>,
    sq: Vec<f64>,
}

impl Landmarks {
    fn new(train: &TrainingData, landmarks: &[usize]) -> Self {
        let d = train.d;
        let mut points = Vec::with_capacity(landmarks.len() * d);
        for &i in landmarks {
            points.extend_from_slice(&train.z[i * d..(i + 1) * d]);
        }
        let sq = sq_norms(&points, d);
        Landmarks {
            m: landmarks.len(),
            points,
            sq,
        }
    }

    /// k(landmark j, x_i) for the row-major points `xs`: column-major m x rows.
    fn kernel_columns(&self, train: &TrainingData, xs: &[f64]) -> Result<Vec<f64>, FitError> {
        cross_kernel(&train.kernel, &self.points, &self.sq, xs, train.d)
    }
}

/// What the first pass over K_nm gives: the data mean in the landmark features
/// and the scatter about it.
struct Moments {
    /// n_mean = (1/n) K_nm' 1.
    n_mean: Vec<f64>,
    /// S = sum_i (kappa_i - n_mean)(kappa_i - n_mean)', m x m, symmetric.
    scatter: DMatrix<f64>,
}

/// Pass 1: with the shift mu0 (the column means of K_mm), s1 = sum (kappa_i - mu0)
/// and the lower triangle of s2 = sum (kappa_i - mu0)(kappa_i - mu0)', block by
/// block; then n_mean = mu0 + s1 / n and S = s2 - s1 s1' / n.
fn first_pass(
    train: &TrainingData,
    lm: &Landmarks,
    kmm: &DMatrix<f64>,
) -> Result<Moments, FitError> {
    use faer::linalg::matmul::triangular::{self, BlockStructure};
    let m = lm.m;
    let mu0: Vec<f64> = kmm
        .column_iter()
        .map(|c| c.iter().sum::<f64>() / m.max(1) as f64)
        .collect();
    let mut s1 = vec![0.0; m];
    let mut s2 = DMatrix::<f64>::zeros(m, m);
    for block in train.z.chunks(train.d.max(1) * ROW_BLOCK) {
        let mut kb = lm.kernel_columns(train, block)?;
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
    let n_f = train.n as f64;
    let n_mean: Vec<f64> = mu0.iter().zip(&s1).map(|(mu, s)| mu + s / n_f).collect();
    // S = s2 - s1 s1' / n, made symmetric from its lower triangle.
    let scatter = DMatrix::from_fn(m, m, |i, j| {
        let (i, j) = if i >= j { (i, j) } else { (j, i) };
        s2[(i, j)] - s1[i] * s1[j] / n_f
    });
    Ok(Moments { n_mean, scatter })
}

/// The centring and whitening of the landmark features (DESIGN.md section 3).
struct Whitening {
    /// m0 = K_mm^+ n_mean.
    m0: Vec<f64>,
    /// a = n_mean' m0 (the model's s).
    a: f64,
    /// P = K'_mm^(-1/2), m x r.
    p: DMatrix<f64>,
    /// Q = M' P = P - m0 (1' P), M = I - 1 m0'.
    q: DMatrix<f64>,
    /// Eigenvalues of K_mm and of K'_mm below -rtol times the largest, dropped
    /// from the pseudo-inverses.
    negative: (usize, usize),
}

impl Whitening {
    fn new(kmm: DMatrix<f64>, n_mean: &[f64], rtol: f64) -> Result<Self, FitError> {
        // m0 = K_mm^+ n_mean.
        let (s_mm, v_mm, neg_mm) = sym_pinv_parts(kmm.clone(), rtol)?;
        let coeffs = v_mm.tr_mul(&DVector::from_column_slice(n_mean));
        let scaled =
            DVector::from_iterator(coeffs.len(), coeffs.iter().zip(&s_mm).map(|(c, s)| c / s));
        let m0: Vec<f64> = (&v_mm * scaled).iter().copied().collect();
        drop(v_mm);
        let a = n_mean.iter().zip(&m0).map(|(x, y)| x * y).sum::<f64>();

        // K'_mm = K_mm - 1 n_mean' - n_mean 1' + a 1 1', and P = K'_mm^(-1/2).
        let m = n_mean.len();
        let kmm_c = DMatrix::from_fn(m, m, |i, j| kmm[(i, j)] - n_mean[j] - n_mean[i] + a);
        drop(kmm);
        let (s_c, v_c, neg_c) = sym_pinv_parts(kmm_c, rtol)?;
        let mut p = v_c;
        for (mut col, &s) in p.column_iter_mut().zip(&s_c) {
            col /= s.sqrt();
        }
        let mut q = p.clone();
        for mut col in q.column_iter_mut() {
            let total: f64 = col.iter().sum();
            for (v, w) in col.iter_mut().zip(&m0) {
                *v -= w * total;
            }
        }
        Ok(Whitening {
            m0,
            a,
            p,
            q,
            negative: (neg_mm, neg_c),
        })
    }
}

/// N = Q' S Q / n (r x r), symmetrised.
fn n_matrix(q: &DMatrix<f64>, scatter: DMatrix<f64>, n: usize) -> DMatrix<f64> {
    let sq_prod = tr_mul_into(&scatter, q); // S Q (S symmetric)
    drop(scatter);
    let n_mat = tr_mul_into(q, &sq_prod) / n as f64;
    drop(sq_prod);
    (&n_mat + n_mat.transpose()) * 0.5
}

/// Pass 2: the training scores W_i = Q_k' (kappa_i - n_mean) (n x k row-major)
/// and t_i = m0' kappa_i = m0' (kappa_i - n_mean) + a, both from one product
/// with [Q_k | m0] per block.
fn second_pass(
    train: &TrainingData,
    lm: &Landmarks,
    whitening: &Whitening,
    n_mean: &[f64],
    vk: &DMatrix<f64>,
) -> Result<(Vec<f64>, Vec<f64>), FitError> {
    let (m, k) = (lm.m, vk.ncols());
    let mut qk_m0 = DMatrix::<f64>::zeros(m, k + 1);
    qk_m0.columns_mut(0, k).copy_from(&(&whitening.q * vk));
    qk_m0.column_mut(k).copy_from_slice(&whitening.m0);
    let mut scores = vec![0.0; train.n * k];
    let mut t = Vec::with_capacity(train.n);
    let mut wt = Vec::new();
    for (bi, block) in train.z.chunks(train.d.max(1) * ROW_BLOCK).enumerate() {
        let mut kb = lm.kernel_columns(train, block)?;
        let c = kb.len() / m.max(1);
        shift_columns(&mut kb, n_mean, false);
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
        let dst = &mut scores[start..start + c * k];
        for (out, col) in dst.chunks_exact_mut(k).zip(wt.chunks_exact(k + 1)) {
            out.copy_from_slice(&col[..k]);
            t.push(col[k] + whitening.a);
        }
    }
    Ok((scores, t))
}

/// The entries of `mat` in row-major order.
fn row_major(mat: &DMatrix<f64>) -> Vec<f64> {
    mat.transpose().as_slice().to_vec()
}
