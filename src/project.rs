//! The one projection code path: coordinates and anomaly score of a vector.
//!
//! Every entry point (the [`ModelRef`] methods and the C ABI) describes the model
//! as a [`Job`] and calls [`evaluate`]. A `Job` has the layout of the C
//! `kpca_model` (checked at compile time in `capi`), so the C entry points run
//! on the caller's struct in place. [`evaluate`] checks the input, computes
//! ‖x'‖² (x' the input, standardised when the model standardises) and makes one
//! pass over the stored points:
//!
//! - RBF models with d <= 8 and k <= 4 take [`rbf_small`]: x' zero-padded to 8
//!   floats (scaled by -2 gamma log2(e)) stays in registers, each point costs
//!   eight loads and multiply-adds, one exponential ([`fastmath::exp2_neg`]),
//!   c'k and four multiply-adds for the components, which stay in registers.
//! - Every other kernel and size (and the few points `rbf_small` leaves over)
//!   takes a register pass ([`pass`], one instance per family: RBF, Laplacian,
//!   inner-product kernels) over x' in memory (the input, or x' staged when
//!   standardised and d <= 8): x'[..8] in registers, further chunks of 8
//!   reloaded per point, the rest one by one; the RBF and Laplacian exponential
//!   inline, the first four components in registers, any k.
//! - Standardised models with d > 8, and every model in the `compact` build
//!   (about 4.6 KB less flash, 3x slower), take [`accumulate`]: one point at a
//!   time, x' standardised on the fly, then [`kernel_value`].
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
pub(crate) const LOADED: u32 = 0x4B50_4341;

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
pub(crate) struct Job<'a> {
    pub(crate) magic: u32,
    pub(crate) kernel: u32,
    pub(crate) dim: u32,
    pub(crate) n_points: u32,
    pub(crate) n_components: u32,
    pub(crate) degree: u32,
    pub(crate) gamma: f32,
    pub(crate) coef0: f32,
    pub(crate) threshold: f32,
    pub(crate) s: f32,
    pub(crate) mean: *const f32,
    pub(crate) inv_std: *const f32,
    pub(crate) points: *const f32,
    pub(crate) norms: *const f32,
    pub(crate) a: *const f32,
    pub(crate) b: *const f32,
    pub(crate) c: *const f32,
    pub(crate) eigenvalues: *const f32,
    pub(crate) _model: PhantomData<&'a [f32]>,
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
    #[cfg(feature = "capi")]
    #[inline(always)]
    pub(crate) fn check_loaded(&self) -> Result<(), Error> {
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

/// c'k_x (returned) and A'k_x (added into `y`) over the stored points
/// `start..m`, one point at a time: every kernel, any d and k.
#[inline(never)]
#[allow(unsafe_code)]
fn accumulate(job: &Job<'_>, x: &[f32], sq_norm: f32, y: &mut [f32], start: usize) -> f32 {
    let (d, _, k) = job.dims();
    let (mean, inv_std) = (job.section(Section::Mean), job.section(Section::InvStd));
    let (points, a) = (job.section(Section::Points), job.section(Section::A));
    let (norms, c) = (job.section(Section::Norms), job.section(Section::C));
    let l1 = job.kernel == LAPLACIAN;
    let mut ck = 0.0f32;
    for ((i, &zn), &ci) in norms.iter().enumerate().zip(c).skip(start) {
        // SAFETY: i < m (the length of `norms`), so row i of the points (d
        // floats from i·d) lies in `points` (m·d floats) and row i of A (k
        // floats from i·k) in `a` (m·k), by the invariant of `Job`.
        let (z, arow) = unsafe {
            (
                core::slice::from_raw_parts(points.as_ptr().add(i * d), d),
                core::slice::from_raw_parts(a.as_ptr().add(i * k), k),
            )
        };
        let mut acc = 0.0f32;
        if mean.is_empty() {
            for (&v, &zj) in x.iter().zip(z) {
                acc += if l1 { libm::fabsf(v - zj) } else { v * zj };
            }
        } else {
            for ((&xj, &zj), (&mj, &sj)) in x.iter().zip(z).zip(mean.iter().zip(inv_std)) {
                let v = (xj - mj) * sj;
                acc += if l1 { libm::fabsf(v - zj) } else { v * zj };
            }
        }
        let kv = kernel_value(job, acc, zn, sq_norm);
        ck += kv * ci;
        for (yl, &al) in y.iter_mut().zip(arow) {
            *yl += kv * al;
        }
    }
    ck
}

/// The register pass over every stored point, for a kernel family `KIND`
/// ([`RBF`], [`LAPLACIAN`], or [`LINEAR`] standing for every inner-product
/// kernel): `xv` is x' (length d, in memory). Per point: the first 8 features
/// against x'[..8] held in registers (when d >= 8), further full chunks of 8
/// features with x' reloaded, the last d mod 8 one by one; then the kernel value
/// (RBF and Laplacian inline through [`fastmath::exp2_neg`], linear as is, the
/// others through [`kernel_value`]), c'k, and A'k with the first four
/// components in registers (for k < 4 the loads repeat the row's last entry and
/// the extra sums are dropped) and the rest in `y[4..k]`. Returns c'k and adds
/// A'k into `y[..k]`.
#[inline(always)]
#[allow(unsafe_code)]
fn pass<const KIND: u32>(
    job: &Job<'_>,
    xv: &[f32],
    sq_norm: f32,
    y: &mut [f32],
    start: usize,
) -> f32 {
    let (d, _, k) = job.dims();
    let (points, norms) = (job.section(Section::Points), job.section(Section::Norms));
    let (a, c) = (job.section(Section::A), job.section(Section::C));
    if xv.len() != d || d == 0 || k == 0 || k > y.len() || start > norms.len() {
        return 0.0;
    }
    let g = job.gamma * core::f32::consts::LOG2_E;
    let g2 = -2.0 * g;
    let w0 = g * sq_norm;
    // x'[..8] in registers (when d >= 8; scaled by -2 gamma log2(e) for RBF),
    // the rest reloaded per point.
    let (has_head, head, rest) = match xv.split_first_chunk::<W>() {
        Some((h, r)) => (true, *h, r),
        None => (false, [0.0f32; W], xv),
    };
    let mut head = head;
    if KIND == RBF {
        for h in head.iter_mut() {
            *h *= g2;
        }
    }
    let (n_chunks, n_tail) = (rest.len() / W, rest.len() % W);
    let mut y0 = [0.0f32; GROUP];
    let mut ck = 0.0f32;
    let f = |xj: f32, zj: f32| {
        if KIND == LAPLACIAN {
            libm::fabsf(xj - zj)
        } else {
            xj * zj
        }
    };
    // Rows whose first four entries of A lie inside A (all of them for k >= 4).
    let m = reg_rows(norms.len().min(c.len()), k);
    if start > m {
        return 0.0;
    }
    // SAFETY: start <= m (checked above), so start·d <= m·d and start·k <= m·k,
    // and norms + start, c + start, norms + m are within or one past `norms` and
    // `c`; the x' bounds are within or one past `rest`.
    let (mut zp, mut ap, mut np, mut cp, n_end, x_chunks, x_end) = unsafe {
        (
            points.as_ptr().add(start * d),
            a.as_ptr().add(start * k),
            norms.as_ptr().add(start),
            c.as_ptr().add(start),
            norms.as_ptr().add(m),
            rest.as_ptr().add(n_chunks * W),
            rest.as_ptr().add(n_chunks * W + n_tail),
        )
    };
    let yp = y.as_mut_ptr();
    while np != n_end {
        // SAFETY: at point i (start <= i < m, m <= the lengths of `norms` and
        // `c`), np = norms + i, cp = c + i, zp = points + i·d and ap = a + i·k;
        // the reads are zp[..d] (8 for the head when d >= 8, then 8·n_chunks +
        // n_tail = d - 8 or d more, zp ending at the next row), row i of the
        // points inside `points` (m·d floats), and ap[..max(k, 4)] inside `a`
        // (m·k floats, by the invariant of `Job`, and i < reg_rows); x' reads stay within `rest` (up to x_end); y[4..k] is within
        // `y` (k <= MAX_COMPONENTS, invariant).
        unsafe {
            let (zn, ci) = (*np, *cp);
            let mut acc = if KIND == RBF { w0 + g * zn } else { 0.0 };
            if has_head {
                for (j, &h) in head.iter().enumerate() {
                    acc += f(h, *zp.add(j));
                }
                zp = zp.add(W);
            }
            let mut acc2 = 0.0f32;
            let mut xq = rest.as_ptr();
            while xq != x_chunks {
                for j in 0..W {
                    acc2 += f(*xq.add(j), *zp.add(j));
                }
                xq = xq.add(W);
                zp = zp.add(W);
            }
            while xq != x_end {
                acc2 += f(*xq, *zp);
                xq = xq.add(1);
                zp = zp.add(1);
            }
            let kv = if KIND == RBF {
                fastmath::exp2_neg(acc + g2 * acc2)
            } else if KIND == LAPLACIAN {
                fastmath::exp2_neg(g * (acc + acc2))
            } else if job.kernel == LINEAR {
                acc + acc2
            } else {
                kernel_value(job, acc + acc2, zn, sq_norm)
            };
            let (a0, a1, a2, a3) = (*ap, *ap.add(1), *ap.add(2), *ap.add(3));
            ck += kv * ci;
            y0[0] += kv * a0;
            y0[1] += kv * a1;
            y0[2] += kv * a2;
            y0[3] += kv * a3;
            if k > GROUP {
                let a_end = ap.add(k);
                let mut aq = ap.add(GROUP);
                let mut yq = yp.add(GROUP);
                while aq != a_end {
                    *yq += kv * *aq;
                    aq = aq.add(1);
                    yq = yq.add(1);
                }
                ap = a_end;
            } else {
                ap = ap.add(k);
            }
            np = np.add(1);
            cp = cp.add(1);
        }
    }
    for (yl, v) in y.iter_mut().zip(y0).take(k) {
        *yl += v;
    }
    ck
}

/// The number of leading rows i < m of A (k floats each) whose first four
/// floats lie inside A (i·k + 4 <= m·k): m for k >= 4, m - 3/k rows for k < 4.
#[inline(always)]
fn reg_rows(m: usize, k: usize) -> usize {
    m.saturating_sub((GROUP - 1) / k.max(1))
}

/// [`pass`] for each kernel family.
#[inline(never)]
fn pass_rbf(job: &Job<'_>, xv: &[f32], sq_norm: f32, y: &mut [f32], start: usize) -> f32 {
    pass::<RBF>(job, xv, sq_norm, y, start)
}

/// [`pass`] for the Laplacian kernel.
#[inline(never)]
fn pass_l1(job: &Job<'_>, xv: &[f32], sq_norm: f32, y: &mut [f32], start: usize) -> f32 {
    pass::<LAPLACIAN>(job, xv, sq_norm, y, start)
}

/// [`pass`] for the inner-product kernels (linear, polynomial, sigmoid, cosine).
#[inline(never)]
fn pass_dot(job: &Job<'_>, xv: &[f32], sq_norm: f32, y: &mut [f32], start: usize) -> f32 {
    pass::<LINEAR>(job, xv, sq_norm, y, start)
}

/// The RBF register path over the first `n` stored points: x' (zero-padded to
/// 8 floats in `y[8..16]`, here scaled by -2 gamma log2(e)) in registers, per point
/// eight loads and multiply-adds for w = gamma log2(e) ‖x' - z‖², one
/// [`fastmath::exp2_neg`], c'k, and four multiply-adds for the (at most 4)
/// components in registers (for d < 8 the eight floats run into the next row
/// of points, multiplied by zeros; for k < 4 the four floats run into the next
/// row of A and the extra sums are dropped). Returns c'k and adds A'k into
/// `y[..k]`; returns 0 and does nothing unless k <= 4, d <= 8 and 8 floats from
/// the start of row n - 1 of the points and 4 from row n - 1 of A are inside
/// the model.
#[inline(never)]
#[allow(unsafe_code)]
fn rbf_small(job: &Job<'_>, sq_norm: f32, n: usize, y: &mut [f32; MAX_COMPONENTS]) -> f32 {
    let (d, _, k) = job.dims();
    let (points, norms) = (job.section(Section::Points), job.section(Section::Norms));
    let (a, c) = (job.section(Section::A), job.section(Section::C));
    if n == 0
        || k > GROUP
        || d > W
        || n > norms.len()
        || n > c.len()
        || (n - 1) * d + W > points.len()
        || (n - 1) * k + GROUP > a.len()
    {
        return 0.0;
    }
    let g = job.gamma * core::f32::consts::LOG2_E;
    let g2 = -2.0 * g;
    let mut xs = [0.0f32; W];
    for (o, &v) in xs.iter_mut().zip(y.iter().skip(W)) {
        *o = v * g2;
    }
    let w0 = g * sq_norm;
    let mut y0 = [0.0f32; GROUP];
    let mut ck = 0.0f32;
    let mut zp = points.as_ptr();
    let mut ap = a.as_ptr();
    let mut np = norms.as_ptr();
    let mut cp = c.as_ptr();
    // SAFETY: at point p < n: zp = points + p·d with p·d + 8 <= (n - 1)·d + 8 <=
    // points.len(), ap = a + p·k with p·k + 4 <= (n - 1)·k + 4 <= a.len(), np
    // and cp are norms + p and c + p with p < n <= their lengths (all checked
    // above).
    unsafe {
        for _ in 0..n {
            let mut w = w0 + g * *np;
            for (j, &xj) in xs.iter().enumerate() {
                w += xj * *zp.add(j);
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
    ck
}

/// Computes the coordinates (into `out[..k]`, when `out` is given) and, if
/// `score` is set, the anomaly score of `x` (else returns 0); writes `out` only
/// when everything is finite.
///
/// Errors: [`Error::OutputLength`], [`Error::InputLength`],
/// [`Error::NonFiniteInput`], [`Error::NonFiniteResult`], in that order.
#[inline(never)]
pub(crate) fn evaluate(
    job: &Job<'_>,
    x: &[f32],
    out: Option<&mut [f32]>,
    score: bool,
) -> Result<f32, Error> {
    let (d, m, k) = job.dims();
    if out.as_ref().is_some_and(|o| o.len() < k) {
        return Err(Error::OutputLength);
    }
    if x.len() != d {
        return Err(Error::InputLength);
    }
    let (mean, inv_std) = (job.section(Section::Mean), job.section(Section::InvStd));
    // The components' sums (y[..k]; -0.0 is the exact additive identity and,
    // unlike +0.0, not a memset pattern).
    let mut y = [-0.0f32; MAX_COMPONENTS];
    let small = !cfg!(feature = "compact") && job.kernel == RBF && d <= W && k <= GROUP;
    // A standardised x' of d <= 8 features is staged in y[8..8 + d] when the
    // components (y[..k]) leave room for it (k <= 8).
    let staged = !mean.is_empty() && d <= W && k <= W;
    // ‖x'‖² and a probe that is NaN iff some x_j is not finite (x·0 is 0 for
    // finite x, NaN otherwise).
    let mut sq_norm = 0.0f32;
    let mut probe = 0.0f32;
    if mean.is_empty() {
        for &xj in x {
            sq_norm += xj * xj;
            probe += xj * 0.0;
        }
    } else {
        let mut slots = y
            .get_mut(W..W + if staged { d } else { 0 })
            .unwrap_or(&mut [])
            .iter_mut();
        for ((&xj, &mj), &sj) in x.iter().zip(mean).zip(inv_std) {
            let v = (xj - mj) * sj;
            sq_norm += v * v;
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
    if job.kernel == COSINE && !(sq_norm.is_finite() && sq_norm >= f32::MIN_POSITIVE) {
        let zero = if mean.is_empty() {
            x.iter().all(|&v| v == 0.0)
        } else {
            x.iter()
                .zip(mean)
                .zip(inv_std)
                .all(|((&xj, &mj), &sj)| (xj - mj) * sj == 0.0)
        };
        if !(zero && sq_norm.is_finite()) {
            return Err(Error::NonFiniteResult);
        }
    }
    let mut ck = 0.0f32;
    let mut start = 0;
    if small {
        // Points whose 8 floats from the row start stay inside the points, and
        // whose 4 floats from the start of their row of A inside A.
        let rows = |len: usize, step: usize, need: usize| {
            len.checked_sub(need).map_or(0, |r| r / step.max(1) + 1)
        };
        let n = rows(m * d, d, W).min(rows(m * k, k, GROUP)).min(m);
        // x' zero-padded to 8 floats in y[8..16] (already there when staged).
        let (_, y_hi) = y.split_at_mut(W);
        if mean.is_empty() {
            for (o, &v) in y_hi.iter_mut().zip(x) {
                *o = v;
            }
        }
        for o in y_hi.iter_mut().skip(d) {
            *o = 0.0;
        }
        ck = rbf_small(job, sq_norm, n, &mut y);
        start = n;
    }
    if start < m {
        // The components' sums and x' (the input, or staged in y[8..8 + d]).
        let (ys, xv): (&mut [f32], Option<&[f32]>) = if mean.is_empty() {
            (&mut y, Some(x))
        } else if staged {
            let (lo, hi) = y.split_at_mut(W);
            (lo, hi.get(..d))
        } else {
            (&mut y, None)
        };
        if let Some(xv) = xv.filter(|_| !cfg!(feature = "compact")) {
            ck += match job.kernel {
                RBF => pass_rbf(job, xv, sq_norm, ys, start),
                LAPLACIAN => pass_l1(job, xv, sq_norm, ys, start),
                _ => pass_dot(job, xv, sq_norm, ys, start),
            };
            // The last rows (k < 4 only) whose four entries of A would run past A.
            start = reg_rows(m, k).max(start);
        }
        if start < m {
            ck += accumulate(job, x, sq_norm, ys, start);
        }
    }
    let mut sum_sq = 0.0f32;
    probe = 0.0;
    for (yl, &bl) in y.iter_mut().zip(job.section(Section::B)) {
        *yl += bl;
        sum_sq += *yl * *yl;
        probe += *yl * 0.0;
    }
    let e = if score {
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
    Ok(e)
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
pub(crate) fn project_batch(job: &Job<'_>, xs: &[f32], out: &mut [f32]) -> Result<usize, Error> {
    let (d, _, k) = job.dims();
    let rows = batch_rows(job, xs, out.len(), k)?;
    for (x, o) in xs
        .chunks_exact(d.max(1))
        .zip(out.chunks_exact_mut(k.max(1)))
    {
        evaluate(job, x, Some(o), false)?;
    }
    Ok(rows)
}

/// Scores each row of `xs` into `scores` (see [`ModelRef::anomaly_score_batch`]).
pub(crate) fn score_batch(job: &Job<'_>, xs: &[f32], scores: &mut [f32]) -> Result<usize, Error> {
    let rows = batch_rows(job, xs, scores.len(), 1)?;
    for (x, s) in xs.chunks_exact(job.dims().0.max(1)).zip(scores.iter_mut()) {
        *s = evaluate(job, x, None, true)?;
    }
    Ok(rows)
}

impl ModelRef<'_> {
    /// The k kernel-PCA coordinates of `x` (length d) into `out[..k]`.
    ///
    /// Errors: [`Error::InputLength`], [`Error::OutputLength`] (`out` shorter than k),
    /// [`Error::NonFiniteInput`], [`Error::NonFiniteResult`]. `out` is written only on success.
    pub fn project(&self, x: &[f32], out: &mut [f32]) -> Result<(), Error> {
        evaluate(&Job::of(self)?, x, Some(out), false).map(|_| ())
    }

    /// The anomaly score e(x): the squared distance in feature space between
    /// phi(x) and its reconstruction from the k components (DESIGN.md section 2).
    pub fn anomaly_score(&self, x: &[f32]) -> Result<f32, Error> {
        evaluate(&Job::of(self)?, x, None, true)
    }

    /// Coordinates into `out[..k]` and the anomaly score, in one pass.
    pub fn project_and_score(&self, x: &[f32], out: &mut [f32]) -> Result<f32, Error> {
        evaluate(&Job::of(self)?, x, Some(out), true)
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
