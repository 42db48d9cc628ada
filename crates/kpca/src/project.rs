//! The one projection code path: coordinates and anomaly score of a vector.
//!
//! Every entry point (the [`ModelRef`] methods and the C ABI) describes the model
//! as a [`Job`] and calls [`evaluate`]. A `Job` has the layout of the C
//! `kpca_model` (checked at compile time in `capi`), so the C entry points run
//! on the caller's struct in place. [`evaluate`] checks the input, computes
//! ‖x'‖² (x' the input, standardised when the model standardises) and makes one
//! pass over the stored points, all in one stack frame (the C entry point's
//! frame plus this one: at most 264 bytes on a Cortex-M4F, 252 for RBF):
//!
//! - RBF models with d <= 8 and k <= 4 (the usual sensor model) take the
//!   register path ([`rbf_rows`]): x' zero-padded to 8 floats (scaled by
//!   -2 gamma log2(e)) stays in registers; each point costs eight loads and
//!   multiply-adds, one exponential ([`fastmath::exp2_neg`]), c'k and four
//!   multiply-adds for the components, which stay in registers.
//! - Every other kernel and size, and the last few points the register path
//!   leaves (where its 8-float and 4-float reads would run past the model),
//!   take the general path ([`accumulate`]): one point at a time, x'
//!   standardised on the fly, then [`kernel_value`].
//!
//! The split keeps the library within 4 KiB of flash (loading, projection and
//! score, every kernel available) while the common case runs at about 60
//! instructions per stored point; scripts/firmware-cost.sh measures both.
//!
//! Nothing is written to the caller's buffer before the result is known to be
//! finite.

use crate::error::Error;
use crate::fastmath;
use crate::kernel::{cosine, powi, KernelId};
use crate::model::{check_dims, ModelRef, MAX_COMPONENTS};
use core::marker::PhantomData;

/// Components accumulated in registers by the RBF register path.
const GROUP: usize = 4;
/// Features held in registers by the register pass.
const W: usize = 8;

/// Value of the `magic` word of a loaded model (`kpca_model.magic`).
pub const LOADED: u32 = 0x4B50_4341;

const POLYNOMIAL: u32 = KernelId::Polynomial as u32;
const RBF: u32 = KernelId::Rbf as u32;
const LAPLACIAN: u32 = KernelId::Laplacian as u32;
const SIGMOID: u32 = KernelId::Sigmoid as u32;
const COSINE: u32 = KernelId::Cosine as u32;
const LINEAR: u32 = KernelId::Linear as u32;

/// What the projection reads of a model: sizes, kernel and section pointers, in
/// the layout of the C `kpca_model` (the C ABI reads the caller's struct as a
/// `Job`).
///
/// Invariant (established by [`Job::of`], by the loader and, for a struct the
/// loader filled, rechecked by [`Job::check_loaded`]): for `'a`, `points` is
/// valid for m·d reads, `norms` and `c` for m, `a` for m·k, `b` for k, and, when
/// `mean` is non-NULL, `mean` and `inv_std` for d; m·d and m·k do not overflow;
/// d, m, k >= 1, k <= [`MAX_COMPONENTS`]; `kernel` is a [`KernelId`] and the
/// parameters it uses are valid.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Job<'a> {
    pub magic: u32,
    pub kernel: u32,
    pub dim: u32,
    pub n_points: u32,
    pub n_components: u32,
    pub degree: u32,
    pub gamma: f32,
    pub coef0: f32,
    pub threshold: f32,
    pub s: f32,
    pub mean: *const f32,
    pub inv_std: *const f32,
    pub points: *const f32,
    pub norms: *const f32,
    pub a: *const f32,
    pub b: *const f32,
    pub c: *const f32,
    pub eigenvalues: *const f32,
    pub _model: PhantomData<&'a [f32]>,
}

/// u32 to usize (lossless on the 32- and 64-bit targets this crate supports).
#[inline(always)]
pub(crate) fn to_usize(v: u32) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

impl<'a> Job<'a> {
    /// The job of a validated view (its lengths are rechecked, so the invariant
    /// holds here whatever the view).
    pub(crate) fn of(view: &ModelRef<'a>) -> Result<Job<'a>, Error> {
        let (d, m, k) = (view.dim, view.n_points, view.n_components);
        let std_ok = (view.mean.is_empty() && view.inv_std.is_empty())
            || (view.mean.len() == d && view.inv_std.len() == d);
        let ok = check_dims(d, m, k).is_ok()
            && std_ok
            && Some(view.points.len()) == m.checked_mul(d)
            && view.point_sq_norms.len() == m
            && Some(view.a.len()) == m.checked_mul(k)
            && view.b.len() == k
            && view.c.len() == m
            && view.kernel.validate().is_ok();
        if !ok {
            return Err(Error::InconsistentModel);
        }
        let (gamma, degree, coef0) = view.kernel.params();
        let as_u32 = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Ok(Job {
            magic: LOADED,
            kernel: view.kernel.id() as u32,
            dim: as_u32(d),
            n_points: as_u32(m),
            n_components: as_u32(k),
            degree,
            gamma,
            coef0,
            threshold: view.threshold,
            s: view.s,
            mean: if view.mean.is_empty() {
                core::ptr::null()
            } else {
                view.mean.as_ptr()
            },
            inv_std: view.inv_std.as_ptr(),
            points: view.points.as_ptr(),
            norms: view.point_sq_norms.as_ptr(),
            a: view.a.as_ptr(),
            b: view.b.as_ptr(),
            c: view.c.as_ptr(),
            eigenvalues: view.eigenvalues.as_ptr(),
            _model: PhantomData,
        })
    }

    /// The cheap checks of a struct the loader filled: the marker, the sizes
    /// (within their maxima, m·d without overflow) and the kernel id. The
    /// section pointers and kernel parameters are the loader's (not rechecked).
    #[inline(always)]
    pub fn check_loaded(&self) -> Result<(), Error> {
        if self.magic != LOADED {
            return Err(Error::ModelNotLoaded);
        }
        let (d, m, k) = self.dims();
        if check_dims(d, m, k).is_err() || m.checked_mul(d).is_none() {
            return Err(Error::ModelNotLoaded);
        }
        if self.kernel > COSINE {
            return Err(Error::UnknownKernel);
        }
        Ok(())
    }

    /// (d, m, k).
    #[inline(always)]
    pub(crate) fn dims(&self) -> (usize, usize, usize) {
        (
            to_usize(self.dim),
            to_usize(self.n_points),
            to_usize(self.n_components),
        )
    }

    /// A section as a slice.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn section(&self, which: Section) -> &'a [f32] {
        let (d, m, k) = self.dims();
        let (p, len) = match which {
            Section::Points => (self.points, m * d),
            Section::Norms => (self.norms, m),
            Section::A => (self.a, m * k),
            Section::B => (self.b, k),
            Section::C => (self.c, m),
            Section::Eigenvalues => (self.eigenvalues, k),
            Section::Mean if !self.mean.is_null() => (self.mean, d),
            Section::InvStd if !self.mean.is_null() => (self.inv_std, d),
            Section::Mean | Section::InvStd => (
                core::ptr::NonNull::<f32>::dangling().as_ptr().cast_const(),
                0,
            ),
        };
        // SAFETY: by the invariant of `Job`, `p` is non-NULL, aligned and valid for
        // `len` reads for 'a (len cannot overflow: part of the invariant); the
        // dangling pointer is aligned and non-NULL, valid for 0 reads.
        unsafe { core::slice::from_raw_parts(p, len) }
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

/// The kernel value from x'z (the L1 distance ‖x' - z‖₁ for the Laplacian
/// kernel), ‖z‖² and ‖x'‖². One exponential serves the RBF, Laplacian and
/// sigmoid kernels (tanh as in [`fastmath::tanh`]).
#[inline(never)]
fn kernel_value(job: &Job<'_>, dot: f32, zn: f32, sq_norm: f32) -> f32 {
    let (gamma, coef0) = (job.gamma, job.coef0);
    let u = gamma * dot + coef0;
    let t = match job.kernel {
        LINEAR => return dot,
        POLYNOMIAL => return powi(u, job.degree),
        RBF => gamma * (sq_norm + zn - 2.0 * dot),
        LAPLACIAN => gamma * dot,
        SIGMOID => 2.0 * libm::fabsf(u),
        _ => return cosine(dot, sq_norm, zn),
    };
    let e = fastmath::exp_neg(t);
    if job.kernel == SIGMOID {
        fastmath::tanh_from(u, e)
    } else {
        e
    }
}

/// k(x, x) of the input with squared norm `sq_norm`.
fn self_kernel(job: &Job<'_>, sq_norm: f32) -> f32 {
    match job.kernel {
        RBF | LAPLACIAN => 1.0,
        COSINE => {
            if sq_norm > 0.0 {
                1.0
            } else {
                0.0
            }
        }
        _ => kernel_value(job, sq_norm, sq_norm, sq_norm),
    }
}

/// The number of leading stored points whose reads in [`rbf_rows`] stay inside
/// the model: 8 floats from the start of the point's row (d < 8 only: the
/// floats past the row belong to the next row and meet zeros in x') and 4 from
/// the start of its row of A (k < 4 only: the sums past k are dropped).
fn rbf_row_count(m: usize, d: usize, k: usize) -> usize {
    // Row i reads up to i·d + 8 <= m·d: i <= m - ceil(8/d), that is i < m - 7/d
    // (none past the last row for d >= 8); likewise i < m - 3/k for A.
    m.saturating_sub((7 / d.max(1)).max(3 / k.max(1)))
}

/// The RBF register path, for d <= 8 and k <= 4 (returns 0 points otherwise),
/// over the first [`rbf_row_count`] stored points; returns that count and c'k
/// over them, and adds A'k into `y[..k]`.
///
/// x', zero-padded to 8 floats, is read from `y[8..16]` and stays in
/// registers scaled by -2 gamma log2(e). Per point: gamma log2(e) ‖x' - z‖² as
/// gamma log2(e) (‖x'‖² + ‖z‖²) - 2 gamma log2(e) x'z (eight loads and
/// multiply-adds against the stored ‖z‖²), one [`fastmath::exp2_neg`], c'k,
/// and four multiply-adds for the components, held in registers.
#[inline(always)]
#[allow(unsafe_code)]
fn rbf_rows(job: &Job<'_>, sq_norm: f32, y: &mut [f32; MAX_COMPONENTS]) -> (usize, f32) {
    let (d, m, k) = job.dims();
    let (points, norms) = (job.section(Section::Points), job.section(Section::Norms));
    let (a, c) = (job.section(Section::A), job.section(Section::C));
    let n = rbf_row_count(m, d, k);
    if d > W
        || k > GROUP
        || n > norms.len()
        || n > c.len()
        || points.len() != m * d
        || a.len() != m * k
    {
        return (0, 0.0);
    }
    let g = job.gamma * core::f32::consts::LOG2_E;
    let g2 = -2.0 * g;
    let mut h = [0.0f32; W];
    for (o, &v) in h.iter_mut().zip(y.iter().skip(W)) {
        *o = v * g2;
    }
    let w0 = g * sq_norm;
    let mut y0 = [0.0f32; GROUP];
    let mut ck = 0.0f32;
    let (mut zp, mut ap, mut np, mut cp) =
        (points.as_ptr(), a.as_ptr(), norms.as_ptr(), c.as_ptr());
    // SAFETY: n <= norms.len() (checked).
    let n_end = unsafe { norms.as_ptr().add(n) };
    while np != n_end {
        // SAFETY: at point i < n: np = norms + i and cp = c + i with i < n <=
        // their lengths; zp = points + i·d, whose reads zp[..8] lie inside
        // `points` (m·d floats, checked; i·d + 8 <= m·d for d < 8 by
        // rbf_row_count); ap = a + i·k, whose reads ap[..4] lie inside `a` (m·k
        // floats, checked; i·k + 4 <= m·k for k < 4 by rbf_row_count).
        unsafe {
            let mut w = w0 + g * *np;
            for (j, &hj) in h.iter().enumerate() {
                w += hj * *zp.add(j);
            }
            let kv = fastmath::exp2_neg(w);
            ck += kv * *cp;
            for (l, yl) in y0.iter_mut().enumerate() {
                *yl += kv * *ap.add(l);
            }
            zp = zp.add(d);
            ap = ap.add(k);
            np = np.add(1);
            cp = cp.add(1);
        }
    }
    for (yl, v) in y.iter_mut().zip(y0).take(k) {
        *yl += v;
    }
    (n, ck)
}

/// c'k_x (returned) and A'k_x (added into `y[..k]`) over the stored points
/// `start..m`, one point at a time: every kernel, any d and k, x' standardised
/// on the fly (returns 0 and does nothing if the model's sections disagree
/// with its sizes).
#[inline(always)]
#[allow(unsafe_code)]
fn accumulate(
    job: &Job<'_>,
    x: &[f32],
    sq_norm: f32,
    y: &mut [f32; MAX_COMPONENTS],
    start: usize,
) -> f32 {
    let (d, m, k) = job.dims();
    let (points, a) = (job.section(Section::Points), job.section(Section::A));
    let (norms, c) = (job.section(Section::Norms), job.section(Section::C));
    let (mean, inv_std) = (job.section(Section::Mean), job.section(Section::InvStd));
    let standardized = mean.len() == d && inv_std.len() == d;
    if x.len() != d
        || !(standardized || mean.is_empty())
        || Some(points.len()) != m.checked_mul(d)
        || Some(a.len()) != m.checked_mul(k)
        || norms.len() != m
        || c.len() != m
        || k > MAX_COMPONENTS
    {
        return 0.0;
    }
    let (mp, sp) = (mean.as_ptr(), inv_std.as_ptr());
    let l1 = job.kernel == LAPLACIAN;
    let mut ck = 0.0f32;
    for i in start..m {
        // SAFETY: i < m, so row i of the points (d floats from i·d) lies in
        // `points` (m·d floats, checked), row i of A (k floats from i·k) in `a`
        // (m·k, checked), and norms[i], c[i] in theirs (m, checked); the mean
        // and 1/std reads (standardised models only) are j < d floats into
        // `mean` and `inv_std` (d floats each, checked); y[..k] is in `y`
        // (k <= MAX_COMPONENTS, checked).
        unsafe {
            let z = points.as_ptr().add(i * d);
            let mut acc = 0.0f32;
            match (l1, standardized) {
                (false, false) => {
                    for (j, &v) in x.iter().enumerate() {
                        acc += v * *z.add(j);
                    }
                }
                (true, false) => {
                    for (j, &v) in x.iter().enumerate() {
                        acc += libm::fabsf(v - *z.add(j));
                    }
                }
                (_, true) => {
                    for (j, &xj) in x.iter().enumerate() {
                        let v = (xj - *mp.add(j)) * *sp.add(j);
                        let zj = *z.add(j);
                        acc += if l1 { libm::fabsf(v - zj) } else { v * zj };
                    }
                }
            }
            let kv = kernel_value(job, acc, *norms.as_ptr().add(i), sq_norm);
            ck += kv * *c.as_ptr().add(i);
            let arow = a.as_ptr().add(i * k);
            for (l, yl) in y.iter_mut().take(k).enumerate() {
                *yl += kv * *arow.add(l);
            }
        }
    }
    ck
}

/// Computes the coordinates (into `out[..k]`, when `out` is given) and, when
/// `score` is given, the anomaly score of `x` (into `*score`); writes nothing
/// unless everything is finite.
///
/// Errors: [`Error::OutputLength`], [`Error::InputLength`],
/// [`Error::NonFiniteInput`], [`Error::NonFiniteResult`], in that order.
#[inline(never)]
pub fn evaluate(
    job: &Job<'_>,
    x: &[f32],
    out: Option<&mut [f32]>,
    score: Option<&mut f32>,
) -> Result<(), Error> {
    let (d, m, k) = job.dims();
    if out.as_ref().is_some_and(|o| o.len() < k) {
        return Err(Error::OutputLength);
    }
    if x.len() != d {
        return Err(Error::InputLength);
    }
    let (mean, inv_std) = (job.section(Section::Mean), job.section(Section::InvStd));
    // The components' sums, y[..k] (-0.0 is the exact additive identity),
    // and, for the RBF register path (k <= 4), x'[..8] in y[8..16], padded
    // with -0.0 (a zero in the products).
    let mut y = [-0.0f32; MAX_COMPONENTS];
    let mut slots = y
        .iter_mut()
        .skip(if k <= GROUP { W } else { MAX_COMPONENTS });
    // ‖x'‖², ‖x'‖₁ (0 exactly when x' = 0, even where ‖x'‖² underflows) and a
    // probe that is NaN iff some x_j is not finite (x·0 is 0 for finite x, NaN
    // otherwise).
    let mut sq_norm = 0.0f32;
    let mut abs_sum = 0.0f32;
    let mut probe = 0.0f32;
    if mean.is_empty() {
        for &xj in x {
            sq_norm += xj * xj;
            abs_sum += libm::fabsf(xj);
            probe += xj * 0.0;
            if let Some(o) = slots.next() {
                *o = xj;
            }
        }
    } else {
        for ((&xj, &mj), &sj) in x.iter().zip(mean).zip(inv_std) {
            let v = (xj - mj) * sj;
            sq_norm += v * v;
            abs_sum += libm::fabsf(v);
            probe += xj * 0.0;
            if let Some(o) = slots.next() {
                *o = v;
            }
        }
    }
    if probe.is_nan() {
        return Err(Error::NonFiniteInput);
    }
    // The cosine kernel divides by ‖x'‖: when ‖x'‖² overflows f32, or underflows
    // below the normal range for a non-zero x', the direction of x' is lost in
    // f32 and the kernel values would all come out 0. That is reported
    // (NonFiniteResult), not returned as a result.
    if job.kernel == COSINE
        && !(sq_norm.is_finite() && (sq_norm >= f32::MIN_POSITIVE || abs_sum == 0.0))
    {
        return Err(Error::NonFiniteResult);
    }
    let (start, mut ck) = if job.kernel == RBF {
        rbf_rows(job, sq_norm, &mut y)
    } else {
        (0, 0.0)
    };
    if start < m {
        ck += accumulate(job, x, sq_norm, &mut y, start);
    }
    let mut sum_sq = 0.0f32;
    probe = 0.0;
    for (yl, &bl) in y.iter_mut().zip(job.section(Section::B)) {
        *yl += bl;
        sum_sq += *yl * *yl;
        probe += *yl * 0.0;
    }
    let e = if score.is_some() {
        self_kernel(job, sq_norm) - 2.0 * ck + job.s - sum_sq
    } else {
        0.0
    };
    if probe.is_nan() || !e.is_finite() {
        return Err(Error::NonFiniteResult);
    }
    if let Some(out) = out {
        for (o, v) in out.iter_mut().zip(&y).take(k) {
            *o = *v;
        }
    }
    if let Some(score) = score {
        *score = e;
    }
    Ok(())
}

/// Checks a batch of row-major vectors for `job` and returns the number of rows.
fn batch_rows(job: &Job<'_>, xs: &[f32], out_len: usize, per_row: usize) -> Result<usize, Error> {
    let d = job.dims().0.max(1);
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
pub fn project_batch(job: &Job<'_>, xs: &[f32], out: &mut [f32]) -> Result<usize, Error> {
    let (d, _, k) = job.dims();
    let rows = batch_rows(job, xs, out.len(), k)?;
    for (x, o) in xs
        .chunks_exact(d.max(1))
        .zip(out.chunks_exact_mut(k.max(1)))
    {
        evaluate(job, x, Some(o), None)?;
    }
    Ok(rows)
}

/// Scores each row of `xs` into `scores` (see [`ModelRef::anomaly_score_batch`]).
pub fn score_batch(job: &Job<'_>, xs: &[f32], scores: &mut [f32]) -> Result<usize, Error> {
    let rows = batch_rows(job, xs, scores.len(), 1)?;
    for (x, s) in xs.chunks_exact(job.dims().0.max(1)).zip(scores.iter_mut()) {
        evaluate(job, x, None, Some(s))?;
    }
    Ok(rows)
}

impl ModelRef<'_> {
    /// The k kernel-PCA coordinates of `x` (length d) into `out[..k]`.
    ///
    /// Errors: [`Error::InputLength`], [`Error::OutputLength`] (`out` shorter than k),
    /// [`Error::NonFiniteInput`], [`Error::NonFiniteResult`]. `out` is written only on success.
    pub fn project(&self, x: &[f32], out: &mut [f32]) -> Result<(), Error> {
        evaluate(&Job::of(self)?, x, Some(out), None)
    }

    /// The anomaly score e(x): the squared distance in feature space between
    /// phi(x) and its reconstruction from the k components (DESIGN.md section 2).
    pub fn anomaly_score(&self, x: &[f32]) -> Result<f32, Error> {
        let mut e = 0.0;
        evaluate(&Job::of(self)?, x, None, Some(&mut e))?;
        Ok(e)
    }

    /// Coordinates into `out[..k]` and the anomaly score, in one pass.
    pub fn project_and_score(&self, x: &[f32], out: &mut [f32]) -> Result<f32, Error> {
        let mut e = 0.0;
        evaluate(&Job::of(self)?, x, Some(out), Some(&mut e))?;
        Ok(e)
    }

    /// Whether the anomaly score of `x` exceeds the stored threshold.
    /// [`Error::ThresholdUnset`] when the model has none.
    pub fn is_anomaly(&self, x: &[f32]) -> Result<bool, Error> {
        if self.threshold <= 0.0 {
            return Err(Error::ThresholdUnset);
        }
        Ok(self.anomaly_score(x)? > self.threshold)
    }

    /// Projects each row of `xs` (row-major, n x d) into the rows of `out` (n x k).
    /// All inputs are checked before anything is written; if a result overflows
    /// ([`Error::NonFiniteResult`]) the rows before it have been written.
    /// Returns the number of rows.
    pub fn project_batch(&self, xs: &[f32], out: &mut [f32]) -> Result<usize, Error> {
        project_batch(&Job::of(self)?, xs, out)
    }

    /// Anomaly scores of each row of `xs` (row-major, n x d) into `scores[..n]`,
    /// with the same checking and writing rules as [`ModelRef::project_batch`].
    pub fn anomaly_score_batch(&self, xs: &[f32], scores: &mut [f32]) -> Result<usize, Error> {
        score_batch(&Job::of(self)?, xs, scores)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Kernel, ModelParts, ModelRef};
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

    /// Every path (RBF registers for d <= 8 and k <= 4, the register passes for
    /// chunks of 8 and the rest, one point at a time) against an f64
    /// evaluation, over sizes around the path limits, including m < 4 and k < 4
    /// (whose register paths read into the next rows or repeat the last entry).
    #[test]
    fn every_path_matches_f64_around_its_limits() {
        let mut g = Lcg(7);
        for kernel in [
            Kernel::Rbf { gamma: 0.4 },
            Kernel::Laplacian { gamma: 0.3 },
            Kernel::Linear,
        ] {
            for d in (1..=10).chain([15, 16, 17, 24, 25]) {
                for m in [1, 2, 3, 4, 5, 7, 9, 13] {
                    for k in [1, 2, 3, 4, 5] {
                        for standardized in [false, true] {
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
                            let kxx = match kernel {
                                Kernel::Linear => xs.iter().map(|v| v * v).sum(),
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
