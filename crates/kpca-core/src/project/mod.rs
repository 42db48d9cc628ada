//! The one projection code path: coordinates and anomaly score of a vector.
//!
//! Every entry point (the [`ModelRef`] methods, which the C ABI calls on the
//! caller's `kpca_model` in place) calls [`evaluate`] on the view, validated
//! once when it was made. [`evaluate`] checks the input, computes
//! ‖x'‖² (x' the input, standardised when the model standardises; staged for
//! the passes in the same loop) and makes one pass over the stored points
//! (812 bytes of stack on a Cortex-M4F with the C entry point's,
//! scripts/firmware-cost.sh):
//!
//! - Models of every kernel with d <= 64 and any k take the register
//!   passes ([`passes`]): x' staged once, each stored point
//!   read in groups of 8 floats, the component sums in registers; on
//!   hard-float Arm the loop is assembly ([`rowloop`]), elsewhere the
//!   same operations in Rust, so the results are the same bit for bit.
//! - d > 64
//!   and models too small for the passes' 8-float reads take the general
//!   path ([`accumulate`]): one point at a time, x' standardised on the fly,
//!   then [`kernel_value`].
//!
//! scripts/firmware-cost.sh measures both against the targets in
//! scripts/cost-targets.txt (about 39 instructions per stored point at d = 8
//! and 52 at d = 16 for the rbf kernel).
//!
//! Nothing is written to the caller's buffer before the result is known to be
//! finite.

use core::mem::MaybeUninit;

mod compact;
mod loads;
mod passes;
mod rowloop;

/// Whether this is the size-first build (Cargo feature `size`): the
/// projection takes [`compact`]'s one loop instead of the register
/// passes, with the same results bit for bit.
const SIZE_FIRST: bool = cfg!(feature = "size");

use crate::codegen::ANY_KERNEL;
use crate::error::Error;
use crate::kernel::KernelId;
use crate::model::{ModelRef, Section, MAX_COMPONENTS};

// `pub(crate)` until kernel.rs names it `crate::codegen::keep_rolled` (it
// calls `crate::codegen::keep_rolled`).
pub(crate) use crate::codegen::keep_rolled;

const RBF: u32 = KernelId::Rbf as u32;
const LAPLACIAN: u32 = KernelId::Laplacian as u32;
const COSINE: u32 = KernelId::Cosine as u32;

/// The kernel value from x'z (the L1 distance ‖x' - z‖₁ for the Laplacian
/// kernel), ‖z‖² and ‖x'‖². One exponential serves the RBF, Laplacian and
/// sigmoid kernels (tanh as in [`crate::fastmath::tanh`]); the formulas are
/// [`crate::kernel::value_from`].
///
/// `KERNEL` as in [`evaluate`]: [`ANY_KERNEL`] (then `kernel` says which) or
/// the one kernel this copy computes.
#[inline(never)]
fn kernel_value<const KERNEL: u32>(
    model: &ModelRef<'_>,
    kernel: u32,
    dot: f32,
    zn: f32,
    sq_norm: f32,
) -> f32 {
    let kernel = if KERNEL == ANY_KERNEL { kernel } else { KERNEL };
    let raw = &model.raw;
    crate::kernel::value_from(kernel, raw.gamma, raw.degree, raw.coef0, dot, zn, sq_norm)
}

/// k(x, x) of the input with squared norm `sq_norm`.
#[inline(always)]
fn self_kernel<const KERNEL: u32>(model: &ModelRef<'_>, kernel: u32, sq_norm: f32) -> f32 {
    match kernel {
        RBF | LAPLACIAN => 1.0,
        COSINE => {
            if sq_norm > 0.0 {
                1.0
            } else {
                0.0
            }
        }
        _ => kernel_value::<KERNEL>(model, kernel, sq_norm, sq_norm, sq_norm),
    }
}

/// c'k_x (returned) and A'k_x (added into `y[..k]`) over the stored points
/// `start..m`, one point at a time: every kernel, any d and k, x' standardised
/// on the fly (returns 0 and does nothing if the model's sections disagree
/// with its sizes).
#[inline(always)]
#[allow(unsafe_code)]
fn accumulate<const KERNEL: u32>(
    model: &ModelRef<'_>,
    kernel: u32,
    x: &[f32],
    sq_norm: f32,
    y: &mut [f32; MAX_COMPONENTS],
    start: usize,
) -> f32 {
    let (d, m, k) = model.dims();
    let (points, a) = (model.section(Section::Points), model.section(Section::A));
    let (norms, c) = (model.section(Section::Norms), model.section(Section::C));
    let (mean, inv_std) = (model.section(Section::Mean), model.section(Section::InvStd));
    // The sections have the lengths of the model's sizes and k <=
    // MAX_COMPONENTS (the invariant of `ModelRef`); the input's length is
    // checked by the caller and again here, where the reads depend on it.
    let standardized = !mean.is_empty();
    if x.len() != d {
        return 0.0;
    }
    let (mp, sp) = (mean.as_ptr(), inv_std.as_ptr());
    let l1 = kernel == LAPLACIAN;
    let mut ck = 0.0f32;
    for i in start..m {
        // SAFETY: i < m, so row i of the points (d floats from i·d) lies in
        // `points` (m·d floats), row i of A (k floats from i·k) in `a` (m·k),
        // and norms[i], c[i] in theirs (m), all by the invariant of
        // `ModelRef`; the reads z[j], mean[j], inv_std[j] have j < x.len() = d
        // (checked above; `mean` and `inv_std` hold d floats when the model
        // standardises, the only case they are read); y[..k] is in `y`
        // (k <= MAX_COMPONENTS, the invariant).
        unsafe {
            let z = points.as_ptr().add(i * d);
            let mut acc = 0.0f32;
            match (l1, standardized) {
                (false, false) => {
                    for (j, &v) in x.iter().enumerate() {
                        keep_rolled();
                        acc += v * *z.add(j);
                    }
                }
                (true, false) => {
                    for (j, &v) in x.iter().enumerate() {
                        keep_rolled();
                        acc += libm::fabsf(v - *z.add(j));
                    }
                }
                (_, true) => {
                    for (j, &xj) in x.iter().enumerate() {
                        keep_rolled();
                        let v = (xj - *mp.add(j)) * *sp.add(j);
                        let zj = *z.add(j);
                        acc += if l1 { libm::fabsf(v - zj) } else { v * zj };
                    }
                }
            }
            let kv = kernel_value::<KERNEL>(model, kernel, acc, *norms.as_ptr().add(i), sq_norm);
            ck += kv * *c.as_ptr().add(i);
            let arow = a.as_ptr().add(i * k);
            for (l, yl) in y.iter_mut().take(k).enumerate() {
                keep_rolled();
                *yl += kv * *arow.add(l);
            }
        }
    }
    ck
}

/// Whether x' (x standardised when the model standardises) is 0 in every
/// feature: the cosine's check where ‖x'‖² underflows, so not on the
/// common path.
#[inline(never)]
fn is_zero_input(x: &[f32], standardization: Option<(&[f32], &[f32])>) -> bool {
    match standardization {
        Some((mean, inv_std)) => x
            .iter()
            .zip(mean)
            .zip(inv_std)
            .all(|((&xj, &mj), &sj)| (xj - mj) * sj == 0.0),
        None => x.iter().all(|&xj| xj == 0.0),
    }
}

/// ‖x'‖² of the input (x' = x standardised when the model standardises),
/// for models the passes do not take. It is finite only if every x_j is (a
/// non-finite x_j makes its x'_j, and so its square, infinite or NaN).
#[inline(never)]
fn input_norm(x: &[f32], standardization: Option<(&[f32], &[f32])>) -> f32 {
    let mut sq_norm = 0.0f32;
    if let Some((mean, inv_std)) = standardization {
        for ((&xj, &mj), &sj) in x.iter().zip(mean).zip(inv_std) {
            keep_rolled();
            let v = (xj - mj) * sj;
            sq_norm += v * v;
        }
    } else {
        for &xj in x {
            keep_rolled();
            sq_norm += xj * xj;
        }
    }
    sq_norm
}

/// Whether every float of `v` is finite: the exact check behind a sum of
/// squares that is not finite (which may also be an overflow of finite
/// values), so off the common path.
#[inline(never)]
fn all_finite(v: &[f32]) -> bool {
    v.iter().all(|f| f.is_finite())
}

/// As [`input_norm`], and stages x' times `scale` for the passes as
/// `layout` = (offset, W) says ([`passes::stage_layout`]): x'_j at offset +
/// j, zeros in the rest of the W floats (returns NaN and writes nothing
/// when they do not fit, which [`passes::takes`] rules out).
#[inline(always)]
#[allow(unsafe_code)]
fn stage_input(
    x: &[f32],
    standardization: Option<(&[f32], &[f32])>,
    scale: f32,
    (offset, width): (usize, usize),
    stage: &mut MaybeUninit<[f32; passes::STAGE]>,
) -> f32 {
    let mut sq_norm = 0.0f32;
    if width > passes::STAGE || offset.saturating_add(x.len()) > width {
        return f32::NAN;
    }
    let base = stage.as_mut_ptr().cast::<f32>();
    for j in 0..offset {
        keep_rolled();
        // SAFETY: j < offset <= width <= STAGE (checked above).
        unsafe { base.add(j).write(0.0) };
    }
    // x'_j goes at p + j = base + offset + j < base + width.
    let p = base.wrapping_add(offset);
    if let Some((mean, inv_std)) = standardization {
        for (j, ((&xj, &mj), &sj)) in x.iter().zip(mean).zip(inv_std).enumerate() {
            keep_rolled();
            let v = (xj - mj) * sj;
            sq_norm += v * v;
            // SAFETY: offset + j < offset + x.len() <= width <= STAGE (checked above).
            unsafe { p.add(j).write(v * scale) };
        }
    } else {
        // Four features per step (the same operations in the same order):
        // a third fewer instructions on a Cortex-M4F than one per step.
        let quads = x.len() / 4;
        let xp = x.as_ptr();
        for i in 0..quads {
            keep_rolled();
            // SAFETY: offset + 4i + 3 < offset + x.len() <= width <= STAGE (checked above):
            // every read lies in x, every write in the stage.
            unsafe {
                let q = xp.add(4 * i).cast::<[f32; 4]>().read_unaligned();
                for (l, v) in q.into_iter().enumerate() {
                    sq_norm += v * v;
                    p.add(4 * i + l).write(v * scale);
                }
            }
        }
        for (j, &xl) in x.iter().enumerate().skip(4 * quads) {
            keep_rolled();
            sq_norm += xl * xl;
            // SAFETY: offset + j < offset + x.len() <= width <= STAGE (checked above).
            unsafe { p.add(j).write(xl * scale) };
        }
    }
    for j in offset + x.len()..width {
        keep_rolled();
        // SAFETY: j < width <= STAGE (checked above).
        unsafe { base.add(j).write(0.0) };
    }
    sq_norm
}

/// Computes the coordinates (into `out[..k]`, when `out` is given) and, when
/// `score` is given, the anomaly score of `x` (into `*score`); writes nothing
/// unless everything is finite.
///
/// `KERNEL` is [`ANY_KERNEL`] (the model's kernel, chosen at run time) or
/// one kernel id: then only that kernel's code is compiled in, and a model
/// of another kernel is refused ([`Error::KernelMismatch`]).
///
/// Errors: [`Error::KernelMismatch`], [`Error::OutputLength`],
/// [`Error::InputLength`], [`Error::NonFiniteInput`],
/// [`Error::NonFiniteResult`], in that order.
#[inline(never)]
pub(crate) fn evaluate<const KERNEL: u32>(
    model: &ModelRef<'_>,
    x: &[f32],
    out: Option<&mut [f32]>,
    score: Option<&mut f32>,
) -> Result<(), Error> {
    evaluate_with::<KERNEL, SIZE_FIRST>(model, x, out, score)
}

/// [`evaluate`] through the register passes (`COMPACT` false) or the
/// size-first loop ([`compact`]): the same checks and the same results.
#[inline(always)]
fn evaluate_with<const KERNEL: u32, const COMPACT: bool>(
    model: &ModelRef<'_>,
    x: &[f32],
    out: Option<&mut [f32]>,
    score: Option<&mut f32>,
) -> Result<(), Error> {
    let kernel = if KERNEL == ANY_KERNEL {
        model.raw.kernel
    } else if model.raw.kernel == KERNEL {
        KERNEL
    } else {
        return Err(Error::KernelMismatch);
    };
    let (d, _, k) = model.dims();
    if out.as_ref().is_some_and(|o| o.len() < k) {
        return Err(Error::OutputLength);
    }
    if x.len() != d {
        return Err(Error::InputLength);
    }
    if COMPACT {
        return compact_call::<KERNEL>(model, kernel, x, out, score);
    }
    let standardization = model.standardization();
    // x' for the passes: one scratch in this frame, written (W floats,
    // x' scaled for the kernel and then zeros) before it is read.
    let mut stage = MaybeUninit::<[f32; passes::STAGE]>::uninit();
    let staged = passes::takes(kernel, d);
    // ‖x'‖², and x' staged when the passes take the model.
    let (mut st, scale) = rowloop::RunState::for_call(model, kernel);
    let layout = passes::stage_layout(kernel, d, k);
    let sq_norm = if staged {
        stage_input(
            x,
            standardization,
            scale,
            (layout.offset, layout.width),
            &mut stage,
        )
    } else {
        input_norm(x, standardization)
    };
    // The checks of `check_norm`, written out here: through it this path
    // took 4 more instructions per call (laplacian m = 128, d = 16, k = 4:
    // 10,004, over its gate).
    if !sq_norm.is_finite() && !all_finite(x) {
        return Err(Error::NonFiniteInput);
    }
    // The cosine kernel divides by ‖x'‖: when ‖x'‖² overflows f32, or underflows
    // below the normal range for a non-zero x', the direction of x' is lost in
    // f32 and the kernel values would all come out 0. That is reported
    // (NonFiniteResult), not returned as a result.
    // (x' = 0 exactly is a valid input: every kernel value is 0.)
    if kernel == COSINE
        && !(sq_norm.is_finite()
            && (sq_norm >= f32::MIN_POSITIVE || is_zero_input(x, standardization)))
    {
        return Err(Error::NonFiniteResult);
    }
    st.take_norm(kernel, sq_norm);
    let fast = staged
        && passes::accumulate_fast::<KERNEL>(model, &mut st, kernel, layout, &mut stage).is_some();
    if !fast {
        st.ck = accumulate::<KERNEL>(model, kernel, x, sq_norm, &mut st.y, 0);
    }
    finish::<KERNEL>(model, kernel, &mut st.y, st.ck, sq_norm, out, score)
}

/// The checks of the input's ‖x'‖² (`sq_norm`): [`Error::NonFiniteInput`]
/// when some x_j is not finite; for the cosine kernel,
/// [`Error::NonFiniteResult`] when ‖x'‖² overflows f32, or underflows below
/// the normal range for a non-zero x' (the direction of x' is then lost in
/// f32 and every kernel value would come out 0; x' = 0 exactly is a valid
/// input, every kernel value 0).
#[inline(always)]
fn check_norm(
    kernel: u32,
    x: &[f32],
    standardization: Option<(&[f32], &[f32])>,
    sq_norm: f32,
) -> Result<(), Error> {
    if !sq_norm.is_finite() && !all_finite(x) {
        return Err(Error::NonFiniteInput);
    }
    if kernel == COSINE
        && !(sq_norm.is_finite()
            && (sq_norm >= f32::MIN_POSITIVE || is_zero_input(x, standardization)))
    {
        return Err(Error::NonFiniteResult);
    }
    Ok(())
}

/// The size-first build's [`evaluate`] after its first checks: the same
/// checks of ‖x'‖², [`compact::accumulate`] (or the general loop where no
/// pass applies) and [`finish`].
#[inline(always)]
fn compact_call<const KERNEL: u32>(
    model: &ModelRef<'_>,
    kernel: u32,
    x: &[f32],
    out: Option<&mut [f32]>,
    score: Option<&mut f32>,
) -> Result<(), Error> {
    let standardization = model.standardization();
    let mut consts = passes::Consts::for_call(model, kernel);
    let sq_norm = input_norm(x, standardization);
    check_norm(kernel, x, standardization, sq_norm)?;
    consts.take_norm(kernel, sq_norm);
    let mut slot = MaybeUninit::uninit();
    let acc = compact::Sums::init(&mut slot);
    let input = compact::Input {
        x,
        standardization,
        scale: consts.scale,
    };
    if compact::accumulate(model, &consts, kernel, &input, acc).is_none() {
        acc.ck = accumulate::<KERNEL>(model, kernel, x, sq_norm, &mut acc.y, 0);
    }
    finish::<KERNEL>(model, kernel, &mut acc.y, acc.ck, sq_norm, out, score)
}

/// The end of [`evaluate`]: y = A'k_x + b, the score from c'k_x and ‖x'‖²
/// when asked, both written only when finite.
#[inline(always)]
fn finish<const KERNEL: u32>(
    model: &ModelRef<'_>,
    kernel: u32,
    y: &mut [f32; MAX_COMPONENTS],
    ck: f32,
    sq_norm: f32,
    out: Option<&mut [f32]>,
    score: Option<&mut f32>,
) -> Result<(), Error> {
    let k = model.dims().2;
    let mut sum_sq = 0.0f32;
    for (yl, &bl) in y.iter_mut().zip(model.section(Section::B)) {
        keep_rolled();
        *yl += bl;
        sum_sq += *yl * *yl;
    }
    let e = if score.is_some() {
        self_kernel::<KERNEL>(model, kernel, sq_norm) - 2.0 * ck + model.raw.s - sum_sq
    } else {
        0.0
    };
    // ‖y‖² is finite only if every y_l is; when it is not, the exact check.
    if !e.is_finite() || (!sum_sq.is_finite() && !all_finite(y.get(..k).unwrap_or(&[]))) {
        return Err(Error::NonFiniteResult);
    }
    if let Some(out) = out.and_then(|o| o.get_mut(..k)) {
        for (o, v) in out.iter_mut().zip(y.iter()) {
            keep_rolled();
            *o = *v;
        }
    }
    if let Some(score) = score {
        *score = e;
    }
    Ok(())
}

/// Checks a batch of row-major vectors for `model` and returns the number of rows.
fn batch_rows(
    model: &ModelRef<'_>,
    xs: &[f32],
    out_len: usize,
    per_row: usize,
) -> Result<usize, Error> {
    let d = model.dims().0.max(1);
    let rows = xs.len() / d;
    if !xs.len().is_multiple_of(d) {
        return Err(Error::BatchLength);
    }
    if out_len < rows.saturating_mul(per_row) {
        return Err(Error::OutputLength);
    }
    if !xs.iter().all(|v| v.is_finite()) {
        return Err(Error::NonFiniteInput);
    }
    Ok(rows)
}

/// Projects each row of `xs` into the rows of `out` (see [`ModelRef::project_batch`]).
pub(crate) fn project_batch(
    model: &ModelRef<'_>,
    xs: &[f32],
    out: &mut [f32],
) -> Result<usize, Error> {
    let (d, _, k) = model.dims();
    let rows = batch_rows(model, xs, out.len(), k)?;
    for (x, o) in crate::codegen::rows(xs, d).zip(crate::codegen::rows_mut(out, k)) {
        evaluate::<ANY_KERNEL>(model, x, Some(o), None)?;
    }
    Ok(rows)
}

/// Scores each row of `xs` into `scores` (see [`ModelRef::anomaly_score_batch`]).
pub(crate) fn score_batch(
    model: &ModelRef<'_>,
    xs: &[f32],
    scores: &mut [f32],
) -> Result<usize, Error> {
    let rows = batch_rows(model, xs, scores.len(), 1)?;
    for (x, s) in xs
        .chunks_exact(model.dims().0.max(1))
        .zip(scores.iter_mut())
    {
        evaluate::<ANY_KERNEL>(model, x, None, Some(s))?;
    }
    Ok(rows)
}

impl ModelRef<'_> {
    /// The k kernel-PCA coordinates of `x` (length d) into `out[..k]`.
    ///
    /// Errors: [`Error::InputLength`], [`Error::OutputLength`] (`out` shorter than k),
    /// [`Error::NonFiniteInput`], [`Error::NonFiniteResult`]. `out` is written only on success.
    pub fn project(&self, x: &[f32], out: &mut [f32]) -> Result<(), Error> {
        evaluate::<ANY_KERNEL>(self, x, Some(out), None)
    }

    /// The anomaly score e(x): the squared distance in feature space between
    /// phi(x) and its reconstruction from the k components (docs/DESIGN.md section 2).
    pub fn anomaly_score(&self, x: &[f32]) -> Result<f32, Error> {
        let mut e = 0.0;
        evaluate::<ANY_KERNEL>(self, x, None, Some(&mut e))?;
        Ok(e)
    }

    /// Coordinates into `out[..k]` and the anomaly score, in one pass.
    pub fn project_and_score(&self, x: &[f32], out: &mut [f32]) -> Result<f32, Error> {
        let mut e = 0.0;
        evaluate::<ANY_KERNEL>(self, x, Some(out), Some(&mut e))?;
        Ok(e)
    }

    /// The coordinates (into `out[..k]`, when `out` is given) and / or the
    /// anomaly score (into `*score`, when given) of `x` in one pass: the one
    /// call behind [`ModelRef::project`], [`ModelRef::anomaly_score`] and
    /// [`ModelRef::project_and_score`] (and the C entry points). Nothing is
    /// written unless every result is finite; errors as theirs.
    pub fn evaluate(
        &self,
        x: &[f32],
        out: Option<&mut [f32]>,
        score: Option<&mut f32>,
    ) -> Result<(), Error> {
        evaluate::<ANY_KERNEL>(self, x, out, score)
    }

    /// Whether the anomaly score of `x` exceeds the stored threshold.
    /// [`Error::ThresholdUnset`] when the model has none.
    pub fn is_anomaly(&self, x: &[f32]) -> Result<bool, Error> {
        if self.raw.threshold <= 0.0 {
            return Err(Error::ThresholdUnset);
        }
        Ok(self.anomaly_score(x)? > self.raw.threshold)
    }

    /// Projects each row of `xs` (row-major, n x d) into the rows of `out` (n x k).
    /// All inputs are checked before anything is written; if a result overflows
    /// ([`Error::NonFiniteResult`]) the rows before it have been written.
    /// Returns the number of rows.
    pub fn project_batch(&self, xs: &[f32], out: &mut [f32]) -> Result<usize, Error> {
        project_batch(self, xs, out)
    }

    /// Anomaly scores of each row of `xs` (row-major, n x d) into `scores[..n]`,
    /// with the same checking and writing rules as [`ModelRef::project_batch`].
    pub fn anomaly_score_batch(&self, xs: &[f32], scores: &mut [f32]) -> Result<usize, Error> {
        score_batch(self, xs, scores)
    }
}

#[cfg(test)]
mod tests {
    use crate::fit_info::FitInfo;
    use crate::kernel::Kernel;
    use crate::model::{ModelParts, ModelRef};
    use std::vec::Vec;

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        }
        fn vec(&mut self, n: usize) -> Vec<f32> {
            (0..n).map(|_| self.next()).collect()
        }
    }

    /// The size-first loop (`compact`) against the register passes, bit for
    /// bit: every kernel, d and m around the passes' limits (both read
    /// directions, the general path where no pass applies), k in every sum
    /// group, raw and standardised input, and data far from zero.
    #[test]
    fn compact_pass_gives_the_register_passes_bits() {
        use super::{evaluate_with, ANY_KERNEL};
        let mut g = Lcg(11);
        let mut combo = 0u32;
        let mut checked = 0u32;
        for kernel in [
            Kernel::Rbf { gamma: 0.4 },
            Kernel::Laplacian { gamma: 0.3 },
            Kernel::Linear,
            Kernel::Polynomial {
                gamma: 0.3,
                degree: 3,
                coef0: 0.5,
            },
            Kernel::Sigmoid {
                gamma: 0.2,
                coef0: -0.1,
            },
            Kernel::Cosine,
        ] {
            for d in [1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 33, 57, 64, 65] {
                for m in [1, 2, 3, 5, 9, 17, 70, 130] {
                    for k in [1, 3, 4, 5, 7, 8, 9, 13, 16] {
                        for (standardized, offset) in [(false, 0.0), (true, 0.0), (true, 100.0)] {
                            combo += 1;
                            if cfg!(miri) && !combo.is_multiple_of(97) {
                                continue;
                            }
                            let points = g.vec(m * d);
                            let norms: Vec<f32> = points
                                .chunks(d)
                                .map(|z| z.iter().map(|v| v * v).sum())
                                .collect();
                            let (a, b, c) = (g.vec(m * k), g.vec(k), g.vec(m));
                            let mean: Vec<f32> = g.vec(d).iter().map(|v| v + offset).collect();
                            let inv_std: Vec<f32> = g.vec(d).iter().map(|v| 1.5 + v).collect();
                            let eig = std::vec![1.0f32; k];
                            let view = ModelRef::from_parts(ModelParts {
                                kernel,
                                dim: d,
                                n_components: k,
                                standardize: standardized.then_some((&mean[..], &inv_std[..])),
                                points: &points,
                                point_sq_norms: &norms,
                                a: &a,
                                b: &b,
                                c: &c,
                                s: 0.3,
                                eigenvalues: &eig,
                                threshold: 0.0,
                                fit: FitInfo::NOT_RECORDED,
                                linear_map: false,
                            })
                            .unwrap();
                            let x: Vec<f32> = g.vec(d).iter().map(|v| v + offset).collect();
                            let (mut fast, mut small) =
                                (std::vec![0.0f32; k], std::vec![0.0f32; k]);
                            let (mut ef, mut es) = (0.0f32, 0.0f32);
                            let rf = evaluate_with::<ANY_KERNEL, false>(
                                &view,
                                &x,
                                Some(&mut fast),
                                Some(&mut ef),
                            );
                            let rs = evaluate_with::<ANY_KERNEL, true>(
                                &view,
                                &x,
                                Some(&mut small),
                                Some(&mut es),
                            );
                            assert_eq!(rf, rs, "{kernel:?} d={d} m={m} k={k}");
                            let bits =
                                |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                            assert_eq!(
                                (bits(&fast), ef.to_bits()),
                                (bits(&small), es.to_bits()),
                                "{kernel:?} d={d} m={m} k={k} std={standardized}"
                            );
                            checked += u32::from(rf.is_ok());
                        }
                    }
                }
            }
        }
        assert!(checked > 0);
    }

    /// Every path (the register passes, in registers for d <= 8 and k <= 8 and
    /// by chunks of 8 otherwise, for every kernel, folded linear and cosine
    /// maps of k + 1 points included; the rest, one point at a time) against an f64
    /// evaluation, over sizes around the path limits, including m < 4 and k < 4
    /// (whose register paths read into the next rows or repeat the last entry).
    #[test]
    fn every_path_matches_f64_around_its_limits() {
        let mut g = Lcg(7);
        let mut combo = 0u32;
        for kernel in [
            Kernel::Rbf { gamma: 0.4 },
            Kernel::Laplacian { gamma: 0.3 },
            Kernel::Linear,
            Kernel::Polynomial {
                gamma: 0.3,
                degree: 3,
                coef0: 0.5,
            },
            Kernel::Sigmoid {
                gamma: 0.2,
                coef0: -0.1,
            },
            Kernel::Cosine,
        ] {
            for d in (1..=10).chain([12, 15, 16, 17, 23, 24, 25, 31, 32, 33, 40, 57, 64, 65]) {
                for m in [1, 2, 3, 4, 5, 7, 9, 13, 17, 18] {
                    for k in [1, 2, 3, 4, 5, 7, 8, 9, 16] {
                        for standardized in [false, true] {
                            // Under Miri (an interpreter) every 97th shape:
                            // the same paths on a sample.
                            combo += 1;
                            if cfg!(miri) && !combo.is_multiple_of(97) {
                                continue;
                            }
                            let points = g.vec(m * d);
                            let norms: Vec<f32> = points
                                .chunks(d)
                                .map(|z| z.iter().map(|v| v * v).sum())
                                .collect();
                            let (a, b, c) = (g.vec(m * k), g.vec(k), g.vec(m));
                            let (mean, inv_std) = (
                                g.vec(d),
                                g.vec(d).iter().map(|v| 1.5 + v).collect::<Vec<_>>(),
                            );
                            let eig = std::vec![1.0f32; k];
                            let view = ModelRef::from_parts(ModelParts {
                                kernel,
                                dim: d,
                                n_components: k,
                                standardize: standardized.then_some((&mean[..], &inv_std[..])),
                                points: &points,
                                point_sq_norms: &norms,
                                a: &a,
                                b: &b,
                                c: &c,
                                s: 0.3,
                                eigenvalues: &eig,
                                threshold: 0.0,
                                fit: FitInfo::NOT_RECORDED,
                                linear_map: false,
                            })
                            .unwrap();
                            let x = g.vec(d);
                            let xs: Vec<f64> = (0..d)
                                .map(|j| {
                                    if standardized {
                                        (x[j] as f64 - mean[j] as f64) * inv_std[j] as f64
                                    } else {
                                        x[j] as f64
                                    }
                                })
                                .collect();
                            let kv: Vec<f64> = points
                                .chunks(d)
                                .map(|z| {
                                    let z: Vec<f64> = z.iter().map(|&v| v as f64).collect();
                                    match kernel {
                                        Kernel::Rbf { gamma } => (-(gamma as f64)
                                            * xs.iter()
                                                .zip(&z)
                                                .map(|(p, q)| (p - q).powi(2))
                                                .sum::<f64>())
                                        .exp(),
                                        Kernel::Laplacian { gamma } => (-(gamma as f64)
                                            * xs.iter()
                                                .zip(&z)
                                                .map(|(p, q)| (p - q).abs())
                                                .sum::<f64>())
                                        .exp(),
                                        Kernel::Polynomial {
                                            gamma,
                                            degree,
                                            coef0,
                                        } => (gamma as f64
                                            * xs.iter().zip(&z).map(|(p, q)| p * q).sum::<f64>()
                                            + coef0 as f64)
                                            .powi(degree as i32),
                                        Kernel::Sigmoid { gamma, coef0 } => (gamma as f64
                                            * xs.iter().zip(&z).map(|(p, q)| p * q).sum::<f64>()
                                            + coef0 as f64)
                                            .tanh(),
                                        Kernel::Cosine => {
                                            let dot: f64 =
                                                xs.iter().zip(&z).map(|(p, q)| p * q).sum();
                                            let nx = xs.iter().map(|v| v * v).sum::<f64>().sqrt();
                                            let nz = z.iter().map(|v| v * v).sum::<f64>().sqrt();
                                            dot / (nx * nz)
                                        }
                                        _ => xs.iter().zip(&z).map(|(p, q)| p * q).sum(),
                                    }
                                })
                                .collect();
                            let mut out = std::vec![0.0f32; k];
                            let e = view.project_and_score(&x, &mut out).unwrap();
                            let mut sum_sq = 0.0;
                            for l in 0..k {
                                let want = b[l] as f64
                                    + kv.iter()
                                        .enumerate()
                                        .map(|(i, v)| v * a[i * k + l] as f64)
                                        .sum::<f64>();
                                sum_sq += want * want;
                                let scale = 1.0 + kv.iter().map(|v| v.abs()).sum::<f64>();
                                assert!(
                                    (out[l] as f64 - want).abs() <= 2e-5 * scale,
                                    "{kernel:?} d={d} m={m} k={k} std={standardized}: {} vs {want}",
                                    out[l]
                                );
                            }
                            let xx: f64 = xs.iter().map(|v| v * v).sum();
                            let kxx = match kernel {
                                Kernel::Linear => xx,
                                Kernel::Polynomial {
                                    gamma,
                                    degree,
                                    coef0,
                                } => (gamma as f64 * xx + coef0 as f64).powi(degree as i32),
                                Kernel::Sigmoid { gamma, coef0 } => {
                                    (gamma as f64 * xx + coef0 as f64).tanh()
                                }
                                _ => 1.0,
                            };
                            let ck: f64 = kv.iter().zip(&c).map(|(v, &ci)| v * ci as f64).sum();
                            let want_e = kxx - 2.0 * ck + 0.3 - sum_sq;
                            let scale =
                                1.0 + kxx.abs() + kv.iter().map(|v| v.abs()).sum::<f64>().powi(2);
                            assert!(
                                (e as f64 - want_e).abs() <= 2e-5 * scale,
                                "score {e} vs {want_e}"
                            );
                        }
                    }
                }
            }
        }
    }
}
