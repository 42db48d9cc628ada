//! Nyström kernel PCA in f64 (DESIGN.md section 3, Hallgren): two streamed
//! passes over K_nm around the eigendecomposition of an r x r matrix.

use crate::data::TrainingData;
use crate::decomposition::SolverReport;
use crate::decomposition::{Decomposition, Spectrum};
use crate::eigen::{dense_top, descending_order, full_evd};
use crate::error::FitError;
use crate::kernel::Kernel64;
use crate::kernel::{cross_kernel, sq_norms};
use crate::linalg::{mul, par, Dense};
use crate::nystrom_sums::NystromSums;
use crate::params::ValidKernelPcaParams;
use crate::warning::FitWarning;
use faer::MatRef;
use std::vec;
use std::vec::Vec;

/// Training points per streamed block of K_nm (an m x ROW_BLOCK buffer).
pub(crate) const ROW_BLOCK: usize = 2048;

/// (a + a') / 2.
fn symmetrized(a: MatRef<'_, f64>) -> Dense {
    Dense::from_fn(a.nrows(), a.ncols(), |i, j| (a[(i, j)] + a[(j, i)]) * 0.5)
}

/// Eigendecomposition of the symmetric `sym` (consumed, so that its memory is
/// free before the caller's next step), keeping eigenvalues above `rtol` times
/// the largest. Returns (kept eigenvalues, their eigenvectors m x r, number of
/// eigenvalues below -rtol * largest).
fn sym_pinv_parts(sym: Dense, rtol: f64) -> Result<(Vec<f64>, Dense, usize), FitError> {
    let (values, vectors) = full_evd(sym.as_ref(), "dense (m x m)", par())?;
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
    let kept_vectors = Dense::from_fn(vectors.nrows(), keep.len(), |i, j| vectors[(i, keep[j])]);
    Ok((kept_values, kept_vectors, negative))
}

/// Subtracts `shift` from every m-long column of `cols` (in parallel) and, when
/// `sum` is set, returns the sum of the shifted columns (else an empty vector).
pub(crate) fn shift_columns(cols: &mut [f64], shift: &[f64], sum: bool) -> Vec<f64> {
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
    let d = train.d;
    let mut points = Vec::with_capacity(landmarks.len() * d);
    for &i in landmarks {
        points.extend_from_slice(&train.z[i * d..(i + 1) * d]);
    }
    let mut sums = NystromSums::with_points(train.kernel, points, d)?;
    sums.add(&train.z)?;
    // K_mm is not needed past the solve: handed over, not copied.
    let kmm = std::mem::take(&mut sums.kmm);
    let solved = Solved::new(&sums, kmm, k, p.pinv_rtol)?;
    let (scores, self_terms) = scores_and_self_terms(&train.kernel, &sums.lm, &solved, &train.z)?;
    let comp = solved.components();
    let whitening = solved.whitening;
    let a = whitening.a;
    Ok(Decomposition {
        spectrum: solved.spectrum,
        scores,
        comp,
        self_terms,
        points: sums.lm.points,
        center: solved.n_mean,
        weights: whitening.m0,
        s: a,
        report: SolverReport::NystromDense,
        warnings: solved.warnings,
    })
}

/// What the first pass's sums give, solved: the centring and whitening, the
/// top k eigenpairs of N and the warnings (shared by the fit and
/// [`NystromSums::finish`]).
#[derive(Debug)]
pub(crate) struct Solved {
    /// n_mean = (1/n) K_nm' 1.
    pub n_mean: Vec<f64>,
    /// The centring and whitening of the landmark features.
    pub whitening: Whitening,
    /// The kept eigenvalues mu = n lambda, checked.
    pub spectrum: Spectrum,
    /// V_k, r x k column-major.
    pub vk: Vec<f64>,
    /// r, the rank kept by the whitening.
    pub r: usize,
    /// Indefinite landmark matrices.
    pub warnings: Vec<FitWarning>,
}

impl Solved {
    /// V_k, r x k.
    pub fn vk_matrix(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.vk, self.r, self.spectrum.values().len())
    }

    /// The components C = P V_k, m x k row-major (signs as solved).
    pub fn components(&self) -> Vec<f64> {
        row_major(mul(self.whitening.p.as_ref(), self.vk_matrix()).as_ref())
    }

    /// From the sums over the n training rows and their K_mm (`kmm`,
    /// consumed: the fit hands over its own, `finish` a copy), for k
    /// components.
    pub fn new(
        sums: &NystromSums,
        kmm: Vec<f64>,
        k: usize,
        pinv_rtol: f64,
    ) -> Result<Solved, FitError> {
        let moments = sums.moments()?;
        let whitening = Whitening::new(kmm, &moments.n_mean, pinv_rtol)?;
        let mut warnings = Vec::new();
        let (negative_kmm, negative_centred_kmm) = whitening.negative;
        if negative_kmm + negative_centred_kmm > 0 {
            warnings.push(FitWarning::IndefiniteLandmarks {
                kernel: sums.kernel.kind,
                negative_kmm,
                negative_centred_kmm,
            });
        }
        let r = whitening.q.ncols();
        let n = sums.n;
        let eig = dense_top(n_matrix(whitening.q.as_ref(), moments.scatter, n), r, k)?;
        // N's eigenvalues lambda are score variances; the fit reports mu = n lambda,
        // the eigenvalues of the Nystrom approximation of the centred n x n kernel
        // matrix (the convention of a full fit and of scikit-learn's eigenvalues_).
        let n_f = n as f64;
        let to_mu = |v: Vec<f64>| -> Vec<f64> { v.into_iter().map(|l| l * n_f).collect() };
        let spectrum = Spectrum::check(to_mu(eig.values), eig.all_values.map(to_mu), k)?;
        Ok(Solved {
            n_mean: moments.n_mean,
            whitening,
            spectrum,
            vk: eig.vectors,
            r,
            warnings,
        })
    }
}

/// The landmarks: their (standardised) points, m x d row-major, and squared norms.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Landmarks {
    pub m: usize,
    pub d: usize,
    pub points: Vec<f64>,
    pub sq: Vec<f64>,
}

impl Landmarks {
    /// The landmarks `points` (m x d row-major).
    pub fn from_points(points: Vec<f64>, d: usize) -> Self {
        let sq = sq_norms(&points, d.max(1));
        Landmarks {
            m: points.len() / d.max(1),
            d,
            points,
            sq,
        }
    }

    /// k(landmark j, x_i) for the row-major points `xs`: column-major m x rows.
    pub fn kernel_columns(&self, kernel: &Kernel64, xs: &[f64]) -> Result<Vec<f64>, FitError> {
        cross_kernel(kernel, &self.points, &self.sq, xs, self.d)
    }
}

/// The centring and whitening of the landmark features (DESIGN.md section 3).
#[derive(Debug)]
pub(crate) struct Whitening {
    /// m0 = K_mm^+ n_mean.
    pub m0: Vec<f64>,
    /// a = n_mean' m0 (the model's s).
    pub a: f64,
    /// P = K'_mm^(-1/2), m x r.
    pub p: Dense,
    /// Q = M' P = P - m0 (1' P), M = I - 1 m0'.
    pub q: Dense,
    /// Eigenvalues of K_mm and of K'_mm below -rtol times the largest, dropped
    /// from the pseudo-inverses.
    pub negative: (usize, usize),
}

impl Whitening {
    /// From K_mm (column-major m x m, consumed) and n_mean.
    fn new(kmm: Vec<f64>, n_mean: &[f64], rtol: f64) -> Result<Self, FitError> {
        let m = n_mean.len();
        let kmm_ref = MatRef::from_column_major_slice(&kmm, m, m);
        // m0 = K_mm^+ n_mean = V diag(1/s) V' n_mean.
        let (s_mm, v_mm, neg_mm) = sym_pinv_parts(symmetrized(kmm_ref), rtol)?;
        let mut coeffs = mul(
            v_mm.as_ref().transpose(),
            MatRef::from_column_major_slice(n_mean, m, 1),
        );
        for (j, s) in s_mm.iter().enumerate() {
            coeffs[(j, 0)] /= s;
        }
        let m0: Vec<f64> = mul(v_mm.as_ref(), coeffs.as_ref()).into_vec();
        drop(v_mm);
        let a = n_mean.iter().zip(&m0).map(|(x, y)| x * y).sum::<f64>();

        // K'_mm = K_mm - 1 n_mean' - n_mean 1' + a 1 1' (symmetrised), and
        // P = K'_mm^(-1/2).
        let centred = |i: usize, j: usize| kmm_ref[(i, j)] - n_mean[j] - n_mean[i] + a;
        let kmm_c = Dense::from_fn(m, m, |i, j| (centred(i, j) + centred(j, i)) * 0.5);
        drop(kmm);
        let (s_c, mut p, neg_c) = sym_pinv_parts(kmm_c, rtol)?;
        for (j, &s) in s_c.iter().enumerate() {
            let root = s.sqrt();
            p.col_mut(j).iter_mut().for_each(|v| *v /= root);
        }
        let mut q = p.clone();
        for j in 0..q.ncols() {
            let total: f64 = q.col(j).iter().sum();
            for (v, w) in q.col_mut(j).iter_mut().zip(&m0) {
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

/// N = Q' S Q / n (r x r), symmetrised, as a column-major buffer.
fn n_matrix(q: MatRef<'_, f64>, scatter: Dense, n: usize) -> Vec<f64> {
    let sq_prod = mul(scatter.as_ref().transpose(), q); // S Q (S symmetric)
    drop(scatter);
    let n_mat = mul(q.transpose(), sq_prod.as_ref());
    drop(sq_prod);
    let (r, n_f) = (n_mat.nrows(), n as f64);
    (0..r * r)
        .map(|idx| {
            let (i, j) = (idx % r, idx / r);
            (n_mat[(i, j)] / n_f + n_mat[(j, i)] / n_f) * 0.5
        })
        .collect()
}

/// Pass 2: the scores W_i = Q_k' (kappa_i - n_mean) of the rows `z` (n x k
/// row-major) and their self terms k(x_i, x_i) - 2 t_i + a, the anomaly
/// score plus ‖W_i‖², with t_i = m0' kappa_i = m0' (kappa_i - n_mean) + a;
/// W and t from one product with [Q_k | m0] per block.
pub(crate) fn scores_and_self_terms(
    kernel: &Kernel64,
    lm: &Landmarks,
    solved: &Solved,
    z: &[f64],
) -> Result<(Vec<f64>, Vec<f64>), FitError> {
    let vk = solved.vk_matrix();
    let whitening = &solved.whitening;
    let (m, k) = (lm.m, vk.ncols());
    let n = z.len() / lm.d.max(1);
    let qk = mul(whitening.q.as_ref(), vk);
    let qk_m0 = Dense::from_fn(
        m,
        k + 1,
        |i, j| if j < k { qk[(i, j)] } else { whitening.m0[i] },
    );
    let mut scores = vec![0.0; n * k];
    let mut t = Vec::with_capacity(n);
    let mut wt = Vec::new();
    for (bi, block) in z.chunks(lm.d.max(1) * ROW_BLOCK).enumerate() {
        let mut kb = lm.kernel_columns(kernel, block)?;
        let c = kb.len() / m.max(1);
        shift_columns(&mut kb, &solved.n_mean, false);
        wt.clear();
        wt.resize((k + 1) * c, 0.0);
        faer::linalg::matmul::matmul(
            faer::MatMut::from_column_major_slice_mut(&mut wt, k + 1, c),
            faer::Accum::Replace,
            qk_m0.as_ref().transpose(),
            MatRef::from_column_major_slice(&kb, m, c),
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
    let a = whitening.a;
    let self_terms = sq_norms(z, lm.d.max(1))
        .iter()
        .zip(&t)
        .map(|(&sq, ti)| kernel.self_eval(sq) - 2.0 * ti + a)
        .collect();
    Ok((scores, self_terms))
}

/// The entries of `mat` in row-major order.
pub(crate) fn row_major(mat: MatRef<'_, f64>) -> Vec<f64> {
    (0..mat.nrows())
        .flat_map(|i| (0..mat.ncols()).map(move |j| mat[(i, j)]))
        .collect()
}
