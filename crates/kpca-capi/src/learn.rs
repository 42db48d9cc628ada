//! Learning on the device from C: `kpca_fit_sizes`, `kpca_fit` and
//! `kpca_recalibrate` (the core's [`kpca_core::learn`]).

use core::ffi::c_void;

use kpca_core::learn::{self, FitParams};
use kpca_core::{Error, Kernel, KernelId};

use super::{check_out, guard, kpca_status, ref_in, slice_in, slice_out, write_out};

/// What `kpca_fit` fits.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct kpca_fit_params {
    /// Kernel id (`kpca_model.kernel`'s values: 0 linear, 1 polynomial,
    /// 2 rbf, 3 laplacian, 4 sigmoid, 5 cosine).
    pub kernel: u32,
    /// Polynomial degree, 1 ..= 16 (ignored by the other kernels).
    pub degree: u32,
    /// Kernel gamma, finite and > 0; 0 means 1/d (scikit-learn's default).
    /// Ignored by the linear and cosine kernels.
    pub gamma: f32,
    /// Kernel coef0 (polynomial, sigmoid), finite.
    pub coef0: f32,
    /// Components k, 1 ..= KPCA_MAX_COMPONENTS and fewer than the vectors.
    pub n_components: u32,
    /// Non-zero: standardise each feature (mean and std of the same vectors).
    pub standardize: u32,
    /// The fraction of normal vectors the threshold flags, in (0, 1).
    pub false_alarm_rate: f32,
}

/// The core's parameters from the C ones, for dimension `d`.
fn params_of(p: &kpca_fit_params, d: usize) -> Result<FitParams, Error> {
    if d == 0 {
        return Err(Error::ZeroDimension);
    }
    let id = u16::try_from(p.kernel).map_err(|_| Error::UnknownKernel)?;
    let id = KernelId::try_from(id)?;
    let gamma = if p.gamma == 0.0 {
        1.0 / d as f32
    } else {
        p.gamma
    };
    Ok(FitParams {
        kernel: Kernel::from_parts(id, gamma, p.degree, p.coef0)?,
        n_components: p.n_components as usize,
        standardize: p.standardize != 0,
        false_alarm_rate: p.false_alarm_rate,
    })
}

/// The sizes a fit of `n` vectors of dimension `d` needs: `*workspace_bytes`
/// (for `kpca_fit`'s workspace, 4-byte aligned) and `*model_bytes` (the blob
/// it writes). Both are written only on success.
///
/// Statuses: as `kpca_fit` for the parameters and shape.
///
/// # Safety
/// `params` NULL or valid for reading; `workspace_bytes`, `model_bytes` NULL
/// or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn kpca_fit_sizes(
    n: usize,
    d: usize,
    params: *const kpca_fit_params,
    workspace_bytes: *mut usize,
    model_bytes: *mut usize,
) -> kpca_status {
    guard(|| {
        // SAFETY: caller contract on `params`.
        let p = params_of(unsafe { ref_in(params) }?, d)?;
        // SAFETY: caller contract on the outputs: NULL and misalignment are
        // refused here, before either is written.
        unsafe { check_out(workspace_bytes).and(check_out(model_bytes)) }?;
        let sizes = learn::fit_sizes(n, d, &p)?;
        let ws = sizes
            .workspace_floats
            .checked_mul(4)
            .ok_or(Error::DimensionTooLarge)?;
        // SAFETY: caller contract on the outputs (checked above).
        unsafe {
            write_out(workspace_bytes, ws)?;
            write_out(model_bytes, sizes.model_bytes)
        }
    })
}

/// Fits full kernel PCA on the device to the `x_len / d` row-major vectors
/// `x` and writes the model blob (format 4, threshold calibrated at
/// `params->false_alarm_rate` on the same vectors) into `model`, its length
/// into `*model_len`. Load it with `kpca_model_from_bytes(model, *model_len)`.
/// No allocation: `workspace` (`workspace_bytes`, 4-byte aligned) and `model`
/// (`model_capacity` bytes, 4-byte aligned) come from `kpca_fit_sizes`. On
/// failure `*model_len` is not written and `model` may hold a partial blob
/// that does not load.
///
/// Statuses (the C arguments are checked first: NULL pointers, d = 0, the
/// kernel, misaligned `x`, `workspace`, `params` or `model_len`; then the
/// core's checks in its order): `KPCA_ERR_NULL_POINTER`,
/// `KPCA_ERR_MISALIGNED_BUFFER`, `KPCA_ERR_UNKNOWN_KERNEL`,
/// `KPCA_ERR_BAD_KERNEL_PARAMETER`, `KPCA_ERR_ZERO_DIMENSION` (d or k 0),
/// `KPCA_ERR_DIMENSION_TOO_LARGE`, `KPCA_ERR_BAD_FALSE_ALARM_RATE`,
/// `KPCA_ERR_BATCH_LENGTH` (`x_len` not a multiple of d),
/// `KPCA_ERR_TOO_FEW_ROWS` (n < 2), `KPCA_ERR_TOO_MANY_COMPONENTS`,
/// `KPCA_ERR_WORKSPACE_TOO_SMALL`, `KPCA_ERR_BUFFER_TOO_SMALL` (model),
/// `KPCA_ERR_MISALIGNED` (model), `KPCA_ERR_NON_FINITE_INPUT`,
/// `KPCA_ERR_CONSTANT_COLUMN`, `KPCA_ERR_NON_FINITE_RESULT`,
/// `KPCA_ERR_NO_CONVERGENCE`.
///
/// # Safety
/// `x` NULL or valid for `x_len` floats; `params` NULL or valid;
/// `workspace` NULL or valid for writing `workspace_bytes` bytes, `model`
/// for `model_capacity` bytes, neither overlapping `x` or each other;
/// `model_len` NULL or valid for writing.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn kpca_fit(
    x: *const f32,
    x_len: usize,
    d: usize,
    params: *const kpca_fit_params,
    workspace: *mut c_void,
    workspace_bytes: usize,
    model: *mut u8,
    model_capacity: usize,
    model_len: *mut usize,
) -> kpca_status {
    guard(|| {
        // SAFETY: caller contract on `params`.
        let p = params_of(unsafe { ref_in(params) }?, d)?;
        // SAFETY: caller contract on `model_len` (NULL refused here).
        unsafe { check_out(model_len) }?;
        // SAFETY: caller contract on `x`.
        let x = unsafe { slice_in(x, x_len) }?;
        // SAFETY: caller contract on `workspace` (alignment checked there).
        let ws = unsafe { slice_out(workspace.cast::<f32>(), workspace_bytes / 4) }?;
        // SAFETY: caller contract on `model`.
        let out = unsafe { slice_out(model, model_capacity) }?;
        let report = learn::fit(x, d, &p, ws, out)?;
        // SAFETY: caller contract on `model_len` (checked above).
        unsafe { write_out(model_len, report.model_len) }
    })
}

/// Sets a new anomaly threshold in the writable model blob `blob` (`blob_len`
/// bytes, 4-byte aligned, a valid blob) without refitting: the (1 -
/// `false_alarm_rate`) quantile of the anomaly scores of the `xs_len / d`
/// normal vectors `xs`; the header's threshold and the CRC-32 are updated
/// and the threshold written to `*threshold`. `scratch` needs one float per
/// vector. A `kpca_model` loaded from the blob before keeps the old
/// threshold: load it again. On failure nothing is written.
///
/// Statuses: the loader's for `blob` (`KPCA_ERR_MISALIGNED` when it is not
/// 4-byte aligned), `KPCA_ERR_NULL_POINTER`, `KPCA_ERR_MISALIGNED_BUFFER`
/// (`xs`, `scratch` or `threshold`), `KPCA_ERR_BAD_FALSE_ALARM_RATE`, `KPCA_ERR_BATCH_LENGTH`,
/// `KPCA_ERR_TOO_FEW_ROWS`, `KPCA_ERR_WORKSPACE_TOO_SMALL` (scratch),
/// `KPCA_ERR_NON_FINITE_INPUT`, `KPCA_ERR_NON_FINITE_RESULT`,
/// `KPCA_ERR_THRESHOLD_UNSET` (the quantile is not > 0).
///
/// # Safety
/// `blob` NULL or valid for reading and writing `blob_len` bytes; `xs` NULL
/// or valid for `xs_len` floats; `scratch` NULL or valid for writing
/// `scratch_len` floats; none overlapping; `threshold` NULL or valid for
/// writing.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn kpca_recalibrate(
    blob: *mut u8,
    blob_len: usize,
    xs: *const f32,
    xs_len: usize,
    false_alarm_rate: f32,
    scratch: *mut f32,
    scratch_len: usize,
    threshold: *mut f32,
) -> kpca_status {
    guard(|| {
        // SAFETY: caller contract on `threshold` (NULL refused here). Checked
        // before the blob is touched: nothing is written on failure.
        unsafe { check_out(threshold) }?;
        // SAFETY: caller contract on `blob`.
        let blob = unsafe { slice_out(blob, blob_len) }?;
        // SAFETY: caller contract on `xs`.
        let xs = unsafe { slice_in(xs, xs_len) }?;
        // SAFETY: caller contract on `scratch`.
        let scratch = unsafe { slice_out(scratch, scratch_len) }?;
        let t = learn::recalibrate(blob, xs, false_alarm_rate, scratch)?;
        // SAFETY: caller contract on `threshold` (checked above).
        unsafe { write_out(threshold, t) }
    })
}
