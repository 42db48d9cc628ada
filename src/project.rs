//! The one projection code path: coordinates and anomaly score of a vector.
//!
//! Every entry point (the [`ModelRef`] methods and the C ABI) describes the model
//! as a [`Job`] (sizes, kernel, section pointers) and calls [`evaluate`], which
//! checks the input, computes ‖x'‖² (x' the input, standardised when the model
//! standardises) and makes one pass over the stored points:
//!
//! - RBF models with d <= 8 and k <= 4 (chosen once per call) take
//!   [`rbf_small`]: x' zero-padded to 4 or 8 floats stays in registers, each
//!   point costs that many loads and multiply-adds, one exponential
//!   ([`fastmath::exp2_neg`], log2(e) folded into gamma), c'k, and four
//!   multiply-adds for the components, which stay in registers.
//! - Other RBF models take the points in tiles of four ([`dot4`]: inner
//!   products in registers, x' four features at a time, each stored value loaded
//!   once), then the exponential, c'k and the components (the first four in
//!   registers).
//! - The other kernels, and the few points the paths above leave over, take the
//!   compact path: one point at a time ([`Input::pre_one`], [`map_values`]).
//!
//! Nothing is written to the caller's buffer before the result is known to be
//! finite.

use crate::error::Error;
use crate::fastmath;
use crate::kernel::{cosine, powi, Kernel};
use crate::model::{ModelRef, MAX_COMPONENTS};
use core::marker::PhantomData;

/// Points per tile (their inner products are accumulated together in registers).
const TILE: usize = 4;
/// Components accumulated together.
const GROUP: usize = 4;

/// What the projection reads of a model: sizes, kernel and section pointers.
///
/// Invariant (established by both constructors): for `'a`, `points` is valid for
/// m·d reads, `norms` and `c` for m, `a` for m·k, `b` for k, and, when `mean` is
/// non-NULL, `mean` and `inv_std` for d; m·d and m·k do not overflow; d, m, k >= 1
/// and k <= [`MAX_COMPONENTS`].
#[derive(Clone, Copy)]
pub(crate) struct Job<'a> {
    kernel: Kernel,
    d: usize,
    m: usize,
    k: usize,
    s: f32,
    points: *const f32,
    norms: *const f32,
    a: *const f32,
    b: *const f32,
    c: *const f32,
    mean: *const f32,
    inv_std: *const f32,
    _model: PhantomData<&'a [f32]>,
}

impl<'a> Job<'a> {
    /// The job of a validated view (its lengths are rechecked, so the invariant
    /// holds here whatever the view).
    pub(crate) fn of(view: &ModelRef<'a>) -> Result<Job<'a>, Error> {
        let (d, m, k) = (view.dim, view.n_points, view.n_components);
        let std_ok = (view.mean.is_empty() && view.inv_std.is_empty())
            || (view.mean.len() == d && view.inv_std.len() == d);
        let ok = d > 0
            && m > 0
            && k > 0
            && k <= MAX_COMPONENTS
            && std_ok
            && Some(view.points.len()) == m.checked_mul(d)
            && view.point_sq_norms.len() == m
            && Some(view.a.len()) == m.checked_mul(k)
            && view.b.len() == k
            && view.c.len() == m;
        if !ok {
            return Err(Error::InconsistentModel);
        }
        Ok(Job {
            kernel: view.kernel,
            d,
            m,
            k,
            s: view.s,
            points: view.points.as_ptr(),
            norms: view.point_sq_norms.as_ptr(),
            a: view.a.as_ptr(),
            b: view.b.as_ptr(),
            c: view.c.as_ptr(),
            mean: if view.mean.is_empty() {
                core::ptr::null()
            } else {
                view.mean.as_ptr()
            },
            inv_std: view.inv_std.as_ptr(),
            _model: PhantomData,
        })
    }

    /// A job from raw section pointers (the C ABI's loaded model).
    ///
    /// Checks the sizes (non-zero, k within [`MAX_COMPONENTS`], no overflow of
    /// m·d and m·k) and that the pointers are non-NULL and aligned.
    ///
    /// # Safety
    /// Each pointer must be valid for reads of its section's length (listed on
    /// [`Job`]) for `'a`, the memory unchanged meanwhile; `mean` NULL means no
    /// standardisation (then `inv_std` is not read).
    #[cfg(feature = "capi")]
    #[allow(clippy::too_many_arguments, unsafe_code)]
    pub(crate) unsafe fn from_raw(
        kernel: Kernel,
        (d, m, k): (usize, usize, usize),
        s: f32,
        [points, norms, a, b, c, mean, inv_std]: [*const f32; 7],
    ) -> Result<Job<'a>, Error> {
        if d == 0 || m == 0 || k == 0 || k > MAX_COMPONENTS {
            return Err(Error::ModelNotLoaded);
        }
        if m.checked_mul(d).is_none() || m.checked_mul(k).is_none() {
            return Err(Error::ModelNotLoaded);
        }
        let standardized = !mean.is_null();
        for (p, required) in [
            (points, true),
            (norms, true),
            (a, true),
            (b, true),
            (c, true),
            (mean, standardized),
            (inv_std, standardized),
        ] {
            if p.is_null() {
                if required {
                    return Err(Error::NullPointer);
                }
            } else if !p.is_aligned() {
                return Err(Error::Misaligned);
            }
        }
        Ok(Job {
            kernel,
            d,
            m,
            k,
            s,
            points,
            norms,
            a,
            b,
            c,
            mean,
            inv_std,
            _model: PhantomData,
        })
    }

    /// A section as a slice.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn section(&self, which: Section) -> &'a [f32] {
        let (d, m, k) = (self.d, self.m, self.k);
        let (p, len) = match which {
            Section::Points => (self.points, m * d),
            Section::Norms => (self.norms, m),
            Section::A => (self.a, m * k),
            Section::B => (self.b, k),
            Section::C => (self.c, m),
            Section::Mean if !self.mean.is_null() => (self.mean, d),
            Section::InvStd if !self.mean.is_null() => (self.inv_std, d),
            Section::Mean | Section::InvStd => (
                core::ptr::NonNull::<f32>::dangling().as_ptr().cast_const(),
                0,
            ),
        };
        // SAFETY: by the invariant of `Job`, `p` is non-NULL, aligned and valid for
        // `len` reads for 'a (len cannot overflow: checked by the constructors); the
        // dangling pointer is aligned and non-NULL, valid for 0 reads.
        unsafe { core::slice::from_raw_parts(p, len) }
    }
}

#[derive(Clone, Copy)]
enum Section {
    Points,
    Norms,
    A,
    B,
    C,
    Mean,
    InvStd,
}

/// The input: raw, or standardised on the fly.
#[derive(Clone, Copy)]
struct Input<'x> {
    x: &'x [f32],
    /// Empty when the model does not standardise, else d.
    mean: &'x [f32],
    inv_std: &'x [f32],
}

impl Input<'_> {
    /// Feature j as the kernels see it (0 past the end).
    #[inline(always)]
    fn at(&self, j: usize) -> f32 {
        let v = self.x.get(j).copied().unwrap_or(0.0);
        match (self.mean.get(j), self.inv_std.get(j)) {
            (Some(m), Some(s)) => (v - m) * s,
            _ => v,
        }
    }

    /// x'z, or ‖x - z‖₁ when `l1`, for one stored point (d floats).
    #[inline(never)]
    fn pre_one(&self, z: &[f32], l1: bool) -> f32 {
        let mut acc = 0.0f32;
        for (j, &zj) in z.iter().enumerate() {
            let v = self.at(j);
            acc += if l1 { libm::fabsf(v - zj) } else { v * zj };
        }
        acc
    }
}

/// Four consecutive floats at `*p`, advancing `*p` by four.
///
/// # Safety
/// `*p` must be valid for reads of four f32.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn load4(p: &mut *const f32) -> [f32; 4] {
    // SAFETY: the caller guarantees four readable floats at *p.
    unsafe {
        let v = [**p, *p.add(1), *p.add(2), *p.add(3)];
        *p = p.add(4);
        v
    }
}

/// x'z_i for the four stored points at `z` (rows of d floats, row i at z + i·d).
///
/// The input is taken four features at a time (standardised on the fly when
/// `STD`) and held in registers while it meets each of the four points; the
/// stored values are fetched four at a time.
///
/// # Safety
/// `z` must be valid for 4·d reads, `x` for d, and when `STD` `mean` and `inv_std`
/// for d.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn dot4<const STD: bool>(
    x: *const f32,
    mean: *const f32,
    inv_std: *const f32,
    d: usize,
    z: *const f32,
) -> [f32; TILE] {
    let mut acc = [0.0f32; TILE];
    // SAFETY (every read below): the row pointers start at z + i·d (i < 4) and
    // advance by 4 floats per step of the chunk loop, which runs d / 4 times and
    // reads 4 floats per row each time, then the tail reads the d mod 4 floats
    // left in each row: every read is at z + i·d + j with j < d. `x`, `mean` and
    // `inv_std` are read at indices j < d the same way.
    unsafe {
        let mut z0 = z;
        let mut z1 = z.add(d);
        let mut z2 = z.add(2 * d);
        let mut z3 = z.add(3 * d);
        let (mut xp, mut mp, mut sp) = (x, mean, inv_std);
        let mac = |a: &mut f32, v: &[f32; 4], r: [f32; 4]| {
            *a += v[0] * r[0];
            *a += v[1] * r[1];
            *a += v[2] * r[2];
            *a += v[3] * r[3];
        };
        for _ in 0..d / 4 {
            let mut v = load4(&mut xp);
            if STD {
                let m = load4(&mut mp);
                let s = load4(&mut sp);
                v = [
                    (v[0] - m[0]) * s[0],
                    (v[1] - m[1]) * s[1],
                    (v[2] - m[2]) * s[2],
                    (v[3] - m[3]) * s[3],
                ];
            }
            let (r0, r1) = (load4(&mut z0), load4(&mut z1));
            mac(&mut acc[0], &v, r0);
            mac(&mut acc[1], &v, r1);
            let (r2, r3) = (load4(&mut z2), load4(&mut z3));
            mac(&mut acc[2], &v, r2);
            mac(&mut acc[3], &v, r3);
        }
        for j in 0..d % 4 {
            let v = if STD {
                (*xp.add(j) - *mp.add(j)) * *sp.add(j)
            } else {
                *xp.add(j)
            };
            for (a, zr) in acc.iter_mut().zip([z0, z1, z2, z3]) {
                *a += v * *zr.add(j);
            }
        }
    }
    acc
}

/// Kernel values from the inner products (or L1 distances for the Laplacian
/// kernel) in `v`, for the points whose squared norms are `norms` (same length).
/// Every kernel but the RBF tiles, which are mapped inline.
#[inline(never)]
fn map_values(kernel: &Kernel, sq_norm: f32, v: &mut [f32], norms: &[f32]) {
    for (o, &zn) in v.iter_mut().zip(norms) {
        *o = match *kernel {
            Kernel::Linear => *o,
            Kernel::Polynomial {
                gamma,
                degree,
                coef0,
            } => powi(gamma * *o + coef0, degree),
            Kernel::Rbf { gamma } => fastmath::exp_neg(gamma * (sq_norm + zn - 2.0 * *o)),
            Kernel::Laplacian { gamma } => fastmath::exp_neg(gamma * *o),
            Kernel::Sigmoid { gamma, coef0 } => fastmath::tanh(gamma * *o + coef0),
            Kernel::Cosine => cosine(*o, sq_norm, zn),
        };
    }
}

/// k(x, x) of the input with squared norm `sq_norm`.
#[inline(never)]
fn self_kernel(kernel: &Kernel, sq_norm: f32) -> f32 {
    match *kernel {
        Kernel::Rbf { .. } | Kernel::Laplacian { .. } => 1.0,
        Kernel::Linear => sq_norm,
        Kernel::Polynomial {
            gamma,
            degree,
            coef0,
        } => powi(gamma * sq_norm + coef0, degree),
        Kernel::Sigmoid { gamma, coef0 } => fastmath::tanh(gamma * sq_norm + coef0),
        Kernel::Cosine => {
            if sq_norm > 0.0 {
                1.0
            } else {
                0.0
            }
        }
    }
}

/// c'k_x (returned) and A'k_x (added into `y`) over the stored points
/// `start..m` (see the module docs: RBF tiles of four, else one point at a time).
/// Out of line, so that its frame is only on the stack when it runs.
#[inline(never)]
#[allow(unsafe_code)]
fn accumulate(
    job: &Job<'_>,
    input: &Input<'_>,
    sq_norm: f32,
    y: &mut [f32; MAX_COMPONENTS],
    start: usize,
) -> f32 {
    let (d, m, k) = (job.d, job.m, job.k);
    let kernel = &job.kernel;
    let (points, norms) = (job.section(Section::Points), job.section(Section::Norms));
    let (a, c) = (job.section(Section::A), job.section(Section::C));
    let standardized = !input.mean.is_empty();
    let laplacian = matches!(kernel, Kernel::Laplacian { .. });
    // RBF: kernel value 2^-w_i, w_i = gamma log2(e) (‖x‖² + ‖z_i‖² - 2 x'z_i).
    let (rbf, gl) = match *kernel {
        Kernel::Rbf { gamma } => (true, gamma * core::f32::consts::LOG2_E),
        _ => (false, 0.0),
    };
    let (w0, g1, g2) = (gl * sq_norm, gl, 2.0 * gl);
    let full0 = k >= GROUP;
    let mut y0 = [0.0f32; GROUP];
    let mut ck = 0.0f32;
    let mut p = start;
    while p < m {
        if rbf && p + TILE <= m {
            // SAFETY: the tile covers the points p..p + 4 <= m: their rows
            // (4·d floats from p·d) lie in `points` (m·d), their norms and c
            // (p..p + 4) in `norms` and `c` (m), and their rows of A (k floats
            // from (p + i)·k) in `a` (m·k); the group loads read columns
            // g..g + 4 with g + 4 <= k, the tail loop columns below k. `x` has d
            // floats, `mean`/`inv_std` d when standardised.
            unsafe {
                let z = points.as_ptr().add(p * d);
                let dots = if standardized {
                    dot4::<true>(
                        input.x.as_ptr(),
                        input.mean.as_ptr(),
                        input.inv_std.as_ptr(),
                        d,
                        z,
                    )
                } else {
                    dot4::<false>(input.x.as_ptr(), input.x.as_ptr(), input.x.as_ptr(), d, z)
                };
                let np = norms.as_ptr().add(p);
                let cp = c.as_ptr().add(p);
                let ap = a.as_ptr().add(p * k);
                for (i, &dot) in dots.iter().enumerate() {
                    let kv = fastmath::exp2_neg((w0 + g1 * *np.add(i)) - g2 * dot);
                    ck += kv * *cp.add(i);
                    let mut row = ap.add(i * k);
                    let mut g = 0;
                    if full0 {
                        let r = load4(&mut row);
                        y0[0] += kv * r[0];
                        y0[1] += kv * r[1];
                        y0[2] += kv * r[2];
                        y0[3] += kv * r[3];
                        g = GROUP;
                    }
                    while g < k {
                        if let Some(yl) = y.get_mut(g) {
                            *yl += kv * *row;
                        }
                        row = row.add(1);
                        g += 1;
                    }
                }
            }
            p += TILE;
        } else {
            let z = points.get(p * d..(p + 1) * d).unwrap_or(&[]);
            let mut v = [input.pre_one(z, laplacian)];
            map_values(kernel, sq_norm, &mut v, norms.get(p..p + 1).unwrap_or(&[]));
            let kv = v[0];
            ck += kv * c.get(p).copied().unwrap_or(0.0);
            let row = a.get(p * k..(p + 1) * k).unwrap_or(&[]);
            for (yl, &al) in y.iter_mut().zip(row) {
                *yl += kv * al;
            }
            p += 1;
        }
    }
    if full0 {
        for (yl, v) in y.iter_mut().zip(y0) {
            *yl += v;
        }
    }
    ck
}

/// c'k_x (returned) and A'k_x (added into `y`) of an RBF model with d <= W, for
/// the stored points 0..n.
///
/// The input (standardised, zero-padded to W) stays in registers; each point
/// costs W loads and multiply-adds for x'z (the padding multiplies the first
/// W - d floats of the next row by 0), one exponential, c'k, and four loads and
/// multiply-adds for the (at most 4) components in registers (for k < 4 the
/// four floats run into the next row of A and the extra sums are dropped).
/// Returns 0 and does nothing unless k <= 4 and W floats from the start of row
/// n - 1 of the points and 4 from row n - 1 of A are inside the model.
///
/// `w` is (gamma log2(e) ‖x‖², gamma log2(e), 2 gamma log2(e)).
#[inline(never)]
#[allow(unsafe_code)]
fn rbf_small<const W: usize>(
    job: &Job<'_>,
    xs: &[f32; W],
    w: (f32, f32, f32),
    n: usize,
    y: &mut [f32; MAX_COMPONENTS],
) -> f32 {
    let (d, k) = (job.d, job.k);
    let (points, norms) = (job.section(Section::Points), job.section(Section::Norms));
    let (a, c) = (job.section(Section::A), job.section(Section::C));
    let (w0, g1, g2) = w;
    let xs = *xs;
    if n == 0
        || k > GROUP
        || n > norms.len()
        || n > c.len()
        || (n - 1) * d + W > points.len()
        || (n - 1) * k + GROUP > a.len()
    {
        return 0.0;
    }
    let mut y0 = [0.0f32; GROUP];
    let mut ck = 0.0f32;
    let mut zp = points.as_ptr();
    let mut ap = a.as_ptr();
    let mut np = norms.as_ptr();
    let mut cp = c.as_ptr();
    // SAFETY: at point p < n: zp = points + p·d with p·d + W <= (n - 1)·d + W <=
    // points.len(), ap = a + p·k with p·k + 4 <= (n - 1)·k + 4 <= a.len(), np
    // and cp are norms + p and c + p with p < n <= their lengths (all checked
    // above).
    unsafe {
        for _ in 0..n {
            let mut dot = xs[0] * *zp;
            for (j, &xj) in xs.iter().enumerate().skip(1) {
                dot += xj * *zp.add(j);
            }
            let kv = fastmath::exp2_neg((w0 + g1 * *np) - g2 * dot);
            ck += kv * *cp;
            y0[0] += kv * *ap;
            y0[1] += kv * *ap.add(1);
            y0[2] += kv * *ap.add(2);
            y0[3] += kv * *ap.add(3);
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
    let (d, k) = (job.d, job.k);
    if out.as_ref().is_some_and(|o| o.len() < k) {
        return Err(Error::OutputLength);
    }
    if x.len() != d {
        return Err(Error::InputLength);
    }
    let input = Input {
        x,
        mean: job.section(Section::Mean),
        inv_std: job.section(Section::InvStd),
    };
    // ‖x'‖², x' for the first 8 features (kept in registers by the small RBF
    // path), and a probe that is NaN iff some x_j is not finite (x·0 is 0 for
    // finite x, NaN otherwise).
    let mut sq_norm = 0.0f32;
    let mut probe = 0.0f32;
    let mut xs = [0.0f32; 8];
    if input.mean.is_empty() {
        for (j, &xj) in x.iter().enumerate() {
            sq_norm += xj * xj;
            probe += xj * 0.0;
            if let Some(o) = xs.get_mut(j) {
                *o = xj;
            }
        }
    } else {
        for (j, ((&xj, &mj), &sj)) in x.iter().zip(input.mean).zip(input.inv_std).enumerate() {
            let v = (xj - mj) * sj;
            sq_norm += v * v;
            probe += xj * 0.0;
            if let Some(o) = xs.get_mut(j) {
                *o = v;
            }
        }
    }
    if probe.is_nan() {
        return Err(Error::NonFiniteInput);
    }
    let kernel = &job.kernel;
    let mut y = [0.0f32; MAX_COMPONENTS];
    let mut ck = 0.0f32;
    let mut start = 0;
    // RBF with d <= 8 and k <= 4: the input in registers (a specialisation for
    // 4 and for 8 features, chosen here once per call).
    if let Kernel::Rbf { gamma } = *kernel {
        if d <= 8 && k <= GROUP {
            let g = gamma * core::f32::consts::LOG2_E;
            let w = (g * sq_norm, g, 2.0 * g);
            // Points whose W floats from the row start stay inside the points,
            // and whose 4 floats from the start of their row of A inside A.
            let w_len = if d <= 4 { 4 } else { 8 };
            let rows = |len: usize, step: usize, need: usize| {
                len.checked_sub(need).map_or(0, |r| r / step.max(1) + 1)
            };
            let n = rows(job.m * d, d, w_len).min(rows(job.m * k, k, GROUP));
            ck = if w_len == 4 {
                let x4 = [xs[0], xs[1], xs[2], xs[3]];
                rbf_small::<4>(job, &x4, w, n, &mut y)
            } else {
                rbf_small::<8>(job, &xs, w, n, &mut y)
            };
            start = n;
        }
    }
    if start < job.m {
        ck += accumulate(job, &input, sq_norm, &mut y, start);
    }
    let y = y.get_mut(..k).unwrap_or(&mut []);
    let mut sum_sq = 0.0f32;
    probe = 0.0;
    for (yl, &bl) in y.iter_mut().zip(job.section(Section::B)) {
        *yl += bl;
        sum_sq += *yl * *yl;
        probe += *yl * 0.0;
    }
    let e = if score {
        self_kernel(kernel, sq_norm) - 2.0 * ck + job.s - sum_sq
    } else {
        0.0
    };
    if probe.is_nan() || !e.is_finite() {
        return Err(Error::NonFiniteResult);
    }
    if let Some(out) = out {
        for (o, v) in out.iter_mut().zip(y.iter()) {
            *o = *v;
        }
    }
    Ok(e)
}

/// Checks a batch of row-major vectors for `job` and returns the number of rows.
fn batch_rows(job: &Job<'_>, xs: &[f32], out_len: usize, per_row: usize) -> Result<usize, Error> {
    let rows = xs.len() / job.d;
    if !xs.len().is_multiple_of(job.d) {
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
    let rows = batch_rows(job, xs, out.len(), job.k)?;
    for (x, o) in xs.chunks_exact(job.d).zip(out.chunks_exact_mut(job.k)) {
        evaluate(job, x, Some(o), false)?;
    }
    Ok(rows)
}

/// Scores each row of `xs` into `scores` (see [`ModelRef::anomaly_score_batch`]).
pub(crate) fn score_batch(job: &Job<'_>, xs: &[f32], scores: &mut [f32]) -> Result<usize, Error> {
    let rows = batch_rows(job, xs, scores.len(), 1)?;
    for (x, s) in xs.chunks_exact(job.d).zip(scores.iter_mut()) {
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

    /// Every path (RBF registers for d <= 8 and k <= 4, RBF tiles, one point at
    /// a time) against an f64 evaluation, over sizes around the path limits,
    /// including m < 4 and k < 4 (whose register path reads into the next rows).
    #[test]
    fn every_path_matches_f64_around_its_limits() {
        let mut g = Lcg(7);
        for kernel in [
            Kernel::Rbf { gamma: 0.4 },
            Kernel::Laplacian { gamma: 0.3 },
            Kernel::Linear,
        ] {
            for d in 1..=10 {
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
