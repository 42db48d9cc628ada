//! Kernels in f64 for the fit (scikit-learn's definitions, names and defaults) and
//! the blocked, parallel kernel-matrix builders.

use super::vexp::rbf_column;
use crate::error::FitError;
use kpca_core::kernel::{Kernel, MAX_DEGREE};
pub use kpca_core::kernel::{KernelId, ParamSet};
use rayon::prelude::*;
use std::vec;
use std::vec::Vec;

/// A kernel and its parameters as given to the fit, with scikit-learn's defaults:
/// gamma `None` means 1/d (d = number of input features), degree 3, coef0 1.
///
/// ```
/// use kpca_fit::{KernelId, KernelSpec};
/// let k = KernelSpec::rbf(0.5);
/// assert_eq!(k.gamma, Some(0.5));
/// let d = KernelSpec::rbf(None); // gamma = 1/d at fit time
/// assert_eq!(d.gamma, None);
/// let p = KernelSpec::from_name("poly").unwrap();
/// assert_eq!((p.kind, p.degree, p.coef0), (KernelId::Polynomial, 3, 1.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelSpec {
    /// The kernel, from the core's vocabulary ([`KernelId::from_name`] reads
    /// scikit-learn's names).
    pub kind: KernelId,
    /// gamma, or `None` for 1/d. Ignored by linear and cosine.
    pub gamma: Option<f64>,
    /// Polynomial degree (poly only), 1..=[`MAX_DEGREE`].
    pub degree: u32,
    /// Additive constant (poly and sigmoid).
    pub coef0: f64,
}

impl Default for KernelSpec {
    /// scikit-learn's `KernelPCA` default kernel is linear.
    fn default() -> Self {
        KernelSpec::linear()
    }
}

impl KernelSpec {
    /// A kernel of this kind with scikit-learn's defaults (gamma 1/d, degree 3, coef0 1).
    pub const fn new(kind: KernelId) -> Self {
        KernelSpec {
            kind,
            gamma: None,
            degree: 3,
            coef0: 1.0,
        }
    }
    /// The kernel with this scikit-learn name (or alias, see
    /// [`KernelId::from_name`]), with default parameters.
    pub fn from_name(name: &str) -> Option<Self> {
        KernelId::from_name(name).map(KernelSpec::new)
    }
    /// x'z.
    pub const fn linear() -> Self {
        KernelSpec::new(KernelId::Linear)
    }
    /// x'z / (‖x‖ ‖z‖).
    pub const fn cosine() -> Self {
        KernelSpec::new(KernelId::Cosine)
    }
    /// exp(-gamma ‖x - z‖²); `None` for gamma = 1/d.
    pub fn rbf(gamma: impl Into<Option<f64>>) -> Self {
        KernelSpec::new(KernelId::Rbf).with_gamma(gamma)
    }
    /// exp(-gamma ‖x - z‖₁); `None` for gamma = 1/d.
    pub fn laplacian(gamma: impl Into<Option<f64>>) -> Self {
        KernelSpec::new(KernelId::Laplacian).with_gamma(gamma)
    }
    /// (gamma x'z + coef0)^degree; `None` for gamma = 1/d.
    pub fn poly(gamma: impl Into<Option<f64>>, degree: u32, coef0: f64) -> Self {
        KernelSpec {
            kind: KernelId::Polynomial,
            gamma: gamma.into(),
            degree,
            coef0,
        }
    }
    /// tanh(gamma x'z + coef0); `None` for gamma = 1/d.
    pub fn sigmoid(gamma: impl Into<Option<f64>>, coef0: f64) -> Self {
        KernelSpec {
            kind: KernelId::Sigmoid,
            gamma: gamma.into(),
            degree: 3,
            coef0,
        }
    }
    /// The same kernel with another gamma.
    pub fn with_gamma(mut self, gamma: impl Into<Option<f64>>) -> Self {
        self.gamma = gamma.into();
        self
    }

    /// Checks the parameters the kernel uses ([`KernelId::uses`]; the others
    /// are ignored, as scikit-learn ignores them) in f64: gamma (when given)
    /// finite and > 0, degree 1..=[`MAX_DEGREE`], coef0 finite.
    /// [`KernelPcaParams::check`] runs it. The other check of a kernel on the
    /// host is the device model's, in f32 ([`KernelId::invalid`]), when the
    /// fitted model is exported: an f64 fit may use a gamma that rounds to 0
    /// in f32, and then has no device model.
    ///
    /// [`KernelPcaParams::check`]: crate::KernelPcaParams::check
    pub fn check(&self) -> Result<(), FitError> {
        let uses = self.kind.uses();
        match self.gamma {
            Some(g) if uses.gamma && !(g.is_finite() && g > 0.0) => Err(FitError::BadGamma(g)),
            _ if uses.degree && !(1..=MAX_DEGREE).contains(&self.degree) => {
                Err(FitError::BadDegree(self.degree))
            }
            _ if uses.coef0 && !self.coef0.is_finite() => Err(FitError::BadCoef0(self.coef0)),
            _ => Ok(()),
        }
    }

    /// Checks what the device model will hold of the parameters: the core's
    /// rule ([`KernelId::invalid`]) on their rounding to f32 (gamma when
    /// given: 1/d always passes), with the error [`KernelSpec::check`] gives
    /// for the same parameter. Stricter than [`KernelSpec::check`] (whatever
    /// passes it passes that too): for callers that want to refuse, before a
    /// fit, a gamma or coef0 that would leave it without a device model (the
    /// command line does); the export runs the same rule again.
    pub fn check_f32(&self) -> Result<(), FitError> {
        let gamma = self.gamma.unwrap_or(1.0);
        let bad = self
            .kind
            .invalid(gamma as f32, self.degree, self.coef0 as f32);
        match () {
            _ if bad.gamma => Err(FitError::BadGamma(gamma)),
            _ if bad.degree => Err(FitError::BadDegree(self.degree)),
            _ if bad.coef0 => Err(FitError::BadCoef0(self.coef0)),
            _ => Ok(()),
        }
    }

    /// The kernel with gamma fixed for `n_features` inputs (1/d when not
    /// given) and the parameters it does not use set to 0, for parameters
    /// that passed [`KernelSpec::check`].
    pub(crate) fn resolve(&self, n_features: usize) -> Kernel64 {
        let uses = self.kind.uses();
        let gamma = self.gamma.unwrap_or(1.0 / n_features.max(1) as f64);
        Kernel64 {
            kind: self.kind,
            gamma: if uses.gamma { gamma } else { 0.0 },
            degree: if uses.degree { self.degree } else { 0 },
            coef0: if uses.coef0 { self.coef0 } else { 0.0 },
        }
    }
}

/// A kernel with all parameters fixed, evaluated in f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Kernel64 {
    pub kind: KernelId,
    pub gamma: f64,
    pub degree: u32,
    pub coef0: f64,
}

#[inline]
fn dot(x: &[f64], z: &[f64]) -> f64 {
    x.iter().zip(z).map(|(a, b)| a * b).sum()
}

impl Kernel64 {
    /// As the user-facing spec (gamma resolved; the parameters the kernel
    /// does not use at scikit-learn's defaults).
    pub fn spec(&self) -> KernelSpec {
        let uses = self.kind.uses();
        let default = KernelSpec::new(self.kind);
        KernelSpec {
            kind: self.kind,
            gamma: uses.gamma.then_some(self.gamma),
            degree: if uses.degree {
                self.degree
            } else {
                default.degree
            },
            coef0: if uses.coef0 {
                self.coef0
            } else {
                default.coef0
            },
        }
    }

    /// The device kernel, parameters rounded to f32 and not checked here:
    /// the device model built with it checks them
    /// (`kpca_core::ModelRef::from_parts`).
    pub fn to_device(self) -> Kernel {
        Kernel::unchecked(self.kind, self.gamma as f32, self.degree, self.coef0 as f32)
    }

    /// k(x, z) given ‖x‖² and ‖z‖² (used by cosine only).
    #[inline]
    pub fn eval(&self, x: &[f64], z: &[f64], sq_x: f64, sq_z: f64) -> f64 {
        match self.kind {
            KernelId::Linear => dot(x, z),
            KernelId::Polynomial => (self.gamma * dot(x, z) + self.coef0).powi(self.degree as i32),
            KernelId::Rbf => {
                let d2: f64 = x.iter().zip(z).map(|(a, b)| (a - b) * (a - b)).sum();
                (-self.gamma * d2).exp()
            }
            KernelId::Laplacian => {
                let d1: f64 = x.iter().zip(z).map(|(a, b)| (a - b).abs()).sum();
                (-self.gamma * d1).exp()
            }
            KernelId::Sigmoid => (self.gamma * dot(x, z) + self.coef0).tanh(),
            KernelId::Cosine => {
                let denom = sq_x.sqrt() * sq_z.sqrt();
                if denom > 0.0 {
                    dot(x, z) / denom
                } else {
                    0.0
                }
            }
        }
    }

    /// k(x, x) given ‖x‖².
    #[inline]
    pub fn self_eval(&self, sq_x: f64) -> f64 {
        match self.kind {
            KernelId::Rbf | KernelId::Laplacian => 1.0,
            KernelId::Linear => sq_x,
            KernelId::Polynomial => (self.gamma * sq_x + self.coef0).powi(self.degree as i32),
            KernelId::Sigmoid => (self.gamma * sq_x + self.coef0).tanh(),
            KernelId::Cosine => {
                if sq_x > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }
}

/// Squared norms of the rows of a row-major matrix with `d` columns.
pub(crate) fn sq_norms(rows: &[f64], d: usize) -> Vec<f64> {
    rows.chunks_exact(d).map(|r| dot(r, r)).collect()
}

/// Rows (or columns) of a kernel matrix per parallel task in [`gram_matrix`] and
/// [`cross_kernel`].
pub(crate) const PANEL: usize = 128;

/// Whether the kernel is a function of the inner product (and the squared norms),
/// so that a block of it is one matrix product followed by an elementwise map.
fn via_inner_products(kind: KernelId) -> bool {
    kind != KernelId::Laplacian
}

/// dst(i, j) = k(a_i, b_j) for the row-major point sets `a` (rows of dst) and `b`
/// (columns), with their squared norms. Kernels of the inner product are computed
/// as one matrix product G = A B' (faer, sequential: the callers run blocks in
/// parallel) and then mapped elementwise; rbf uses ‖a‖² + ‖b‖² - 2 a'b (clamped at
/// 0, as scikit-learn's `euclidean_distances`), and 0 on the diagonal when
/// `same_diagonal` (a_i and b_i are then the same point).
#[allow(clippy::too_many_arguments)]
fn kernel_block(
    kernel: &Kernel64,
    mut dst: faer::MatMut<'_, f64>,
    a: &[f64],
    a_sq: &[f64],
    b: &[f64],
    b_sq: &[f64],
    d: usize,
    same_diagonal: bool,
) {
    use faer::reborrow::ReborrowMut;
    use faer::{Accum, MatRef, Par};
    let (rows, cols) = (a_sq.len(), b_sq.len());
    if !via_inner_products(kernel.kind) {
        for (j, (x, &sq_x)) in b.chunks_exact(d).zip(b_sq).enumerate() {
            let col = dst.rb_mut().col_mut(j);
            for (v, (z, &sq_z)) in col.iter_mut().zip(a.chunks_exact(d).zip(a_sq)) {
                *v = kernel.eval(z, x, sq_z, sq_x);
            }
        }
        return;
    }
    let am = MatRef::from_row_major_slice(a, rows, d);
    let bm = MatRef::from_row_major_slice(b, cols, d);
    faer::linalg::matmul::matmul(
        dst.rb_mut(),
        Accum::Replace,
        am,
        bm.transpose(),
        1.0,
        Par::Seq,
    );
    let g = kernel.gamma;
    let c0 = kernel.coef0;
    if kernel.kind == KernelId::Rbf {
        // The common case in one tight, vectorised loop per column.
        for (j, &sq_b) in b_sq.iter().enumerate() {
            let mut col = dst.rb_mut().col_mut(j);
            if let Some(slice) = col.rb_mut().try_as_col_major_mut() {
                let slice = slice.as_slice_mut();
                rbf_column(slice, a_sq, sq_b, g);
                if same_diagonal {
                    // k(x, x) = 1, whatever the rounding of ‖x‖² + ‖x‖² - 2 x'x.
                    slice[j] = 1.0;
                }
            } else {
                for (i, v) in col.iter_mut().enumerate() {
                    let sq_a = a_sq[i];
                    let e = if same_diagonal && i == j {
                        0.0
                    } else {
                        -g * (sq_a + sq_b - 2.0 * *v).max(0.0)
                    };
                    *v = e.exp();
                }
            }
        }
        return;
    }
    for (j, &sq_b) in b_sq.iter().enumerate() {
        let col = dst.rb_mut().col_mut(j);
        for (v, &sq_a) in col.iter_mut().zip(a_sq) {
            let ip = *v;
            *v = match kernel.kind {
                KernelId::Linear => ip,
                KernelId::Polynomial => (g * ip + c0).powi(kernel.degree as i32),
                KernelId::Sigmoid => (g * ip + c0).tanh(),
                KernelId::Cosine => {
                    let denom = sq_a.sqrt() * sq_b.sqrt();
                    if denom > 0.0 {
                        ip / denom
                    } else {
                        0.0
                    }
                }
                KernelId::Rbf | KernelId::Laplacian => {
                    unreachable!("rbf and laplacian are handled above")
                }
            };
        }
    }
}

/// The lower triangle (diagonal included) of the n x n kernel matrix of the
/// row-major points `z`, in a column-major n x n buffer whose strict upper
/// triangle is left at 0, and the row sums of the whole (symmetric) matrix. Every
/// user (the centring, `symprod::sym_block_product`, `eigen::dense_top`) reads
/// the lower triangle only.
///
/// Computed in parallel column panels of [`PANEL`] (a matrix product per panel for
/// the kernels of the inner product, see [`kernel_block`]); each panel is summed
/// while it is still in cache. The only n x n allocation is the result itself.
/// [`FitError::NonFiniteKernel`] if any value is not finite.
pub(crate) fn gram_matrix(
    kernel: &Kernel64,
    z: &[f64],
    sq: &[f64],
    d: usize,
) -> Result<(Vec<f64>, Vec<f64>), FitError> {
    let n = sq.len();
    let mut out = vec![0.0; n * n];
    if n == 0 {
        return Ok((out, Vec::new()));
    }
    // Per rayon split: (row sums of the strict lower triangle seen so far, the
    // column sums from the diagonal down of its panels, all values finite).
    type Part = (Vec<f64>, Vec<(usize, f64)>, bool);
    let parts: Vec<Part> = out
        .par_chunks_mut(n * PANEL)
        .enumerate()
        .fold(
            || (vec![0.0; n], Vec::new(), true),
            |(mut rows, mut cols, finite), (p, panel)| {
                let j0 = p * PANEL;
                let w = panel.len() / n;
                let m = faer::MatMut::from_column_major_slice_mut(panel, n, w);
                let lower = m.submatrix_mut(j0, 0, n - j0, w);
                kernel_block(
                    kernel,
                    lower,
                    &z[j0 * d..],
                    &sq[j0..],
                    &z[j0 * d..(j0 + w) * d],
                    &sq[j0..j0 + w],
                    d,
                    true,
                );
                let mut all_finite = finite;
                for (jj, col) in panel.chunks_exact(n).enumerate() {
                    let j = j0 + jj;
                    let (sum, ok) = lower_column_sums(&col[j..], &mut rows, j);
                    cols.push((j, sum));
                    all_finite &= ok;
                }
                (rows, cols, all_finite)
            },
        )
        .collect();
    let mut row_sums = vec![0.0; n];
    let mut finite = true;
    for (rows, cols, ok) in parts {
        finite &= ok;
        row_sums.iter_mut().zip(&rows).for_each(|(a, b)| *a += b);
        for (j, sum) in cols {
            row_sums[j] += sum;
        }
    }
    if !finite || row_sums.iter().any(|v| !v.is_finite()) {
        return Err(FitError::NonFiniteKernel);
    }
    Ok((out, row_sums))
}

/// For the part of column j from the diagonal down (`col[0]` = K_jj): adds each
/// strictly-lower entry K_ij to `rows[i]` (row i's sum left of its diagonal) and
/// returns the column's own sum and whether every entry is finite.
fn lower_column_sums(col: &[f64], rows: &mut [f64], j: usize) -> (f64, bool) {
    let Some((&diag, below)) = col.split_first() else {
        return (0.0, true);
    };
    let mut acc = [0.0f64; 4];
    let mut finite = diag.is_finite();
    let targets = &mut rows[j + 1..];
    let mut chunks = below.chunks_exact(4);
    let mut target_chunks = targets.chunks_exact_mut(4);
    for (v, t) in (&mut chunks).zip(&mut target_chunks) {
        for ((&x, a), s) in v.iter().zip(t.iter_mut()).zip(acc.iter_mut()) {
            *s += x;
            *a += x;
            finite &= x.is_finite();
        }
    }
    let mut tail = 0.0;
    for (&x, a) in chunks
        .remainder()
        .iter()
        .zip(target_chunks.into_remainder())
    {
        tail += x;
        *a += x;
        finite &= x.is_finite();
    }
    let sum = diag + ((acc[0] + acc[1]) + (acc[2] + acc[3])) + tail;
    (sum, finite)
}

/// The kernel values of every row of `xs` against every row of `points`, as a
/// column-major (points x rows) buffer: column i holds k(points_j, x_i) for all j.
/// Computed in parallel blocks of [`PANEL`] columns (a matrix product per block
/// for the kernels of the inner product). [`FitError::NonFiniteKernel`] if any
/// value is not finite.
pub(crate) fn cross_kernel(
    kernel: &Kernel64,
    points: &[f64],
    point_sq: &[f64],
    xs: &[f64],
    d: usize,
) -> Result<Vec<f64>, FitError> {
    let m = point_sq.len();
    let n = xs.len() / d.max(1);
    let mut out = vec![0.0; m * n];
    if m == 0 || n == 0 {
        return Ok(out);
    }
    let finite = out
        .par_chunks_mut(m * PANEL)
        .zip(xs.par_chunks(d * PANEL))
        .map(|(cols, x_block)| {
            let c = cols.len() / m;
            let x_sq = sq_norms(x_block, d);
            let dst = faer::MatMut::from_column_major_slice_mut(cols, m, c);
            kernel_block(kernel, dst, points, point_sq, x_block, &x_sq, d, false);
            cols.iter().all(|v| v.is_finite())
        })
        .reduce(|| true, |a, b| a && b);
    if finite {
        Ok(out)
    } else {
        Err(FitError::NonFiniteKernel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points whose kernel matrix spans several panels, with a partial last one.
    fn points(n: usize, d: usize) -> Vec<f64> {
        (0..n * d)
            .map(|i| ((i * 37 % 101) as f64 / 50.0 - 1.0) * (1.0 + (i % 7) as f64 * 0.1))
            .collect()
    }

    /// The lower triangle and the row sums of `gram_matrix` equal the kernel
    /// evaluated entry by entry, for every kernel family.
    #[test]
    fn gram_matrix_and_its_row_sums_match_the_kernel() {
        const TOL: f64 = 1e-12;
        let (n, d) = (2 * PANEL + 37, 3);
        let z = points(n, d);
        let sq = sq_norms(&z, d);
        for kind in KernelId::ALL {
            let kernel = KernelSpec::new(kind).with_gamma(0.4).resolve(d);
            let (kmat, row_sums) = gram_matrix(&kernel, &z, &sq, d).unwrap();
            let row = |i: usize| &z[i * d..(i + 1) * d];
            let exact = |i: usize, j: usize| kernel.eval(row(i), row(j), sq[i], sq[j]);
            for j in 0..n {
                for i in j..n {
                    let err = (kmat[j * n + i] - exact(i, j)).abs();
                    assert!(err < TOL, "{kind:?} ({i}, {j}): {err:e}");
                }
            }
            for (i, &s) in row_sums.iter().enumerate() {
                let want: f64 = (0..n).map(|j| exact(i, j)).sum();
                assert!(
                    (s - want).abs() < TOL * n as f64,
                    "{kind:?} row {i}: {s} vs {want}"
                );
            }
        }
    }
}
