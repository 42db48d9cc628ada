//! The validated, borrowed model view every projection runs on ([`ModelRef`]),
//! its C layout ([`RawModel`]), a model as slices ([`ModelParts`]) and the
//! size limits.

use crate::error::Error;
use crate::fit_info::FitInfo;
use crate::kernel::{Kernel, KernelId};
use core::marker::PhantomData;

pub use crate::kernel::MAX_DEGREE;

/// Largest input dimension d a model may have.
pub const MAX_DIM: usize = 4096;
/// Largest number of stored points m (training points or landmarks).
pub const MAX_POINTS: usize = 1 << 20;
/// Largest number of components k.
pub const MAX_COMPONENTS: usize = 16;
/// Largest number of regression targets t a model may have.
pub const MAX_TARGETS: usize = 16;

// The flag bits of `RawModel::flags` (and of the blob header's flags,
// `crate::format`, which re-exports them).

/// Flag bit: inputs are standardised with a stored mean and 1/std.
pub const FLAG_STANDARDIZED: u32 = 1;
/// Flag bit (version 3): the model is a linear or cosine model folded into a
/// linear map when it was built, its k + 1 stored points the k columns of W =
/// Z'A and the score's centring vector, not training points or landmarks (see
/// `docs/MODEL_FORMAT.md`); its fit record keeps the training rows n.
pub const FLAG_LINEAR_MAP: u32 = 2;

/// Flag bit (version 4): optional sections ([`crate::heads`]) follow the
/// eigenvalues.
pub const FLAG_SECTIONS: u32 = 4;

/// Relative tolerance for the stored squared norms of the points against their
/// recomputation in f32 at load time.
pub(crate) const NORM_CHECK_REL_TOL: f32 = 1e-4;

/// The parts of a model, as slices, before validation. Every matrix is row-major.
///
/// With m stored points, input dimension d and k components:
/// `points` is m x d, `point_sq_norms` is m (‖z_i‖² of each stored point, in the
/// standardised space), `a` is m x k, `b` is k, `c` is m, `eigenvalues` is k;
/// `standardize`, when present, is (per-feature mean, per-feature 1/std), each d.
#[derive(Clone, Copy, Debug)]
pub struct ModelParts<'a> {
    /// Kernel and parameters.
    pub kernel: Kernel,
    /// Input dimension d.
    pub dim: usize,
    /// Number of components k.
    pub n_components: usize,
    /// Optional input standardisation: (mean, 1/std), each of length d.
    pub standardize: Option<(&'a [f32], &'a [f32])>,
    /// Stored points z_1..z_m, row-major m x d (already standardised).
    pub points: &'a [f32],
    /// ‖z_i‖² for each stored point (m).
    pub point_sq_norms: &'a [f32],
    /// Projection matrix A, row-major m x k: y = A' k_x + b.
    pub a: &'a [f32],
    /// Projection offset b (k).
    pub b: &'a [f32],
    /// Centring weights c (m) of the anomaly score.
    pub c: &'a [f32],
    /// The centring constant s of the anomaly score.
    pub s: f32,
    /// The k eigenvalues mu_l, for reporting (the convention of
    /// [`crate::fit_info`]).
    pub eigenvalues: &'a [f32],
    /// Anomaly threshold on the score; 0 means unset.
    pub threshold: f32,
    /// What the model records of its fit ([`FitInfo::NOT_RECORDED`] for none).
    pub fit: FitInfo,
    /// Whether the points are a folded linear map rather than training points
    /// or landmarks (linear and cosine kernels only; see
    /// [`FLAG_LINEAR_MAP`]): the fit record's n is then not m.
    pub linear_map: bool,
}

/// Value of [`RawModel::precision`] for a model that computes in f32 (every
/// model the loader and the f32 entry points know today).
pub const PRECISION_F32: u32 = 0;
/// Value of [`RawModel::precision`] reserved for q15 integer models (int16
/// points and coefficients with per-section scales, carried by
/// [`RawModel::integer`]; their own entry points are a later addition). The
/// f32 entry points refuse such a record with [`Error::PrecisionMismatch`].
pub const PRECISION_Q15: u32 = 1;
/// Value of [`RawModel::front_end`] for a model whose inputs are feature
/// vectors (no front end: [`RawModel::front`] is NULL). Any other value
/// names a front end (raw sensor samples to features) that this version does
/// not compute ([`Error::UnknownFrontEnd`]).
pub const FRONT_END_NONE: u32 = 0;
// `ModelRef::check_loaded` tests both fields with one OR against 0.
const _: () = assert!(PRECISION_F32 == 0 && FRONT_END_NONE == 0);

/// Value of [`RawModel::magic`] in a loaded model ("KPCA" read as a
/// little-endian u32 is a different value, so a blob is never mistaken for one).
pub const LOADED_MAGIC: u32 = 0x4B50_4341;

/// The C layout of a loaded model (the `kpca_model` of `include/kpca.h`):
/// sizes, kernel parameters and pointers to the sections. A plain record with
/// no invariant of its own; [`ModelRef`] wraps one that has been validated.
///
/// Matrices are row-major; `mean` and `inv_std` are NULL when inputs are not
/// standardised.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RawModel {
    /// [`LOADED_MAGIC`] once validated; anything else means "not loaded".
    pub magic: u32,
    /// Kernel id ([`KernelId`] as u32).
    pub kernel: u32,
    /// Input dimension d.
    pub dim: u32,
    /// Stored points m.
    pub n_points: u32,
    /// Components k.
    pub n_components: u32,
    /// Polynomial degree (0 for the other kernels).
    pub degree: u32,
    /// Kernel gamma (0 where unused).
    pub gamma: f32,
    /// Kernel coef0 (0 where unused).
    pub coef0: f32,
    /// Anomaly threshold, 0 when unset.
    pub threshold: f32,
    /// Centring constant s of the anomaly score.
    pub s: f32,
    /// The fit's method ([`crate::FitMethod`] as u32; 0 = not recorded).
    pub fit_method: u32,
    /// The fit's training rows n (0 = not recorded).
    pub n_train: u32,
    /// The fit's total variance, in the units of the eigenvalues (0 = not recorded).
    pub total_variance: f32,
    /// The blob's flags ([`FLAG_STANDARDIZED`],
    /// [`FLAG_LINEAR_MAP`]); also keeps the pointers 8-aligned
    /// on 64-bit hosts without padding.
    pub flags: u32,
    /// Rows n of the pre-image map (0 = the model has none).
    pub n_preimage: u32,
    /// Regression targets t (0 = the model has no regression head).
    pub n_targets: u32,
    /// The arithmetic of the model's sections: [`PRECISION_F32`] (the only
    /// one the f32 entry points compute in), [`PRECISION_Q15`] reserved.
    pub precision: u32,
    /// The front end that turns raw samples into the model's input vectors:
    /// [`FRONT_END_NONE`] (inputs are feature vectors) is the only one yet.
    /// With the u32 fields before it, an even count keeps the pointers
    /// 8-aligned on 64-bit hosts without padding.
    pub front_end: u32,
    /// Per-feature mean (d), or NULL.
    pub mean: *const f32,
    /// Per-feature 1/std (d), or NULL.
    pub inv_std: *const f32,
    /// Stored points, m x d.
    pub points: *const f32,
    /// ‖z_i‖² of each stored point, m.
    pub point_sq_norms: *const f32,
    /// Projection matrix A, m x k.
    pub a: *const f32,
    /// Projection offset b, k.
    pub b: *const f32,
    /// Centring weights c, m.
    pub c: *const f32,
    /// Eigenvalues, k.
    pub eigenvalues: *const f32,
    /// Pre-image map: training score vectors, n x k, or NULL.
    pub preimage_scores: *const f32,
    /// Pre-image map: dual coefficients, n x d, or NULL.
    pub preimage_coef: *const f32,
    /// Regression head: weights, k x t, or NULL.
    pub reg_weights: *const f32,
    /// Regression head: intercepts, t, or NULL.
    pub reg_intercept: *const f32,
    /// The integer sections record of an integer model (its int16 sections
    /// and their scales), or NULL for an f32 model. Reserved: no model has
    /// one yet.
    pub integer: *const core::ffi::c_void,
    /// The front-end section (what turns raw samples into input vectors),
    /// or NULL when `front_end` is [`FRONT_END_NONE`]. Reserved: no model has
    /// one yet.
    pub front: *const core::ffi::c_void,
}

/// A validated, borrowed kernel PCA model: the one thing projections run on.
///
/// Build it with [`ModelRef::from_bytes`] (a blob, zero-copy),
/// [`ModelRef::from_parts`] (slices) or [`crate::OwnedModel::as_model_ref`].
/// Validation happens once, there, and the type carries its result: the
/// per-vector path only checks its inputs, never the model again.
///
/// Invariant (established by every constructor): for `'a`, `points` is valid
/// for m·d reads, `point_sq_norms` and `c` for m, `a` for m·k, `b` and
/// `eigenvalues` for k, and `mean`, `inv_std` are both NULL or both valid for
/// d; 1 <= d <= [`MAX_DIM`], 1 <= m <= [`MAX_POINTS`], 1 <= k <=
/// [`MAX_COMPONENTS`]; a non-zero `n_preimage` (at most [`MAX_POINTS`]) means
/// `preimage_scores` is valid for n·k reads and `preimage_coef` for (n+1)·d, a
/// non-zero `n_targets` (at most [`MAX_TARGETS`]) that
/// `reg_weights` is valid for k·t and `reg_intercept` for t; `kernel` is a [`KernelId`] with valid
/// parameters; every number is finite and the model is consistent (see
/// [`ModelRef::from_parts`]).
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct ModelRef<'a> {
    pub(crate) raw: RawModel,
    _data: PhantomData<&'a [f32]>,
}

// `ModelRef::from_raw` casts a `&RawModel` to a `&ModelRef`.
const _: () = {
    assert!(core::mem::size_of::<ModelRef<'static>>() == core::mem::size_of::<RawModel>());
    assert!(core::mem::align_of::<ModelRef<'static>>() == core::mem::align_of::<RawModel>());
};

// SAFETY: a `ModelRef<'a>` is, by its invariant, a set of shared `&'a [f32]`
// borrows (read only, never written through), which are Send and Sync.
#[allow(unsafe_code)]
unsafe impl Send for ModelRef<'_> {}
// SAFETY: as for Send: only shared reads through the pointers.
#[allow(unsafe_code)]
unsafe impl Sync for ModelRef<'_> {}

impl core::fmt::Debug for ModelRef<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ModelRef")
            .field("kernel", &self.kernel())
            .field("dim", &self.dim())
            .field("n_points", &self.n_points())
            .field("n_components", &self.n_components())
            .field("standardized", &self.is_standardized())
            .field("threshold", &self.raw.threshold)
            .finish_non_exhaustive()
    }
}

/// The sections of a model.
#[derive(Clone, Copy)]
pub(crate) enum Section {
    Points,
    Norms,
    A,
    B,
    C,
    Eigenvalues,
    Mean,
    InvStd,
}

/// u32 to usize (lossless on the 32- and 64-bit targets this crate supports).
#[inline(always)]
pub(crate) fn to_usize(v: u32) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// usize to u32, saturating (sizes are checked against maxima far below u32::MAX).
#[inline(always)]
pub(crate) fn to_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

fn all_finite(values: &[f32]) -> bool {
    values.iter().all(|v| {
        crate::codegen::keep_rolled();
        v.is_finite()
    })
}

/// The blob flags of a model with or without standardisation and a folded
/// linear map.
pub(crate) fn flags_of(standardized: bool, linear_map: bool) -> u32 {
    let mut flags = 0;
    if standardized {
        flags |= FLAG_STANDARDIZED;
    }
    if linear_map {
        flags |= FLAG_LINEAR_MAP;
    }
    flags
}

/// Checks that `d`, `m`, `k` are non-zero and within the stated maxima.
pub(crate) fn check_dims(dim: usize, n_points: usize, n_components: usize) -> Result<(), Error> {
    if dim == 0 || n_points == 0 || n_components == 0 {
        return Err(Error::ZeroDimension);
    }
    if dim > MAX_DIM || n_points > MAX_POINTS || n_components > MAX_COMPONENTS {
        return Err(Error::DimensionTooLarge);
    }
    Ok(())
}

/// The consistency checks of a model whose numbers are finite: 1/std > 0,
/// threshold >= 0 ([`Error::InconsistentModel`]), and each stored squared norm
/// against its point's, recomputed in f32 ([`Error::NonFiniteModel`] if that
/// overflows, [`Error::InconsistentModel`] if it differs by more than
/// [`NORM_CHECK_REL_TOL`]).
pub(crate) fn check_consistency(
    inv_std: &[f32],
    threshold: f32,
    points: &[f32],
    norms: &[f32],
    d: usize,
) -> Result<(), Error> {
    let bad_inv_std = inv_std.iter().any(|&v| {
        crate::codegen::keep_rolled();
        v <= 0.0
    });
    if bad_inv_std || threshold < 0.0 {
        return Err(Error::InconsistentModel);
    }
    for (z, &stored) in points.chunks_exact(d.max(1)).zip(norms) {
        let computed: f32 = z
            .iter()
            .map(|v| {
                crate::codegen::keep_rolled();
                v * v
            })
            .sum();
        if !computed.is_finite() {
            return Err(Error::NonFiniteModel);
        }
        if libm::fabsf(stored - computed) > NORM_CHECK_REL_TOL * computed + f32::MIN_POSITIVE {
            return Err(Error::InconsistentModel);
        }
    }
    Ok(())
}

impl RawModel {
    /// Copies this record into `dst` one pointer-sized word at a time: an
    /// assignment of the whole record (128 bytes on 32-bit targets) is a call
    /// of `memcpy`, which would link the compiler runtime's (about 700 bytes
    /// of flash on a Cortex-M4F) into every firmware that loads a model.
    #[allow(unsafe_code)]
    pub fn copy_into(&self, dst: &mut RawModel) {
        use core::mem::{align_of, size_of, MaybeUninit};
        type Word = MaybeUninit<usize>;
        const WORDS: usize = size_of::<RawModel>() / size_of::<Word>();
        const _: () = assert!(
            size_of::<RawModel>().is_multiple_of(size_of::<Word>())
                && align_of::<RawModel>() >= align_of::<Word>()
        );
        let from = (self as *const RawModel).cast::<Word>();
        let to = (dst as *mut RawModel).cast::<Word>();
        for i in 0..WORDS {
            crate::codegen::keep_rolled();
            // SAFETY: both records are WORDS aligned words (asserted above)
            // with no padding (the fields are 4-byte numbers, then pointers,
            // 72 bytes of numbers before them on 64-bit targets), and `dst` is
            // borrowed exclusively, so i < WORDS reads and writes inside them.
            // Words are copied as `MaybeUninit`, which keeps the pointers'
            // provenance; every field is valid for any bits, so `dst` is a
            // valid record after every word and equal to `self` after the last.
            unsafe { to.add(i).write(from.add(i).read()) };
        }
    }
}

impl<'a> ModelRef<'a> {
    /// Validates `parts` and returns the view. Checks, in order: dimensions
    /// (non-zero, within maxima), kernel parameters, slice lengths, finiteness,
    /// 1/std > 0, the stored norms against the points, and the threshold (>= 0).
    pub fn from_parts(parts: ModelParts<'a>) -> Result<ModelRef<'a>, Error> {
        let d = parts.dim;
        let k = parts.n_components;
        let m = parts.c.len();
        check_dims(d, m, k)?;
        parts.kernel.validate()?;
        let (mean, inv_std): (&[f32], &[f32]) = match parts.standardize {
            Some((mean, inv_std)) => (mean, inv_std),
            None => (&[], &[]),
        };
        let lengths_ok = (mean.is_empty() || mean.len() == d)
            && inv_std.len() == mean.len()
            && Some(parts.points.len()) == m.checked_mul(d)
            && parts.point_sq_norms.len() == m
            && Some(parts.a.len()) == m.checked_mul(k)
            && parts.b.len() == k
            && parts.eigenvalues.len() == k;
        if !lengths_ok {
            return Err(Error::PartsLength);
        }
        let finite = [
            mean,
            inv_std,
            parts.points,
            parts.point_sq_norms,
            parts.a,
            parts.b,
            parts.c,
            parts.eigenvalues,
        ]
        .iter()
        .all(|s| all_finite(s))
            && parts.s.is_finite()
            && parts.threshold.is_finite();
        if !finite {
            return Err(Error::NonFiniteModel);
        }
        if parts.linear_map && !crate::kernel::folds_to_linear_map(parts.kernel.id() as u32) {
            return Err(Error::InconsistentModel);
        }
        parts.fit.check(m, parts.linear_map)?;
        check_consistency(
            inv_std,
            parts.threshold,
            parts.points,
            parts.point_sq_norms,
            d,
        )?;
        Ok(ModelRef::from_checked_parts(&parts, m))
    }

    /// The view of parts that passed the checks of [`ModelRef::from_parts`]
    /// (or, for [`crate::OwnedModel`], its setters'), with m stored points.
    pub(crate) fn from_checked_parts(parts: &ModelParts<'a>, m: usize) -> ModelRef<'a> {
        let (gamma, degree, coef0) = parts.kernel.params();
        let (mean, inv_std) = match parts.standardize {
            Some((mean, inv_std)) => (mean.as_ptr(), inv_std.as_ptr()),
            None => (core::ptr::null(), core::ptr::null()),
        };
        ModelRef {
            raw: RawModel {
                magic: LOADED_MAGIC,
                kernel: parts.kernel.id() as u32,
                dim: to_u32(parts.dim),
                n_points: to_u32(m),
                n_components: to_u32(parts.n_components),
                degree,
                gamma,
                coef0,
                threshold: parts.threshold,
                s: parts.s,
                fit_method: parts.fit.method as u32,
                n_train: parts.fit.n_train,
                total_variance: parts.fit.total_variance,
                flags: flags_of(parts.standardize.is_some(), parts.linear_map),
                mean,
                inv_std,
                points: parts.points.as_ptr(),
                point_sq_norms: parts.point_sq_norms.as_ptr(),
                a: parts.a.as_ptr(),
                b: parts.b.as_ptr(),
                c: parts.c.as_ptr(),
                eigenvalues: parts.eigenvalues.as_ptr(),
                n_preimage: 0,
                n_targets: 0,
                precision: PRECISION_F32,
                front_end: FRONT_END_NONE,
                preimage_scores: core::ptr::null(),
                preimage_coef: core::ptr::null(),
                reg_weights: core::ptr::null(),
                reg_intercept: core::ptr::null(),
                integer: core::ptr::null(),
                front: core::ptr::null(),
            },
            _data: PhantomData,
        }
    }

    /// The view of a record whose data the loader has validated completely
    /// (the invariant of `ModelRef` holds for `'a`; see `format::load`).
    pub(crate) fn from_validated_raw(raw: RawModel) -> ModelRef<'a> {
        ModelRef {
            raw,
            _data: PhantomData,
        }
    }

    /// The cheap checks of a record in caller memory.
    fn check_loaded(raw: &RawModel) -> Result<(), Error> {
        if raw.magic != LOADED_MAGIC {
            return Err(Error::ModelNotLoaded);
        }
        // One test on the per-call path for both (PRECISION_F32 and
        // FRONT_END_NONE are 0, asserted below the constants).
        if raw.precision | raw.front_end != 0 {
            return Err(if raw.precision != PRECISION_F32 {
                Error::PrecisionMismatch
            } else {
                Error::UnknownFrontEnd
            });
        }
        let (d, m, k) = (
            to_usize(raw.dim),
            to_usize(raw.n_points),
            to_usize(raw.n_components),
        );
        if check_dims(d, m, k).is_err() {
            return Err(Error::ModelNotLoaded);
        }
        if raw.kernel > KernelId::Cosine as u32 {
            return Err(Error::UnknownKernel);
        }
        let heads_ok = (raw.n_preimage == 0
            || (to_usize(raw.n_preimage) <= MAX_POINTS
                && !raw.preimage_scores.is_null()
                && !raw.preimage_coef.is_null()))
            && (raw.n_targets == 0
                || (to_usize(raw.n_targets) <= MAX_TARGETS
                    && !raw.reg_weights.is_null()
                    && !raw.reg_intercept.is_null()));
        if !heads_ok {
            return Err(Error::ModelNotLoaded);
        }
        Ok(())
    }

    /// The record of this view, in the layout of the C `kpca_model`.
    pub fn as_raw(&self) -> &RawModel {
        &self.raw
    }

    /// The view of a record that [`ModelRef::as_raw`] gave (copied as is, for
    /// example into a C `kpca_model`, or written out by the C exporter), after
    /// the cheap checks: the marker ([`Error::ModelNotLoaded`]), the precision
    /// ([`Error::PrecisionMismatch`]), the front end
    /// ([`Error::UnknownFrontEnd`]), the sizes and the kernel id
    /// ([`Error::UnknownKernel`]). Nothing else is re-read.
    ///
    /// # Safety
    /// `raw` must be an unmodified copy of the [`ModelRef::as_raw`] of a
    /// `ModelRef<'r>` or longer-lived view (or a record that fails the checks):
    /// the storage its pointers point into must still be valid and unchanged
    /// for `'r`.
    #[allow(unsafe_code)]
    pub unsafe fn from_raw<'r>(raw: &'r RawModel) -> Result<&'r ModelRef<'r>, Error> {
        Self::check_loaded(raw)?;
        // SAFETY: `ModelRef` is `repr(transparent)` over `RawModel` (its other
        // field is a zero-sized marker), so the cast keeps layout and
        // alignment; the caller guarantees the invariant of `ModelRef` for 'r.
        Ok(unsafe { &*(raw as *const RawModel).cast::<ModelRef<'r>>() })
    }

    /// The view of a record built at compile time, with no check and no load
    /// at start-up: how the exporter's generated Rust model
    /// (`kpca::export::rust_source`) defines a `static` model over `static`
    /// arrays.
    ///
    /// # Safety
    /// `raw` must be, field for field, the record ([`ModelRef::as_raw`]) of a
    /// validated view of a model, its pointers pointing to arrays holding
    /// exactly that view's sections, which stay valid and unchanged for `'a`
    /// (for `'static` arrays, always). The exporter guarantees it: it writes
    /// the record and the arrays from the view of a validated blob.
    #[allow(unsafe_code)]
    pub const unsafe fn from_trusted_raw(raw: RawModel) -> ModelRef<'a> {
        ModelRef {
            raw,
            _data: PhantomData,
        }
    }

    /// (d, m, k).
    #[inline(always)]
    pub(crate) fn dims(&self) -> (usize, usize, usize) {
        (
            to_usize(self.raw.dim),
            to_usize(self.raw.n_points),
            to_usize(self.raw.n_components),
        )
    }

    /// A section as a slice (empty for the standardisation of a model
    /// without one).
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn section(&self, which: Section) -> &'a [f32] {
        let (d, m, k) = self.dims();
        let r = &self.raw;
        let (p, len) = match which {
            Section::Points => (r.points, m * d),
            Section::Norms => (r.point_sq_norms, m),
            Section::A => (r.a, m * k),
            Section::B => (r.b, k),
            Section::C => (r.c, m),
            Section::Eigenvalues => (r.eigenvalues, k),
            Section::Mean if !r.mean.is_null() => (r.mean, d),
            Section::InvStd if !r.mean.is_null() => (r.inv_std, d),
            Section::Mean | Section::InvStd => (
                core::ptr::NonNull::<f32>::dangling().as_ptr().cast_const(),
                0,
            ),
        };
        // SAFETY: by the invariant of `ModelRef`, `p` is non-NULL, aligned and
        // valid for `len` reads for 'a (m·d and m·k are within the maxima, so
        // they do not overflow); the dangling pointer is aligned and non-NULL,
        // valid for 0 reads.
        unsafe { core::slice::from_raw_parts(p, len) }
    }

    /// The parts this view was built from (for serialising or copying).
    pub fn parts(&self) -> ModelParts<'a> {
        ModelParts {
            kernel: self.kernel(),
            dim: self.dim(),
            n_components: self.n_components(),
            standardize: self.standardization(),
            points: self.section(Section::Points),
            point_sq_norms: self.section(Section::Norms),
            a: self.section(Section::A),
            b: self.section(Section::B),
            c: self.section(Section::C),
            s: self.raw.s,
            eigenvalues: self.section(Section::Eigenvalues),
            threshold: self.raw.threshold,
            fit: self.fit_info(),
            linear_map: self.is_linear_map(),
        }
    }

    /// Kernel and parameters.
    pub fn kernel(&self) -> Kernel {
        Kernel::from_stored(
            self.raw.kernel,
            self.raw.gamma,
            self.raw.degree,
            self.raw.coef0,
        )
    }
    /// Input dimension d.
    pub fn dim(&self) -> usize {
        self.dims().0
    }
    /// Number of stored points m (training points or Nyström landmarks).
    pub fn n_points(&self) -> usize {
        self.dims().1
    }
    /// Number of components k.
    pub fn n_components(&self) -> usize {
        self.dims().2
    }
    /// Whether inputs are standardised with a stored mean and 1/std.
    pub fn is_standardized(&self) -> bool {
        !self.raw.mean.is_null()
    }
    /// Whether the stored points are a folded linear map (see
    /// [`ModelParts::linear_map`]).
    pub fn is_linear_map(&self) -> bool {
        self.raw.flags & FLAG_LINEAR_MAP != 0
    }
    /// The stored standardisation, (mean, 1/std), each of length d.
    pub fn standardization(&self) -> Option<(&'a [f32], &'a [f32])> {
        self.is_standardized()
            .then(|| (self.section(Section::Mean), self.section(Section::InvStd)))
    }
    /// The anomaly threshold (0 when unset).
    pub fn threshold(&self) -> f32 {
        self.raw.threshold
    }
    /// The centring constant s of the anomaly score.
    pub fn score_constant(&self) -> f32 {
        self.raw.s
    }
    /// The k eigenvalues mu_l stored for reporting (the convention of
    /// [`crate::fit_info`]).
    pub fn eigenvalues(&self) -> &'a [f32] {
        self.section(Section::Eigenvalues)
    }
    /// What the model records of its fit (method, training rows, total variance).
    pub fn fit_info(&self) -> FitInfo {
        FitInfo::from_words(
            self.raw.fit_method,
            self.raw.n_train,
            self.raw.total_variance,
        )
    }
    /// The total variance of the fit, when recorded: each eigenvalue over it is
    /// the share of the variance its component explains.
    pub fn total_variance(&self) -> Option<f32> {
        let info = self.fit_info();
        info.is_recorded().then_some(info.total_variance)
    }
}
