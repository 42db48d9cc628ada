//! Learning on the device: a full kernel PCA fit of n stored vectors, in f32,
//! with no allocation (every buffer is the caller's), written as a model blob
//! that [`ModelRef::from_bytes`] loads unchanged; and the anomaly threshold
//! recalibrated in a writable blob without a refit ([`recalibrate`]).
//!
//! The fit follows the host's full fit (DESIGN.md §1, scikit-learn's
//! `KernelPCA`): the kernel matrix K of the (standardised) rows from the
//! projection's own kernel formulas, centred, Kc = K - 1r' - r1' + g11'; its
//! top k eigenpairs (mu_l, u_l) (Householder tridiagonalisation
//! and implicit QL, every pair); scikit-learn's sign rule (the entry of
//! largest magnitude of each u_l positive); alpha_l = u_l / sqrt(mu_l); and
//! the device's form y = A'k_x + b with A = alpha - (1/n) 1 (1'alpha),
//! b = -alpha'r + g alpha'1, c = 1/n, s = g. The threshold is the (1 - rate)
//! quantile of the training vectors' anomaly scores, each computed by the
//! written model itself, so it is calibrated on what the device computes.
//!
//! Memory: a workspace of [`FitSizes::workspace_floats`] f32 (n² + n (d + k +
//! 6) + 2d + 2k; 81 KiB for n = 128, d = 24, k = 4) and the model
//! ([`FitSizes::model_bytes`]). Cost on a Cortex-M4F:
//! docs/ON-DEVICE-LEARNING.md.
//!
//! ```
//! use kpca_core::learn::{fit, fit_sizes, FitParams};
//! use kpca_core::{Kernel, ModelRef};
//!
//! # fn main() -> Result<(), kpca_core::Error> {
//! // 16 vectors of dimension 2 collected on site (row-major).
//! let x: [f32; 32] = core::array::from_fn(|i| ((i * 7 % 11) as f32) * 0.1 + (i % 2) as f32);
//! let params = FitParams {
//!     kernel: Kernel::Rbf { gamma: 0.5 },
//!     n_components: 2,
//!     standardize: true,
//!     false_alarm_rate: 0.1,
//! };
//! let sizes = fit_sizes(16, 2, &params)?; // 16² + 16 (2 + 2 + 6) + 8 floats, 484 bytes of model
//! let mut workspace = [0.0f32; 424];
//! #[repr(align(4))]
//! struct Blob([u8; 484]);
//! let mut blob = Blob([0; 484]);
//! assert!(sizes.workspace_floats <= workspace.len() && sizes.model_bytes <= blob.0.len());
//! let report = fit(&x, 2, &params, &mut workspace, &mut blob.0)?;
//! let model = ModelRef::from_bytes(&blob.0[..report.model_len])?;
//! let alarm = model.is_anomaly(&[0.3, 1.2])?;
//! # let _ = alarm;
//! # Ok(())
//! # }
//! ```
//!
//! Differences from the host fit: f32 throughout (eigenvalues agree to about
//! 1e-6 relative on the fixtures); linear and cosine models are not folded
//! into a linear map (they store their n points); no pre-image map or
//! regression head.

mod calibrate;
pub mod eigen;
mod prepare;

pub use calibrate::recalibrate;
pub(crate) use calibrate::threshold_from;

use crate::error::Error;
use crate::fit_info::{FitInfo, FitMethod};
use crate::format::{blob_len_for, BLOB_ALIGN};
use crate::kernel::Kernel;
use crate::model::{ModelParts, ModelRef, MAX_COMPONENTS, MAX_DIM, MAX_POINTS};
use eigen::{symmetric_eigen, EigenScratch};

/// Eigenvalues below this fraction of the largest (or below 8 n ε max |K_ij|
/// when that is larger: the rounding level of the f32 kernel matrix and
/// solver) are not positive: a fit asking for such a component is refused
/// ([`Error::TooManyComponents`]).
pub const POSITIVE_EIG_REL_TOL: f32 = 1e-5;

/// What to fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitParams {
    /// The kernel and its parameters.
    pub kernel: Kernel,
    /// Components k, 1 ..= [`MAX_COMPONENTS`], fewer than the rows.
    pub n_components: usize,
    /// Standardise each feature (mean and std, ddof 0, of the same rows).
    pub standardize: bool,
    /// Fraction of normal vectors the threshold flags, in (0, 1).
    pub false_alarm_rate: f32,
}

/// The buffers a fit needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FitSizes {
    /// f32 words of workspace.
    pub workspace_floats: usize,
    /// Bytes of the model blob the fit writes.
    pub model_bytes: usize,
}

/// What a fit reports besides the model it wrote.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitReport {
    /// Bytes of the model blob written at the start of the output buffer.
    pub model_len: usize,
    /// The anomaly threshold set in the model (0 = unset: the training
    /// vectors' (1 - rate) quantile was not > 0).
    pub threshold: f32,
    /// Sum of the positive eigenvalues of Kc (the explained-variance
    /// denominator recorded in the model).
    pub total_variance: f32,
}

/// Checks the fit's sizes and parameters: d, n (from `len` floats), k, the
/// kernel, the rate. Returns n.
fn check_shape(len: usize, d: usize, p: &FitParams) -> Result<usize, Error> {
    if d == 0 || p.n_components == 0 {
        return Err(Error::ZeroDimension);
    }
    if d > MAX_DIM || p.n_components > MAX_COMPONENTS {
        return Err(Error::DimensionTooLarge);
    }
    p.kernel.validate()?;
    calibrate::check_rate(p.false_alarm_rate)?;
    if !len.is_multiple_of(d) {
        return Err(Error::BatchLength);
    }
    let n = len / d.max(1);
    if n < 2 {
        return Err(Error::TooFewRows);
    }
    if n > MAX_POINTS {
        return Err(Error::DimensionTooLarge);
    }
    if p.n_components >= n {
        return Err(Error::TooManyComponents);
    }
    Ok(n)
}

/// Whether the fit's model has an input map (standardisation, or the centre
/// of an RBF, Laplacian or linear model).
fn has_input_map(p: &FitParams) -> bool {
    p.standardize || prepare::centres(&p.kernel)
}

/// The workspace and model sizes of a fit of `n` vectors of dimension `d`.
///
/// Errors: as [`fit`] for the shape and parameters;
/// [`Error::DimensionTooLarge`] when a size overflows.
pub fn fit_sizes(n: usize, d: usize, params: &FitParams) -> Result<FitSizes, Error> {
    let len = n.checked_mul(d).ok_or(Error::DimensionTooLarge)?;
    check_shape(len, d, params)?;
    let k = params.n_components;
    let words = part_lengths(n, d, k)
        .ok_or(Error::DimensionTooLarge)?
        .iter()
        .try_fold(0usize, |total, &len| total.checked_add(len))
        .ok_or(Error::DimensionTooLarge)?;
    let model_bytes =
        blob_len_for(d, n, k, has_input_map(params)).ok_or(Error::DimensionTooLarge)?;
    Ok(FitSizes {
        workspace_floats: words,
        model_bytes,
    })
}

/// The floats of each part of the workspace, in the order of [`Workspace`]:
/// kmat n², points n d, a n k, then six n-vectors (norms, c, row_means,
/// diag, sub, tmp), mean and inv_std d each, b and eigenvalues k each; `None`
/// when a length overflows.
fn part_lengths(n: usize, d: usize, k: usize) -> Option<[usize; 13]> {
    Some([
        n.checked_mul(n)?,
        n.checked_mul(d)?,
        n.checked_mul(k)?,
        n,
        n,
        n,
        n,
        n,
        n,
        d,
        d,
        k,
        k,
    ])
}

/// The workspace, cut into its parts.
struct Workspace<'w> {
    kmat: &'w mut [f32],
    points: &'w mut [f32],
    a: &'w mut [f32],
    norms: &'w mut [f32],
    c: &'w mut [f32],
    row_means: &'w mut [f32],
    diag: &'w mut [f32],
    sub: &'w mut [f32],
    tmp: &'w mut [f32],
    mean: &'w mut [f32],
    inv_std: &'w mut [f32],
    b: &'w mut [f32],
    eigenvalues: &'w mut [f32],
}

/// Cuts `len` floats off the front of `*rest`.
fn take<'w>(rest: &mut &'w mut [f32], len: usize) -> Result<&'w mut [f32], Error> {
    let all = core::mem::take(rest);
    if all.len() < len {
        return Err(Error::WorkspaceTooSmall);
    }
    let (head, tail) = all.split_at_mut(len);
    *rest = tail;
    Ok(head)
}

impl<'w> Workspace<'w> {
    /// The parts for n vectors of dimension d and k components.
    fn split(ws: &'w mut [f32], n: usize, d: usize, k: usize) -> Result<Self, Error> {
        let [kmat, points, a, norms, c, row_means, diag, sub, tmp, mean, inv_std, b, eigenvalues] =
            part_lengths(n, d, k).ok_or(Error::DimensionTooLarge)?;
        let mut rest = ws;
        Ok(Workspace {
            kmat: take(&mut rest, kmat)?,
            points: take(&mut rest, points)?,
            a: take(&mut rest, a)?,
            norms: take(&mut rest, norms)?,
            c: take(&mut rest, c)?,
            row_means: take(&mut rest, row_means)?,
            diag: take(&mut rest, diag)?,
            sub: take(&mut rest, sub)?,
            tmp: take(&mut rest, tmp)?,
            mean: take(&mut rest, mean)?,
            inv_std: take(&mut rest, inv_std)?,
            b: take(&mut rest, b)?,
            eigenvalues: take(&mut rest, eigenvalues)?,
        })
    }
}

/// Fits full kernel PCA to the n row-major vectors `x` (n x d) on the device
/// and writes the model blob (format version 4, fit record "full", threshold
/// calibrated) at the start of `out`; returns its length and the threshold.
/// `workspace` needs [`FitSizes::workspace_floats`] floats and `out`
/// [`FitSizes::model_bytes`] bytes, 4-byte aligned ([`fit_sizes`]). Nothing
/// is allocated; on error `out` may hold a partial blob that does not load.
///
/// Errors, in the order checked: [`Error::ZeroDimension`],
/// [`Error::DimensionTooLarge`], the kernel's ([`Error::BadKernelParameter`]),
/// [`Error::BadFalseAlarmRate`], [`Error::BatchLength`], [`Error::TooFewRows`]
/// (n < 2), [`Error::TooManyComponents`] (k >= n, or fewer than k positive
/// eigenvalues), [`Error::WorkspaceTooSmall`], [`Error::BufferTooSmall`],
/// [`Error::Misaligned`] (`out`), [`Error::NonFiniteInput`],
/// [`Error::ConstantColumn`], [`Error::NonFiniteResult`] (a kernel value past
/// the f32 range), [`Error::NoConvergence`].
pub fn fit(
    x: &[f32],
    d: usize,
    params: &FitParams,
    workspace: &mut [f32],
    out: &mut [u8],
) -> Result<FitReport, Error> {
    let n = check_shape(x.len(), d, params)?;
    let sizes = fit_sizes(n, d, params)?;
    if workspace.len() < sizes.workspace_floats {
        return Err(Error::WorkspaceTooSmall);
    }
    let out = out
        .get_mut(..sizes.model_bytes)
        .ok_or(Error::BufferTooSmall)?;
    if !(out.as_ptr() as usize).is_multiple_of(BLOB_ALIGN) {
        return Err(Error::Misaligned);
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFiniteInput);
    }
    let k = params.n_components;
    let mut ws = Workspace::split(workspace, n, d, k)?;
    let total_variance = solve_into(x, d, params, &mut ws, out)?;
    let scores = ws.diag;
    let model = ModelRef::from_bytes(out)?;
    model.anomaly_score_batch(x, scores)?;
    let threshold = calibrate::threshold_of(scores, params.false_alarm_rate);
    crate::format::rewrite_threshold(out, threshold);
    Ok(FitReport {
        model_len: sizes.model_bytes,
        threshold,
        total_variance,
    })
}

/// The fit proper: input map, centred kernel matrix, eigenpairs, the model's
/// sections in `ws`, then the blob (threshold unset) into `out`. Returns the
/// total variance.
fn solve_into(
    x: &[f32],
    d: usize,
    p: &FitParams,
    ws: &mut Workspace<'_>,
    out: &mut [u8],
) -> Result<f32, Error> {
    let n = ws.norms.len();
    let map = (&mut *ws.mean, &mut *ws.inv_std);
    let mapped = prepare::input_map(x, d, &p.kernel, p.standardize, map, ws.points, ws.norms)?;
    let (g, k_max) =
        prepare::centred_kernel(&p.kernel, ws.points, ws.norms, d, ws.kmat, ws.row_means)?;
    let mut scratch = EigenScratch {
        diag: ws.diag,
        sub: ws.sub,
        tmp: ws.tmp,
    };
    // Kc scaled by a power of two to a largest magnitude in [0.5, 1), exactly,
    // so that the solver's products neither overflow nor underflow whatever
    // the kernel values' range; the eigenvalues are scaled back.
    let exponent = scale_exponent(ws.kmat)?;
    ws.kmat
        .iter_mut()
        .for_each(|v| *v = libm::scalbnf(*v, -exponent));
    symmetric_eigen(ws.kmat, n, &mut scratch)?;
    for v in scratch.diag.iter_mut() {
        *v = libm::scalbnf(*v, exponent);
        if !v.is_finite() {
            return Err(Error::NonFiniteResult);
        }
    }
    let total_variance = scratch.diag.iter().filter(|v| **v > 0.0).sum::<f32>();
    let top = top_indices(scratch.diag, p.n_components, k_max)?;
    components(ws, &top, p.n_components, g);
    let fit = FitInfo {
        method: FitMethod::Full,
        n_train: u32::try_from(n).map_err(|_| Error::DimensionTooLarge)?,
        total_variance,
    };
    let parts = ModelParts {
        kernel: p.kernel,
        dim: d,
        n_components: p.n_components,
        standardize: mapped.then_some((&*ws.mean, &*ws.inv_std)),
        points: ws.points,
        point_sq_norms: ws.norms,
        a: ws.a,
        b: ws.b,
        c: ws.c,
        s: g,
        eigenvalues: ws.eigenvalues,
        threshold: 0.0,
        fit,
        linear_map: false,
    };
    ModelRef::from_parts(parts)?.write_to(out)?;
    Ok(total_variance)
}

/// The power of two e with max |Kc| / 2^e in [0.5, 1) (0 for a zero
/// matrix); [`Error::NonFiniteResult`] when an entry is not finite (the
/// centring overflowed).
fn scale_exponent(kmat: &[f32]) -> Result<i32, Error> {
    let largest = kmat.iter().fold(0.0f32, |m, v| m.max(libm::fabsf(*v)));
    if !kmat.iter().all(|v| v.is_finite()) {
        return Err(Error::NonFiniteResult);
    }
    if largest == 0.0 {
        return Ok(0);
    }
    Ok(libm::frexpf(largest).1)
}

/// The indices of the k largest eigenvalues, largest first; refuses k when
/// the k-th is not positive (see [`POSITIVE_EIG_REL_TOL`]; `k_max` is the
/// largest |K_ij| before centring).
fn top_indices(values: &[f32], k: usize, k_max: f32) -> Result<[usize; MAX_COMPONENTS], Error> {
    let mut top = [0usize; MAX_COMPONENTS];
    for l in 0..k.min(MAX_COMPONENTS) {
        crate::codegen::keep_rolled();
        let taken = top.get(..l).unwrap_or(&[]);
        let best = values
            .iter()
            .enumerate()
            .filter(|(i, _)| !taken.contains(i))
            .fold(None, |best: Option<(usize, f32)>, (i, &v)| match best {
                Some((_, b)) if b >= v => best,
                _ => Some((i, v)),
            });
        if let (Some(slot), Some((i, _))) = (top.get_mut(l), best) {
            *slot = i;
        }
    }
    let largest = top
        .first()
        .and_then(|&i| values.get(i))
        .copied()
        .unwrap_or(0.0);
    let noise = 8.0 * values.len() as f32 * f32::EPSILON * k_max;
    let floor = (largest * POSITIVE_EIG_REL_TOL).max(noise);
    let kth = top
        .get(k.saturating_sub(1))
        .and_then(|&i| values.get(i))
        .copied();
    match kth {
        Some(v) if largest > 0.0 && v > floor => Ok(top),
        _ => Err(Error::TooManyComponents),
    }
}

/// From the eigenpairs (rows of `ws.kmat`, values in `ws.diag`) of the top
/// `k` at `top`: the sign rule, alpha = u / sqrt(mu), then A, b, c and the
/// eigenvalues of the device's form.
fn components(ws: &mut Workspace<'_>, top: &[usize; MAX_COMPONENTS], k: usize, g: f32) {
    let n = ws.norms.len();
    let inv_n = 1.0 / n as f32;
    for (l, &idx) in top.iter().enumerate().take(k) {
        crate::codegen::keep_rolled();
        let mu = ws.diag.get(idx).copied().unwrap_or(0.0);
        let u = ws.kmat.get(idx * n..(idx + 1) * n).unwrap_or(&[]);
        let peak = u.iter().fold(0.0f32, |m, &v| {
            if libm::fabsf(v) > libm::fabsf(m) {
                v
            } else {
                m
            }
        });
        let scale = if peak < 0.0 { -1.0 } else { 1.0 } / crate::fastmath::sqrt(mu);
        let (mut col_sum, mut dot_r) = (0.0f32, 0.0f32);
        for ((&ui, row), &ri) in u
            .iter()
            .zip(crate::codegen::rows_mut(ws.a, k))
            .zip(ws.row_means.iter())
        {
            let alpha = ui * scale;
            if let Some(x) = row.get_mut(l) {
                *x = alpha;
            }
            col_sum += alpha;
            dot_r += alpha * ri;
        }
        for row in ws.a.chunks_exact_mut(k.max(1)) {
            crate::codegen::keep_rolled();
            if let Some(x) = row.get_mut(l) {
                *x -= inv_n * col_sum;
            }
        }
        if let Some(b) = ws.b.get_mut(l) {
            *b = g * col_sum - dot_r;
        }
        if let Some(e) = ws.eigenvalues.get_mut(l) {
            *e = mu;
        }
    }
    ws.c.iter_mut().for_each(|c| *c = inv_n);
}
