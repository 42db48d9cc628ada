//! The C ABI of kpca, exported by `libkpca.a` and described in `include/kpca.h`.
//!
//! Conventions (also in docs/C-FIRMWARE.md, "C API conventions"):
//! - every function returns a `kpca_status` (0 = `KPCA_OK`) except `kpca_status_str`
//!   and `kpca_version`;
//! - pointers come with their lengths in elements; `NULL` with length 0 is an empty
//!   slice; outputs are written only when the call succeeds;
//! - a `kpca_model` is filled by `kpca_model_from_bytes` and then only read; it
//!   points into the blob, which must stay in place (flash) while the model is used.
//!
//! Every entry point goes through one helper (`guard`), which turns `Result` into a status.
//! The firmware library is built with `panic = "abort"`, and no entry point has a
//! reachable panic path; nothing can unwind across `extern "C"`.
#![no_std]
#![allow(non_camel_case_types)]
#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]
// No reachable panic from C: no unwrap/expect, no panicking index, no explicit
// panic, and every unsafe block justified. Tests may use all of these.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[cfg(test)]
extern crate std;

use core::ffi::{c_char, c_void};
use core::mem::{align_of, offset_of, size_of};
use kpca_core::format::FORMAT_VERSION;
use kpca_core::single::KernelKind;

mod learn;
mod single;
use kpca_core::{Error, KernelId, ModelRef, RawModel};
pub use learn::*;
pub use single::*;

/// Result of every fallible call: 0 is success (`KPCA_OK`), each failure has its
/// own code (`KPCA_ERR_*`: stable numbers, never reused). A fixed-width
/// integer, so `-fshort-enums` builds agree on its size.
pub type kpca_status = i32;

// KPCA_OK and the KPCA_ERR_* constants, generated from the core's status table.
mod status;
pub use status::*;

/// Largest input dimension a model may have.
pub const KPCA_MAX_DIM: u32 = 4096;
/// Largest number of stored points a model may have.
pub const KPCA_MAX_POINTS: u32 = 1 << 20;
/// Largest number of components a model may have.
pub const KPCA_MAX_COMPONENTS: u32 = 16;
/// The model blob format version this library writes (it reads this one and
/// every older one down to KPCA_OLDEST_FORMAT_VERSION).
pub const KPCA_FORMAT_VERSION: u32 = 4;
/// `kpca_model.flags` bit: inputs are standardised (mean and inv_std set).
pub const KPCA_FLAG_STANDARDIZED: u32 = 1;
/// `kpca_model.flags` bit: the stored points are a folded linear map.
pub const KPCA_FLAG_LINEAR_MAP: u32 = 2;
/// `kpca_model.flags` bit: the model has optional sections (a pre-image map,
/// a regression head; see n_preimage and n_targets).
pub const KPCA_FLAG_SECTIONS: u32 = 4;
/// Largest number of regression targets a model may have.
pub const KPCA_MAX_TARGETS: u32 = 16;
/// The oldest model blob format version this library reads.
pub const KPCA_OLDEST_FORMAT_VERSION: u32 = 1;
/// Library version, major part (the crate version's; checked at compile time).
pub const KPCA_VERSION_MAJOR: u32 = 0;
/// Library version, minor part.
pub const KPCA_VERSION_MINOR: u32 = 1;
/// Library version, patch part.
pub const KPCA_VERSION_PATCH: u32 = 0;
/// Library version as one number, major * 10000 + minor * 100 + patch (0.1.0
/// is 100), for `#if KPCA_VERSION >= ...`; `kpca_version()` returns the same
/// number for the library that is linked.
pub const KPCA_VERSION: u32 =
    KPCA_VERSION_MAJOR * 10000 + KPCA_VERSION_MINOR * 100 + KPCA_VERSION_PATCH;

/// `sizeof(kpca_model)` on 32-bit targets (ILP32: every supported
/// microcontroller and RISC-V core), in bytes; alignment 4.
pub const KPCA_MODEL_SIZE_ILP32: usize = 128;
/// `sizeof(kpca_model)` on 64-bit hosts (LP64, LLP64), in bytes; alignment 8.
pub const KPCA_MODEL_SIZE_LP64: usize = 184;

/// Kernel id: linear, x'z.
pub const KPCA_KERNEL_LINEAR: u32 = 0;
/// Kernel id: polynomial, (gamma x'z + coef0)^degree.
pub const KPCA_KERNEL_POLYNOMIAL: u32 = 1;
/// Kernel id: rbf, exp(-gamma |x - z|^2).
pub const KPCA_KERNEL_RBF: u32 = 2;
/// Kernel id: laplacian, exp(-gamma |x - z|_1).
pub const KPCA_KERNEL_LAPLACIAN: u32 = 3;
/// Kernel id: sigmoid, tanh(gamma x'z + coef0).
pub const KPCA_KERNEL_SIGMOID: u32 = 4;
/// Kernel id: cosine, x'z / (|x| |z|).
pub const KPCA_KERNEL_COSINE: u32 = 5;

/// Value of `kpca_model.magic` once a model is loaded (by
/// `kpca_model_from_bytes`, or written by a generated model's initializer,
/// `kpca export --format c`).
pub const KPCA_MODEL_MAGIC: u32 = 0x4B50_4341;
const _: () = assert!(KPCA_MODEL_MAGIC == kpca_core::LOADED_MAGIC);

/// `kpca_model.precision`: the model computes in f32 (every model the loader
/// gives and every entry point of this header computes with).
pub const KPCA_PRECISION_F32: u32 = 0;
/// `kpca_model.precision`, reserved: a q15 integer model (int16 sections
/// with per-section scales, in `kpca_model.integer`), for entry points of its
/// own; the f32 entry points refuse it with KPCA_ERR_PRECISION_MISMATCH.
pub const KPCA_PRECISION_Q15: u32 = 1;
/// `kpca_model.front_end`: no front end, inputs are feature vectors (the only
/// value this version knows; others give KPCA_ERR_UNKNOWN_FRONT_END).
pub const KPCA_FRONT_END_NONE: u32 = 0;
const _: () = assert!(
    KPCA_PRECISION_F32 == kpca_core::PRECISION_F32
        && KPCA_PRECISION_Q15 == kpca_core::PRECISION_Q15
        && KPCA_FRONT_END_NONE == kpca_core::FRONT_END_NONE
);

/// A loaded model: sizes, kernel parameters and pointers to its sections.
///
/// Two ways to get one. A model blob that arrives at run time: the caller
/// owns a `kpca_model` (static or on the stack; no malloc), fills it with
/// `kpca_model_from_bytes` (every check of the blob), then only reads it; its
/// pointers point into the blob, which must stay valid and unchanged while
/// the model is used. A generated model (`kpca export --format c`): the
/// generated source defines a ready `const kpca_model NAME_model` over
/// `static const` arrays, checked by the exporter on the host, so the
/// firmware links no loader. Either way every entry point re-checks the
/// record's marker, precision, front end, sizes and kernel (O(1)). Matrices
/// are row-major.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct kpca_model {
    /// KPCA_MODEL_MAGIC once loaded (set by kpca_model_from_bytes, or by a
    /// generated model's initializer); anything else means "not loaded".
    pub magic: u32,
    /// Kernel id (KPCA_KERNEL_*).
    pub kernel: u32,
    /// Input dimension d.
    pub dim: u32,
    /// Number of stored points m (training points or Nyström landmarks).
    pub n_points: u32,
    /// Number of components k.
    pub n_components: u32,
    /// Polynomial degree (0 for other kernels).
    pub degree: u32,
    /// Kernel gamma (0 for linear and cosine).
    pub gamma: f32,
    /// Kernel coef0 (polynomial and sigmoid).
    pub coef0: f32,
    /// Anomaly threshold on kpca_anomaly_score; 0 when unset.
    pub threshold: f32,
    /// Centring constant s of the anomaly score.
    pub s: f32,
    /// How the model was fitted: 0 not recorded (a format-1 blob), 1 full,
    /// 2 Nystrom.
    pub fit_method: u32,
    /// Training rows n of the fit (0 when not recorded).
    pub n_train: u32,
    /// Total variance of the fit, in the units of the eigenvalues (0 when not
    /// recorded): component l's eigenvalue over it is the share of the
    /// variance that component explains.
    pub total_variance: f32,
    /// The blob's flags: bit 0 (1) inputs standardised, bit 1 (2) the stored
    /// points are a folded linear map (linear and cosine models: the k
    /// columns of W = Z'A and the score's centring vector, so m = k + 1).
    pub flags: u32,
    /// Rows n of the pre-image map (0 when the model has none).
    pub n_preimage: u32,
    /// Regression targets t (0 when the model has no regression head).
    pub n_targets: u32,
    /// The arithmetic of the sections: KPCA_PRECISION_F32 (0; the only one
    /// the entry points of this header compute in), KPCA_PRECISION_Q15
    /// reserved for integer models.
    pub precision: u32,
    /// The front end turning raw samples into input vectors:
    /// KPCA_FRONT_END_NONE (0, inputs are feature vectors) is the only one yet.
    pub front_end: u32,
    /// Per-feature mean (d floats), or NULL when inputs are not standardised.
    pub mean: *const f32,
    /// Per-feature 1/std (d floats), or NULL when inputs are not standardised.
    pub inv_std: *const f32,
    /// Stored points, m x d.
    pub points: *const f32,
    /// Squared norm of each stored point, m.
    pub point_sq_norms: *const f32,
    /// Projection matrix A, m x k.
    pub a: *const f32,
    /// Projection offset b, k.
    pub b: *const f32,
    /// Centring weights c of the score, m.
    pub c: *const f32,
    /// Eigenvalues mu_l of the centred kernel matrix, k (for reporting;
    /// scikit-learn's eigenvalues_; a format-1 Nystrom blob stored mu_l / n).
    pub eigenvalues: *const f32,
    /// Pre-image map: training score vectors, n x k, or NULL.
    pub preimage_scores: *const f32,
    /// Pre-image map: dual coefficients, n x d, then the offset row (d), or NULL.
    pub preimage_coef: *const f32,
    /// Regression head: weights, k x t (component l, target j at l * t + j), or NULL.
    pub reg_weights: *const f32,
    /// Regression head: intercepts, t, or NULL.
    pub reg_intercept: *const f32,
    /// The integer sections record of an integer model, NULL for an f32
    /// model (reserved: NULL in every model of this version).
    pub integer: *const c_void,
    /// The front-end section, NULL when front_end is 0 (reserved: NULL in
    /// every model of this version).
    pub front: *const c_void,
}

/// Runs `body`, mapping its error to a status code.
fn guard(body: impl FnOnce() -> Result<(), Error>) -> kpca_status {
    match body() {
        Ok(()) => KPCA_OK,
        Err(e) => e.code(),
    }
}

/// A slice from a C pointer and an element count; `NULL, 0` is empty.
///
/// # Safety
/// When `ptr` is non-NULL it must point to `len` readable, initialised `T`s that
/// stay valid and unmodified for `'a`.
unsafe fn slice_in<'a, T>(ptr: *const T, len: usize) -> Result<&'a [T], Error> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(Error::NullPointer)
        };
    }
    if ptr.align_offset(core::mem::align_of::<T>()) != 0 {
        return Err(Error::MisalignedBuffer);
    }
    if len > isize::MAX as usize / core::mem::size_of::<T>().max(1) {
        return Err(Error::InputLength);
    }
    // SAFETY: non-NULL and aligned (checked), `len` elements readable for 'a (caller),
    // total size within isize::MAX (checked).
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// A mutable slice from a C pointer and an element count; `NULL, 0` is empty.
///
/// # Safety
/// When `ptr` is non-NULL it must point to `len` writable `T`s, valid for `'a`
/// and not accessed through any other pointer meanwhile.
unsafe fn slice_out<'a, T>(ptr: *mut T, len: usize) -> Result<&'a mut [T], Error> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&mut [])
        } else {
            Err(Error::NullPointer)
        };
    }
    if ptr.align_offset(core::mem::align_of::<T>()) != 0 {
        return Err(Error::MisalignedBuffer);
    }
    if len > isize::MAX as usize / core::mem::size_of::<T>().max(1) {
        return Err(Error::OutputLength);
    }
    // SAFETY: as in `slice_in`, plus exclusive access guaranteed by the caller.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr, len) })
}

/// A shared reference from a C pointer.
///
/// # Safety
/// When non-NULL, `ptr` must point to a valid, initialised `T` for `'a`.
unsafe fn ref_in<'a, T>(ptr: *const T) -> Result<&'a T, Error> {
    if ptr.align_offset(core::mem::align_of::<T>()) != 0 {
        return Err(Error::MisalignedBuffer);
    }
    // SAFETY: aligned (checked) and valid when non-NULL (caller); NULL gives None.
    unsafe { ptr.as_ref() }.ok_or(Error::NullPointer)
}

/// Checks that a pointer to one output value is non-NULL and aligned, without
/// writing through it: for outputs written after other work that must not
/// happen when the output pointer is bad.
///
/// # Safety
/// When non-NULL, `ptr` must be valid for a write of `T`.
unsafe fn check_out<T>(ptr: *mut T) -> Result<(), Error> {
    // SAFETY: forwarded to the caller's contract; the slice is dropped at once.
    unsafe { slice_out(ptr, 1) }.map(|_| ())
}

/// Writes `value` through a C pointer that was checked non-NULL and aligned.
///
/// # Safety
/// When non-NULL, `ptr` must be valid for a write of `T`.
unsafe fn write_out<T>(ptr: *mut T, value: T) -> Result<(), Error> {
    // SAFETY: forwarded to the caller's contract; the checks live in slice_out.
    let slot = unsafe { slice_out(ptr, 1) }?;
    if let Some(s) = slot.first_mut() {
        *s = value;
    }
    Ok(())
}

// A `kpca_model` is the core's `RawModel` in C: the same layout, field by
// field, so a loaded `kpca_model` is read as the model view in place.
const _: () = {
    assert!(size_of::<kpca_model>() == size_of::<RawModel>());
    assert!(align_of::<kpca_model>() == align_of::<RawModel>());
    assert!(offset_of!(kpca_model, magic) == offset_of!(RawModel, magic));
    assert!(offset_of!(kpca_model, kernel) == offset_of!(RawModel, kernel));
    assert!(offset_of!(kpca_model, dim) == offset_of!(RawModel, dim));
    assert!(offset_of!(kpca_model, n_points) == offset_of!(RawModel, n_points));
    assert!(offset_of!(kpca_model, n_components) == offset_of!(RawModel, n_components));
    assert!(offset_of!(kpca_model, degree) == offset_of!(RawModel, degree));
    assert!(offset_of!(kpca_model, gamma) == offset_of!(RawModel, gamma));
    assert!(offset_of!(kpca_model, coef0) == offset_of!(RawModel, coef0));
    assert!(offset_of!(kpca_model, threshold) == offset_of!(RawModel, threshold));
    assert!(offset_of!(kpca_model, s) == offset_of!(RawModel, s));
    assert!(offset_of!(kpca_model, fit_method) == offset_of!(RawModel, fit_method));
    assert!(offset_of!(kpca_model, n_train) == offset_of!(RawModel, n_train));
    assert!(offset_of!(kpca_model, total_variance) == offset_of!(RawModel, total_variance));
    assert!(offset_of!(kpca_model, flags) == offset_of!(RawModel, flags));
    assert!(offset_of!(kpca_model, mean) == offset_of!(RawModel, mean));
    assert!(offset_of!(kpca_model, inv_std) == offset_of!(RawModel, inv_std));
    assert!(offset_of!(kpca_model, points) == offset_of!(RawModel, points));
    assert!(offset_of!(kpca_model, point_sq_norms) == offset_of!(RawModel, point_sq_norms));
    assert!(offset_of!(kpca_model, a) == offset_of!(RawModel, a));
    assert!(offset_of!(kpca_model, b) == offset_of!(RawModel, b));
    assert!(offset_of!(kpca_model, c) == offset_of!(RawModel, c));
    assert!(offset_of!(kpca_model, eigenvalues) == offset_of!(RawModel, eigenvalues));
    assert!(offset_of!(kpca_model, n_preimage) == offset_of!(RawModel, n_preimage));
    assert!(offset_of!(kpca_model, n_targets) == offset_of!(RawModel, n_targets));
    assert!(offset_of!(kpca_model, preimage_scores) == offset_of!(RawModel, preimage_scores));
    assert!(offset_of!(kpca_model, preimage_coef) == offset_of!(RawModel, preimage_coef));
    assert!(offset_of!(kpca_model, reg_weights) == offset_of!(RawModel, reg_weights));
    assert!(offset_of!(kpca_model, reg_intercept) == offset_of!(RawModel, reg_intercept));
    assert!(offset_of!(kpca_model, precision) == offset_of!(RawModel, precision));
    assert!(offset_of!(kpca_model, front_end) == offset_of!(RawModel, front_end));
    assert!(offset_of!(kpca_model, integer) == offset_of!(RawModel, integer));
    assert!(offset_of!(kpca_model, front) == offset_of!(RawModel, front));
};

impl kpca_model {
    /// The model view, in place, after the cheap checks of
    /// [`ModelRef::from_raw`] (marker, sizes, kernel id); the data itself was
    /// validated by the loader and is not re-read.
    ///
    /// # Safety
    /// `self` must have been filled by `kpca_model_from_bytes` and not modified,
    /// and the blob it points into must still be valid and unchanged.
    #[inline(always)]
    unsafe fn view(&self) -> Result<&ModelRef<'_>, Error> {
        // SAFETY: `RawModel` has the layout of `kpca_model` (asserted above)
        // and every bit pattern of its fields is valid; the reference borrows
        // `self`.
        let raw = unsafe { &*(self as *const kpca_model).cast::<RawModel>() };
        // SAFETY: the caller's contract (filled by the loader from a view's
        // record, blob unchanged) is the contract of `from_raw`.
        unsafe { ModelRef::from_raw(raw) }
    }
}

/// A static English description of a status code (never NULL; unknown codes
/// give "unknown status").
#[no_mangle]
pub extern "C" fn kpca_status_str(status: kpca_status) -> *const c_char {
    if status == KPCA_OK {
        return c"ok".as_ptr();
    }
    match Error::try_from(status) {
        Ok(e) => e.c_message().as_ptr(),
        Err(_) => c"unknown status".as_ptr(),
    }
}

/// The linked library's version, major * 10000 + minor * 100 + patch: equal
/// to `KPCA_VERSION` when the header and the library agree.
#[no_mangle]
pub extern "C" fn kpca_version() -> u32 {
    KPCA_VERSION
}

/// Validates a model blob (header, length, CRC-32, dimensions, kernel,
/// finiteness) and fills `*model` with pointers into it. Zero-copy: `blob` must
/// stay valid and unchanged while the model is used, and must be 4-byte aligned.
/// `*model` is written only on success.
///
/// # Safety
/// `model` must be NULL or point to writable memory for one `kpca_model`; `blob`
/// must be NULL or point to `len` readable bytes that outlive the model's use.
#[no_mangle]
pub unsafe extern "C" fn kpca_model_from_bytes(
    model: *mut kpca_model,
    blob: *const u8,
    len: usize,
) -> kpca_status {
    guard(|| {
        if model.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: caller contract on `blob`.
        let bytes = unsafe { slice_in(blob, len) }?;
        // Loaded in this frame and copied out only on success.
        let mut slot = core::mem::MaybeUninit::uninit();
        let raw = RawModel::load_into(&mut slot, bytes)?;
        // SAFETY: caller contract on `model` (non-NULL checked above);
        // `RawModel` has the layout of `kpca_model` (asserted above).
        let out = unsafe { slice_out(model.cast::<RawModel>(), 1) }?;
        if let Some(dst) = out.first_mut() {
            raw.copy_into(dst);
        }
        Ok(())
    })
}

/// Shared body of the per-vector entry points.
///
/// # Safety
/// As for the entry points: `model` loaded, `x` valid for `x_len` floats.
unsafe fn with_input<R>(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    body: impl FnOnce(&ModelRef<'_>, &[f32]) -> Result<R, Error>,
) -> Result<R, Error> {
    // SAFETY: caller contract.
    let model = unsafe { ref_in(model) }?;
    // SAFETY: caller contract: loaded by kpca_model_from_bytes, blob still valid.
    let view = unsafe { model.view() }?;
    // SAFETY: caller contract on `x`.
    let x = unsafe { slice_in(x, x_len) }?;
    body(view, x)
}

/// How an entry point evaluates a vector: [`AnyKernel`] (every kernel, the
/// `kpca_project` family) or [`Only`] one kernel (the `kpca_<kernel>_*`
/// family, which links only that kernel's code).
trait Eval {
    /// Whether the entry points share one copy of their body
    /// ([`evaluate_with`]).
    const SHARED: bool;
    /// Coordinates into `out` and / or the anomaly score into `score`
    /// ([`ModelRef::evaluate`]).
    fn evaluate(
        view: &ModelRef<'_>,
        x: &[f32],
        out: Option<&mut [f32]>,
        score: Option<&mut f32>,
    ) -> Result<(), Error>;
    /// Whether the score exceeds the threshold.
    fn is_anomaly(view: &ModelRef<'_>, x: &[f32]) -> Result<bool, Error>;
}

/// Every kernel: the [`ModelRef`] methods.
struct AnyKernel;

impl Eval for AnyKernel {
    // The size-first build shares one copy here too.
    const SHARED: bool = cfg!(feature = "size");
    fn evaluate(
        view: &ModelRef<'_>,
        x: &[f32],
        out: Option<&mut [f32]>,
        score: Option<&mut f32>,
    ) -> Result<(), Error> {
        view.evaluate(x, out, score)
    }
    fn is_anomaly(view: &ModelRef<'_>, x: &[f32]) -> Result<bool, Error> {
        view.is_anomaly(x)
    }
}

/// One kernel: the [`kpca_core::single::SingleKernel`] methods
/// (`KPCA_ERR_KERNEL_MISMATCH` for a model of another kernel).
struct Only<K>(core::marker::PhantomData<K>);

impl<K: KernelKind> Eval for Only<K> {
    const SHARED: bool = true;
    fn evaluate(
        view: &ModelRef<'_>,
        x: &[f32],
        out: Option<&mut [f32]>,
        score: Option<&mut f32>,
    ) -> Result<(), Error> {
        view.for_kernel::<K>()?.evaluate(x, out, score)
    }
    fn is_anomaly(view: &ModelRef<'_>, x: &[f32]) -> Result<bool, Error> {
        view.for_kernel::<K>()?.is_anomaly(x)
    }
}

/// [`evaluate_with`] asks for the coordinates (into `out`).
const WANT_OUT: u32 = 1;
/// [`evaluate_with`] asks for the anomaly score (into `*score`).
const WANT_SCORE: u32 = 2;

/// The one body of `kpca_project`, `kpca_anomaly_score`,
/// `kpca_project_and_score` and their single-kernel twins, asked for the
/// outputs in `want` ([`WANT_OUT`], [`WANT_SCORE`]). [`Eval::SHARED`] says
/// whether it runs here, inlined into each entry point (every kernel: the
/// fewest instructions per call), or through [`evaluate_shared`] (one
/// kernel: one copy for its entry points, each a call of a few bytes).
///
/// # Safety
/// As `kpca_project_and_score` (a pointer of an output not asked for is
/// not read).
#[inline(always)]
unsafe fn evaluate_with<E: Eval>(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    (out, out_len): (*mut f32, usize),
    score: *mut f32,
    want: u32,
) -> kpca_status {
    if E::SHARED {
        // SAFETY: caller contract, forwarded.
        return unsafe { evaluate_shared::<E>(model, x, x_len, (out, out_len), score, want) };
    }
    // SAFETY: caller contract, forwarded.
    unsafe { evaluate_here::<E>(model, x, x_len, (out, out_len), score, want) }
}

/// [`evaluate_here`], not inlined.
///
/// # Safety
/// As [`evaluate_with`].
#[inline(never)]
unsafe fn evaluate_shared<E: Eval>(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    (out, out_len): (*mut f32, usize),
    score: *mut f32,
    want: u32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { evaluate_here::<E>(model, x, x_len, (out, out_len), score, want) }
}

/// The checks and the call of [`evaluate_with`].
///
/// # Safety
/// As [`evaluate_with`].
#[inline(always)]
unsafe fn evaluate_here<E: Eval>(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    (out, out_len): (*mut f32, usize),
    score: *mut f32,
    want: u32,
) -> kpca_status {
    guard(|| {
        // SAFETY: caller contract, forwarded.
        unsafe {
            with_input(model, x, x_len, |view, x| {
                // Both outputs are checked before either is written.
                let score = match want & WANT_SCORE {
                    0 => None,
                    _ => Some(slice_out(score, 1)?),
                };
                let out = match want & WANT_OUT {
                    0 => None,
                    _ => Some(slice_out(out, out_len)?),
                };
                E::evaluate(view, x, out, score.and_then(|s| s.first_mut()))
            })
        }
    })
}

/// The body of `kpca_project` and its single-kernel twins.
///
/// # Safety
/// As `kpca_project`.
#[inline(always)]
unsafe fn project_with<E: Eval>(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe {
        evaluate_with::<E>(
            model,
            x,
            x_len,
            (out, out_len),
            core::ptr::null_mut(),
            WANT_OUT,
        )
    }
}

/// The body of `kpca_anomaly_score` and its single-kernel twins.
///
/// # Safety
/// As `kpca_anomaly_score`.
#[inline(always)]
unsafe fn score_with<E: Eval>(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe {
        evaluate_with::<E>(
            model,
            x,
            x_len,
            (core::ptr::null_mut(), 0),
            score,
            WANT_SCORE,
        )
    }
}

/// The body of `kpca_project_and_score` and its single-kernel twins.
///
/// # Safety
/// As `kpca_project_and_score`.
#[inline(always)]
unsafe fn project_and_score_with<E: Eval>(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe {
        evaluate_with::<E>(
            model,
            x,
            x_len,
            (out, out_len),
            score,
            WANT_OUT | WANT_SCORE,
        )
    }
}

/// The body of `kpca_is_anomaly` and its single-kernel twins.
///
/// # Safety
/// As `kpca_is_anomaly`.
#[inline(always)]
unsafe fn is_anomaly_with<E: Eval>(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    is_anomaly: *mut u8,
) -> kpca_status {
    guard(|| {
        // SAFETY: caller contract, forwarded.
        unsafe {
            let flag = with_input(model, x, x_len, |view, x| {
                if is_anomaly.is_null() {
                    return Err(Error::NullPointer);
                }
                E::is_anomaly(view, x)
            })?;
            write_out(is_anomaly, u8::from(flag))
        }
    })
}

/// Computes the k kernel-PCA coordinates of `x` (`x_len` = d floats) into
/// `out[0..k]` (`out_len` >= k). `out` is written only on success.
///
/// # Safety
/// `model` must be NULL or a model filled by `kpca_model_from_bytes` whose blob is
/// still valid; `x` NULL or valid for `x_len` floats; `out` NULL or valid for
/// writing `out_len` floats, not overlapping `x`.
#[no_mangle]
pub unsafe extern "C" fn kpca_project(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_with::<AnyKernel>(model, x, x_len, out, out_len) }
}

/// Computes the anomaly score of `x` (the feature-space reconstruction error)
/// into `*score`, written only on success.
///
/// # Safety
/// As `kpca_project`; `score` NULL or valid for writing one float.
#[no_mangle]
pub unsafe extern "C" fn kpca_anomaly_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { score_with::<AnyKernel>(model, x, x_len, score) }
}

/// Coordinates into `out[0..k]` and the anomaly score into `*score` in one pass;
/// both written only on success.
///
/// # Safety
/// As `kpca_project` and `kpca_anomaly_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_project_and_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_and_score_with::<AnyKernel>(model, x, x_len, out, out_len, score) }
}

/// Sets `*is_anomaly` to 1 when the anomaly score of `x` exceeds the model's
/// threshold, else 0. `KPCA_ERR_THRESHOLD_UNSET` when the model has none.
///
/// # Safety
/// As `kpca_anomaly_score`; `is_anomaly` NULL or valid for writing one byte.
#[no_mangle]
pub unsafe extern "C" fn kpca_is_anomaly(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    is_anomaly: *mut u8,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { is_anomaly_with::<AnyKernel>(model, x, x_len, is_anomaly) }
}

/// The pre-image of `x` (`x_len` = d floats) into `out[0..d]` (`out_len` >= d):
/// the model's learned map from the coordinates of `x` back to the input space,
/// in the input's units; `x[j] - out[j]` is feature j's residual (which sensor
/// channel is off). `KPCA_ERR_NO_PREIMAGE` when the model has no pre-image
/// section. `out` is written only on success for d <= 64; for wider inputs it
/// may be overwritten before `KPCA_ERR_NON_FINITE_RESULT`.
///
/// # Safety
/// As `kpca_project`, with `out` valid for writing `out_len` floats.
#[no_mangle]
pub unsafe extern "C" fn kpca_reconstruct(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    guard(|| {
        // SAFETY: caller contract, forwarded.
        unsafe {
            with_input(model, x, x_len, |view, x| {
                let out = slice_out(out, out_len)?;
                view.reconstruct(x, out)
            })
        }
    })
}

/// The model's regression predictions for `x` (`x_len` = d floats) into
/// `out[0..t]` (`out_len` >= t, t from `kpca_model_n_targets`): kernel
/// principal component regression, intercept + W' y over the coordinates y of
/// `x`. `KPCA_ERR_NO_REGRESSION` when the model has no regression head. `out`
/// is written only on success.
///
/// # Safety
/// As `kpca_project`, with `out` valid for writing `out_len` floats.
#[no_mangle]
pub unsafe extern "C" fn kpca_predict(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    guard(|| {
        // SAFETY: caller contract, forwarded.
        unsafe {
            with_input(model, x, x_len, |view, x| {
                let out = slice_out(out, out_len)?;
                view.predict(x, out)
            })
        }
    })
}

/// Projects `n = xs_len / d` row-major vectors into `out` (n x k, `out_len` >= n*k).
/// Every input is checked before anything is written; on
/// `KPCA_ERR_NON_FINITE_RESULT` the rows before the failing one were written.
///
/// # Safety
/// As `kpca_project`, with `xs` valid for `xs_len` floats and `out` for `out_len`.
#[no_mangle]
pub unsafe extern "C" fn kpca_project_batch(
    model: *const kpca_model,
    xs: *const f32,
    xs_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    guard(|| {
        // SAFETY: caller contract, forwarded.
        unsafe {
            with_input(model, xs, xs_len, |view, xs| {
                let out = slice_out(out, out_len)?;
                view.project_batch(xs, out).map(|_| ())
            })
        }
    })
}

/// Anomaly scores of `n = xs_len / d` row-major vectors into `scores[0..n]`
/// (`scores_len` >= n), with the rules of `kpca_project_batch`.
///
/// # Safety
/// As `kpca_project_batch`, with `scores` valid for writing `scores_len` floats.
#[no_mangle]
pub unsafe extern "C" fn kpca_anomaly_score_batch(
    model: *const kpca_model,
    xs: *const f32,
    xs_len: usize,
    scores: *mut f32,
    scores_len: usize,
) -> kpca_status {
    guard(|| {
        // SAFETY: caller contract, forwarded.
        unsafe {
            with_input(model, xs, xs_len, |view, xs| {
                let scores = slice_out(scores, scores_len)?;
                view.anomaly_score_batch(xs, scores).map(|_| ())
            })
        }
    })
}

/// Reads one field of a loaded model into `*out`.
///
/// # Safety
/// `model` NULL or loaded; `out` NULL or valid for writing one `T`.
unsafe fn get<T>(
    model: *const kpca_model,
    out: *mut T,
    field: impl FnOnce(&kpca_model) -> T,
) -> kpca_status {
    guard(|| {
        // SAFETY: caller contract, forwarded.
        unsafe {
            let m = ref_in(model)?;
            if m.magic != KPCA_MODEL_MAGIC {
                return Err(Error::ModelNotLoaded);
            }
            if out.is_null() {
                return Err(Error::NullPointer);
            }
            write_out(out, field(m))
        }
    })
}

/// The model's input dimension d.
///
/// # Safety
/// `model` NULL or loaded; `dim` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn kpca_model_dim(model: *const kpca_model, dim: *mut usize) -> kpca_status {
    // SAFETY: forwarded.
    unsafe { get(model, dim, |m| m.dim as usize) }
}

/// The model's number of components k (the length `kpca_project` writes).
///
/// # Safety
/// `model` NULL or loaded; `n_components` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn kpca_model_n_components(
    model: *const kpca_model,
    n_components: *mut usize,
) -> kpca_status {
    // SAFETY: forwarded.
    unsafe { get(model, n_components, |m| m.n_components as usize) }
}

/// The model's number of stored points m.
///
/// # Safety
/// `model` NULL or loaded; `n_points` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn kpca_model_n_points(
    model: *const kpca_model,
    n_points: *mut usize,
) -> kpca_status {
    // SAFETY: forwarded.
    unsafe { get(model, n_points, |m| m.n_points as usize) }
}

/// The model's number of regression targets t (the length `kpca_predict`
/// writes; 0 when the model has no regression head).
///
/// # Safety
/// `model` NULL or loaded; `n_targets` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn kpca_model_n_targets(
    model: *const kpca_model,
    n_targets: *mut usize,
) -> kpca_status {
    // SAFETY: forwarded.
    unsafe { get(model, n_targets, |m| m.n_targets as usize) }
}

/// The model's anomaly threshold (0 when unset).
///
/// # Safety
/// `model` NULL or loaded; `threshold` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn kpca_model_threshold(
    model: *const kpca_model,
    threshold: *mut f32,
) -> kpca_status {
    // SAFETY: forwarded.
    unsafe { get(model, threshold, |m| m.threshold) }
}

/// The model's kernel id (KPCA_KERNEL_*).
///
/// # Safety
/// `model` NULL or loaded; `kernel` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn kpca_model_kernel(
    model: *const kpca_model,
    kernel: *mut u32,
) -> kpca_status {
    // SAFETY: forwarded.
    unsafe { get(model, kernel, |m| m.kernel) }
}

/// The decimal number at the start of `s` (a part of the crate version).
const fn version_part(s: &str) -> u32 {
    let mut rest = s.as_bytes();
    let mut v = 0u32;
    while let [digit @ b'0'..=b'9', tail @ ..] = rest {
        v = v * 10 + (*digit - b'0') as u32;
        rest = tail;
    }
    v
}

// The header states the crate version: bumping the workspace version without
// these constants (and `cargo xtask header`) does not compile.
const _: () = {
    assert!(
        KPCA_VERSION_MAJOR == version_part(env!("CARGO_PKG_VERSION_MAJOR"))
            && KPCA_VERSION_MINOR == version_part(env!("CARGO_PKG_VERSION_MINOR"))
            && KPCA_VERSION_PATCH == version_part(env!("CARGO_PKG_VERSION_PATCH")),
        "KPCA_VERSION_* differ from the crate version: update them and run `cargo xtask header`"
    );
    assert!(KPCA_VERSION_MINOR < 100 && KPCA_VERSION_PATCH < 100);
};

// The sizes the header states. When kpca_model changes, this fails: set
// KPCA_MODEL_SIZE_ILP32 / _LP64 to the new sizes (the message says how;
// tests/capi.rs checks both from the layout) and run `cargo xtask header`.
const _: () = {
    let stated = if cfg!(target_pointer_width = "32") {
        KPCA_MODEL_SIZE_ILP32
    } else {
        KPCA_MODEL_SIZE_LP64
    };
    assert!(
        cfg!(not(any(
            target_pointer_width = "32",
            target_pointer_width = "64"
        ))) || size_of::<kpca_model>() == stated,
        concat!(
            "sizeof(kpca_model) differs from KPCA_MODEL_SIZE_*: set them to 4 * (its 4-byte ",
            "fields) + 4 * (its pointers) (ILP32) and + 8 * (its pointers) (LP64), then run `cargo xtask header`"
        )
    );
};

// Compile-time agreement between the C constants and the Rust definitions.
const _: () = {
    assert!(KPCA_MAX_DIM as usize == kpca_core::MAX_DIM);
    assert!(KPCA_MAX_POINTS as usize == kpca_core::MAX_POINTS);
    assert!(KPCA_MAX_COMPONENTS as usize == kpca_core::MAX_COMPONENTS);
    assert!(KPCA_FORMAT_VERSION == FORMAT_VERSION as u32);
    assert!(KPCA_FLAG_STANDARDIZED == kpca_core::format::FLAG_STANDARDIZED);
    assert!(KPCA_FLAG_LINEAR_MAP == kpca_core::format::FLAG_LINEAR_MAP);
    assert!(KPCA_FLAG_SECTIONS == kpca_core::format::FLAG_SECTIONS);
    assert!(KPCA_MAX_TARGETS as usize == kpca_core::MAX_TARGETS);
    assert!(KPCA_OLDEST_FORMAT_VERSION == kpca_core::format::OLDEST_FORMAT_VERSION as u32);
    assert!(KPCA_KERNEL_COSINE == KernelId::Cosine as u32);
    assert!(KPCA_KERNEL_LAPLACIAN == KernelId::Laplacian as u32);
    assert!(KPCA_KERNEL_LINEAR == KernelId::Linear as u32);
    assert!(KPCA_KERNEL_POLYNOMIAL == KernelId::Polynomial as u32);
    assert!(KPCA_KERNEL_RBF == KernelId::Rbf as u32);
    assert!(KPCA_KERNEL_SIGMOID == KernelId::Sigmoid as u32);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_its_message_and_unknown_codes_have_one() {
        let text = |code| {
            // SAFETY: kpca_status_str returns a static NUL-terminated string.
            unsafe { core::ffi::CStr::from_ptr(kpca_status_str(code)) }
                .to_str()
                .unwrap()
        };
        assert_eq!(text(KPCA_OK), "ok");
        for err in Error::ALL {
            assert_eq!(text(err.code()), err.message());
        }
        for code in [-1, Error::ALL.len() as i32 + 1, i32::MIN, i32::MAX] {
            assert_eq!(text(code), "unknown status");
        }
        // Spot checks of the generated constants (tests/header.rs checks them all).
        assert_eq!(KPCA_ERR_NULL_POINTER, Error::NullPointer.code());
        assert_eq!(KPCA_ERR_NO_PREIMAGE, Error::NoPreImage.code());
        assert_eq!(KPCA_ERR_BAD_FALSE_ALARM_RATE, 35);
    }
}
