//! The optional model sections (format version 4) and what the device
//! computes from them: the pre-image map ([`ModelRef::reconstruct`]) and the
//! regression head ([`ModelRef::predict`]).
//!
//! Both start from the k coordinates y of the input, computed by the one
//! projection path:
//!
//! - pre-image (scikit-learn's `fit_inverse_transform`): x-hat' =
//!   sum_i k(y, t_i) beta_i over the n training score vectors t_i (k values
//!   each) with the model's own kernel and parameters, beta_i the d dual
//!   coefficients of row i in the data's units (kernel ridge regression from
//!   the scores back to the inputs), and x-hat = o + x-hat' with the section's
//!   offset row o (the fit's input mean when it standardises, else 0; the
//!   learned map has no intercept, so it is not expressed in the device's
//!   shifted input space). x - x-hat is the per-feature residual: which input
//!   channel is off.
//! - regression (kernel principal component regression): p = W' y + c, with
//!   W k x t and c t; affine in the kernel vector since y is.

use crate::codegen::keep_rolled;
use crate::error::Error;
use crate::fastmath;
use crate::kernel::{cosine, powi, KernelId};
use crate::model::{
    to_u32, to_usize, ModelRef, FLAG_SECTIONS, MAX_COMPONENTS, MAX_DIM, MAX_POINTS,
};

/// Largest number of regression targets t a model may have (defined beside
/// [`RawModel`](crate::RawModel), which carries the count).
pub use crate::model::MAX_TARGETS;

/// The pre-image map of a model, as slices: `scores` is n x k (the training
/// score vectors t_i), `coef` (n + 1) x d (the dual coefficients beta_i in the
/// data's units, then one row of d offsets o), both row-major.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreImageParts<'a> {
    /// Training score vectors t_1..t_n, row-major n x k.
    pub scores: &'a [f32],
    /// Dual coefficients beta_1..beta_n then the offset row o, row-major (n + 1) x d.
    pub coef: &'a [f32],
}

/// The regression head of a model, as slices: `weights` is k x t row-major,
/// `intercept` t, so that the prediction is `intercept + weights' y`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegressionParts<'a> {
    /// Weights W, row-major k x t (component l, target j at l * t + j).
    pub weights: &'a [f32],
    /// Intercepts c, one per target (t).
    pub intercept: &'a [f32],
}

/// The optional sections of a model: each may be absent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Heads<'a> {
    /// The pre-image map, for [`ModelRef::reconstruct`].
    pub preimage: Option<PreImageParts<'a>>,
    /// The regression head, for [`ModelRef::predict`].
    pub regression: Option<RegressionParts<'a>>,
}

impl Heads<'_> {
    /// No optional section.
    pub const NONE: Heads<'static> = Heads {
        preimage: None,
        regression: None,
    };

    /// Whether no section is present.
    pub fn is_empty(&self) -> bool {
        self.preimage.is_none() && self.regression.is_none()
    }
}

fn all_finite(values: &[f32]) -> bool {
    values.iter().all(|v| {
        keep_rolled();
        v.is_finite()
    })
}

/// Rows n of a pre-image map for a model with input dimension `d` and `k`
/// components, after checking its lengths ([`Error::PartsLength`]), its size
/// ([`Error::ZeroDimension`], [`Error::DimensionTooLarge`]) and its numbers
/// ([`Error::NonFiniteModel`]).
pub(crate) fn check_preimage(p: &PreImageParts<'_>, d: usize, k: usize) -> Result<usize, Error> {
    let n = (p.coef.len() / d.max(1)).saturating_sub(1);
    if n == 0 {
        return Err(Error::ZeroDimension);
    }
    if n > MAX_POINTS || d > MAX_DIM {
        return Err(Error::DimensionTooLarge);
    }
    if Some(p.coef.len()) != (n + 1).checked_mul(d) || Some(p.scores.len()) != n.checked_mul(k) {
        return Err(Error::PartsLength);
    }
    if !(all_finite(p.scores) && all_finite(p.coef)) {
        return Err(Error::NonFiniteModel);
    }
    Ok(n)
}

/// Targets t of a regression head for a model with `k` components, after the
/// checks of [`check_preimage`] (t at most [`MAX_TARGETS`]).
pub(crate) fn check_regression(r: &RegressionParts<'_>, k: usize) -> Result<usize, Error> {
    let t = r.intercept.len();
    if t == 0 {
        return Err(Error::ZeroDimension);
    }
    if t > MAX_TARGETS {
        return Err(Error::DimensionTooLarge);
    }
    if Some(r.weights.len()) != t.checked_mul(k) {
        return Err(Error::PartsLength);
    }
    if !(all_finite(r.weights) && all_finite(r.intercept)) {
        return Err(Error::NonFiniteModel);
    }
    Ok(t)
}

/// sum_l (y_l - t_l)^2.
#[inline]
fn sq_diff(y: &[f32], t: &[f32]) -> f32 {
    let mut sum = 0.0f32;
    for (&a, &b) in y.iter().zip(t) {
        keep_rolled();
        let diff = a - b;
        sum += diff * diff;
    }
    sum
}

/// sum_l |y_l - t_l|.
#[inline]
fn abs_diff(y: &[f32], t: &[f32]) -> f32 {
    let mut sum = 0.0f32;
    for (&a, &b) in y.iter().zip(t) {
        keep_rolled();
        sum += libm::fabsf(a - b);
    }
    sum
}

/// The dot-product kernels (linear, polynomial, sigmoid, cosine) of the
/// model between y and t: one loop for the three sums, then the kernel's
/// function of them.
#[inline]
fn dot_kernel(model: &ModelRef<'_>, y: &[f32], t: &[f32]) -> f32 {
    let (mut yt, mut yy, mut tt) = (0.0f32, 0.0f32, 0.0f32);
    for (&a, &b) in y.iter().zip(t) {
        keep_rolled();
        yt += a * b;
        yy += a * a;
        tt += b * b;
    }
    let u = model.raw.gamma * yt + model.raw.coef0;
    match model.raw.kernel {
        id if id == KernelId::Linear as u32 => yt,
        id if id == KernelId::Polynomial as u32 => powi(u, model.raw.degree),
        id if id == KernelId::Sigmoid as u32 => fastmath::tanh(u),
        _ => cosine(yt, yy, tt),
    }
}

/// sums += sum_i kernel(t_i) beta_i over the pre-image rows (t_i, beta_i);
/// one copy per kernel family, so the row loop of the RBF and Laplacian
/// kernels does not branch on the kernel.
#[inline]
fn expand(
    pre: &PreImageParts<'_>,
    k: usize,
    d: usize,
    sums: &mut [f32],
    kernel: impl Fn(&[f32]) -> f32,
) {
    for (t, beta) in crate::codegen::rows(pre.scores, k).zip(crate::codegen::rows(pre.coef, d)) {
        keep_rolled();
        let kv = kernel(t);
        for (s, &b) in sums.iter_mut().zip(beta) {
            keep_rolled();
            *s += kv * b;
        }
    }
}

/// [`expand`] with the model's kernel between the score vectors (the
/// pre-image map's kernel: the same function and parameters as the model's,
/// on k-dimensional vectors). The RBF and Laplacian kernels take the
/// difference directly, so no cancellation enters.
fn expand_model_kernel(model: &ModelRef<'_>, pre: &PreImageParts<'_>, y: &[f32], sums: &mut [f32]) {
    let (d, _, k) = model.dims();
    let gamma = model.raw.gamma;
    match model.raw.kernel {
        id if id == KernelId::Rbf as u32 => expand(pre, k, d, sums, |t| {
            fastmath::exp_neg(gamma * sq_diff(y, t))
        }),
        id if id == KernelId::Laplacian as u32 => expand(pre, k, d, sums, |t| {
            fastmath::exp_neg(gamma * abs_diff(y, t))
        }),
        _ => expand(pre, k, d, sums, |t| dot_kernel(model, y, t)),
    }
}

/// Sets the section fields of `raw` (sizes, pointers, the sections flag)
/// from `heads`, after checking them against its d and k (the checks of
/// [`ModelRef::with_heads`]); in place, so the loader builds its model once.
pub(crate) fn attach_heads(
    raw: &mut crate::model::RawModel,
    heads: &Heads<'_>,
) -> Result<(), Error> {
    let (d, k) = (to_usize(raw.dim), to_usize(raw.n_components));
    raw.n_preimage = 0;
    raw.preimage_scores = core::ptr::null();
    raw.preimage_coef = core::ptr::null();
    raw.n_targets = 0;
    raw.reg_weights = core::ptr::null();
    raw.reg_intercept = core::ptr::null();
    if let Some(p) = heads.preimage {
        raw.n_preimage = to_u32(check_preimage(&p, d, k)?);
        raw.preimage_scores = p.scores.as_ptr();
        raw.preimage_coef = p.coef.as_ptr();
    }
    if let Some(r) = heads.regression {
        raw.n_targets = to_u32(check_regression(&r, k)?);
        raw.reg_weights = r.weights.as_ptr();
        raw.reg_intercept = r.intercept.as_ptr();
    }
    raw.flags &= !FLAG_SECTIONS;
    if !heads.is_empty() {
        raw.flags |= FLAG_SECTIONS;
    }
    Ok(())
}

impl<'a> ModelRef<'a> {
    /// This view with the optional sections `heads` attached, after checking
    /// them against the model's d and k (see [`PreImageParts`] and
    /// [`RegressionParts`]): [`Error::PartsLength`], [`Error::ZeroDimension`],
    /// [`Error::DimensionTooLarge`], [`Error::NonFiniteModel`]. Sections
    /// already attached and absent from `heads` are dropped.
    pub fn with_heads(self, heads: Heads<'a>) -> Result<ModelRef<'a>, Error> {
        let mut raw = self.raw;
        attach_heads(&mut raw, &heads)?;
        // The core sections are unchanged and the new ones were checked
        // against the model's sizes: the invariant holds for 'a.
        Ok(ModelRef::from_validated_raw(raw))
    }

    /// The optional sections of this model.
    #[allow(unsafe_code)]
    pub fn heads(&self) -> Heads<'a> {
        let (d, _, k) = self.dims();
        let r = &self.raw;
        let n = to_usize(r.n_preimage);
        let t = to_usize(r.n_targets);
        // SAFETY: by the invariant of `ModelRef`, a non-zero n_preimage means
        // both pre-image pointers are valid for n·k and (n+1)·d reads for 'a, and
        // a non-zero n_targets that the regression pointers are valid for k·t
        // and t reads (the sizes are within their maxima, so the products do
        // not overflow).
        unsafe {
            Heads {
                preimage: (n > 0).then(|| PreImageParts {
                    scores: core::slice::from_raw_parts(r.preimage_scores, n * k),
                    coef: core::slice::from_raw_parts(r.preimage_coef, (n + 1) * d),
                }),
                regression: (t > 0).then(|| RegressionParts {
                    weights: core::slice::from_raw_parts(r.reg_weights, k * t),
                    intercept: core::slice::from_raw_parts(r.reg_intercept, t),
                }),
            }
        }
    }

    /// Number of regression targets t (0 when the model has no regression head).
    pub fn n_targets(&self) -> usize {
        to_usize(self.raw.n_targets)
    }

    /// Rows of the pre-image map (0 when the model has none).
    pub fn n_preimage_rows(&self) -> usize {
        to_usize(self.raw.n_preimage)
    }

    /// The pre-image x-hat of `x` (length d) into `out[..d]`: the learned
    /// map of the model's pre-image section applied to the coordinates of
    /// `x` (see the module documentation); `x - x-hat` is the per-feature
    /// residual. `out` is written only on success when d <= 64 (wider
    /// inputs accumulate in `out`).
    ///
    /// Errors: [`Error::NoPreImage`] when the model has no pre-image section,
    /// [`Error::OutputLength`] (`out` shorter than d), then those of
    /// [`ModelRef::project`].
    pub fn reconstruct(&self, x: &[f32], out: &mut [f32]) -> Result<(), Error> {
        let pre = self.heads().preimage.ok_or(Error::NoPreImage)?;
        let (d, _, k) = self.dims();
        let out = out.get_mut(..d).ok_or(Error::OutputLength)?;
        let mut y = [0.0f32; MAX_COMPONENTS];
        self.project(x, &mut y)?;
        let y = y.get(..k).unwrap_or(&[]);
        let mut acc = [0.0f32; MAX_DIM_STACK];
        // Inputs of up to MAX_DIM_STACK features accumulate on the stack, so
        // `out` stays untouched on failure; wider ones accumulate in `out`
        // (and a failure there is reported after it was overwritten).
        let sums: &mut [f32] = if d <= MAX_DIM_STACK {
            acc.get_mut(..d).unwrap_or(&mut [])
        } else {
            out.fill(0.0);
            &mut *out
        };
        expand_model_kernel(self, &pre, y, sums);
        let offset = pre
            .coef
            .get(pre.coef.len().saturating_sub(d)..)
            .unwrap_or(&[]);
        for (s, &o) in sums.iter_mut().zip(offset) {
            keep_rolled();
            *s += o;
        }
        if !all_finite(sums) {
            return Err(Error::NonFiniteResult);
        }
        if d <= MAX_DIM_STACK {
            copy_into(out, &acc);
        }
        Ok(())
    }

    /// The t regression predictions for `x` (length d) into `out[..t]`:
    /// `intercept + W' y` over the coordinates y of `x`. `out` is written only
    /// on success.
    ///
    /// Errors: [`Error::NoRegression`] when the model has no regression head,
    /// [`Error::OutputLength`] (`out` shorter than t), then those of
    /// [`ModelRef::project`].
    pub fn predict(&self, x: &[f32], out: &mut [f32]) -> Result<(), Error> {
        let reg = self.heads().regression.ok_or(Error::NoRegression)?;
        let t = reg.intercept.len();
        let out = out.get_mut(..t).ok_or(Error::OutputLength)?;
        let mut y = [0.0f32; MAX_COMPONENTS];
        self.project(x, &mut y)?;
        let mut p = [0.0f32; MAX_TARGETS];
        for (pj, &c) in p.iter_mut().zip(reg.intercept) {
            keep_rolled();
            *pj = c;
        }
        for (&yl, row) in y.iter().zip(reg.weights.chunks_exact(t.max(1))) {
            keep_rolled();
            for (pj, &w) in p.iter_mut().zip(row) {
                keep_rolled();
                *pj += yl * w;
            }
        }
        let p = p.get(..t).unwrap_or(&[]);
        if !all_finite(p) {
            return Err(Error::NonFiniteResult);
        }
        copy_into(out, p);
        Ok(())
    }
}

/// Copies the first `dst.len()` values of `src` into `dst` (the zip needs no
/// length check, so no panic path is linked).
fn copy_into(dst: &mut [f32], src: &[f32]) {
    for (o, &v) in dst.iter_mut().zip(src) {
        keep_rolled();
        *o = v;
    }
}

/// Inputs up to this many features are reconstructed on the stack (256 B).
const MAX_DIM_STACK: usize = 64;
