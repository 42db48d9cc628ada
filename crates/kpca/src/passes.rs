//! The register passes over the stored points: c'k_x and A'k_x for every
//! kernel but linear and cosine, d <= [`STAGE`] and any k, with the sums in
//! registers.
//!
//! A pass is chosen once per call from the model's shape
//! ([`accumulate_fast`]); there are two kinds:
//!
//! - register passes, d <= 8: x' (scaled for the kernel) is held in 4 or 8
//!   registers, zero-padded; every point is one 4- or 8-float load of its
//!   row (reading into the neighbouring row, whose floats meet the zeros),
//!   the products, the kernel value, and one load of its A row with the
//!   component sums (4, 8, or 8 in registers and the rest in memory);
//! - chunked passes, 8 <= d <= [`STAGE`]: x' is staged in memory and each
//!   point is read in chunks of 8, two loads and 8 multiply-adds per chunk;
//!   a last partial chunk is read as the 8 floats ending at the row's end,
//!   against a staged chunk whose first floats are zeros.
//!
//! No read leaves its section: near the start of a section a row is read
//! forwards (its floats and the next rows'), near the end backwards (the 8
//! floats ending at the row's end, the earlier floats meeting zeros in x' or
//! dropped sums); [`Segments`] splits the points into such runs. Where a
//! model is too small for either direction to fit, no pass applies and the
//! caller's general loop runs. The Laplacian kernel's |x'_j - z_j| does not
//! vanish at a zero, so its register passes multiply each term by a 0/1 mask,
//! and its chunked passes take the partial chunk one float at a time.
//!
//! The loads are [`crate::loads`] (one instruction each on hard-float Arm);
//! the arithmetic is the same Rust on every target.

use crate::fastmath::{exp2_neg_with, tanh_from, EXP2_BLOCK};
use crate::kernel::{powi, KernelId};
use crate::loads::{load4, load8};
use crate::model::{ModelRef, Section, MAX_COMPONENTS};
use crate::project::keep_rolled;

/// The largest d of the chunked passes: x' is staged in this many floats.
pub(crate) const STAGE: usize = 32;

const POLYNOMIAL: u32 = KernelId::Polynomial as u32;
const RBF: u32 = KernelId::Rbf as u32;
const SIGMOID: u32 = KernelId::Sigmoid as u32;

/// The kernel's numbers for one call.
#[derive(Clone, Copy)]
struct Scalars {
    /// Where each point's sum starts: gamma log2(e) ‖x'‖² (rbf), coef0
    /// (polynomial, sigmoid), 0 (laplacian).
    base: f32,
    /// Multiplies ‖z‖² into the sum (rbf: gamma log2(e)).
    norm_scale: f32,
    /// Multiplies the sum before the exponential: gamma log2(e) (laplacian),
    /// 2 log2(e) on |u| (sigmoid).
    post_scale: f32,
    /// The polynomial's degree.
    degree: u32,
    /// The kernel id (rbf, polynomial or sigmoid).
    kernel: u32,
}

/// The stored sections as pointers, with their row lengths.
#[derive(Clone, Copy)]
struct Sections {
    points: *const f32,
    norms: *const f32,
    a: *const f32,
    c: *const f32,
    d: usize,
    k: usize,
}

/// One run of stored points `start..end` read in one direction per section.
#[derive(Clone, Copy)]
struct Run {
    start: usize,
    end: usize,
    /// Points read backwards: the `z_width` floats ending at the row's end.
    z_back: bool,
    /// A rows read backwards: the `a_width` floats ending at the row's end.
    a_back: bool,
}

/// The rows of a section of `m` rows of `len` floats that a read of `width`
/// floats can take forwards (from the row's start: rows `..forward`) and
/// the first row it can take backwards (ending at the row's end:
/// rows `backward..`).
fn directions(m: usize, len: usize, width: usize) -> (usize, usize) {
    let total = m * len;
    let forward = if total >= width {
        ((total - width) / len + 1).min(m)
    } else {
        0
    };
    let backward = width.saturating_sub(len).div_ceil(len);
    (forward, backward)
}

/// The split of the m points into at most three [`Run`]s, or `None` when
/// some row can be read in neither direction (a model of very few floats).
struct Segments {
    runs: [Run; 3],
    count: usize,
}

impl Segments {
    fn new(m: usize, z: (usize, usize), a: (usize, usize)) -> Option<Segments> {
        let (zf, zb) = directions(m, z.0, z.1);
        let (af, ab) = directions(m, a.0, a.1);
        if zb > zf || ab > af {
            return None;
        }
        let (lo, hi) = (zf.min(af), zf.max(af));
        let mut runs = [Run {
            start: 0,
            end: 0,
            z_back: false,
            a_back: false,
        }; 3];
        let mut count = 0;
        for (start, end) in [(0, lo), (lo, hi), (hi, m)] {
            if start < end {
                runs[count] = Run {
                    start,
                    end,
                    z_back: start >= zf,
                    a_back: start >= af,
                };
                count += 1;
            }
        }
        Some(Segments { runs, count })
    }

    fn runs(&self) -> &[Run] {
        self.runs.get(..self.count).unwrap_or(&[])
    }
}

/// `N` floats at `p` (N = 4 or 8; one load on hard-float Arm).
///
/// # Safety
/// `p` aligned and valid for `N` reads.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn load_n<const N: usize>(p: *const f32) -> [f32; N] {
    let mut out = [0.0f32; N];
    // SAFETY: the caller's contract, for N floats.
    unsafe {
        if N == 4 {
            out.iter_mut().zip(load4(p)).for_each(|(o, v)| *o = v);
        } else {
            out.iter_mut().zip(load8(p)).for_each(|(o, v)| *o = v);
        }
    }
    out
}

/// The kernel value from a point's sum (see [`Scalars`]).
#[inline(always)]
fn value(s: &Scalars, sum: f32) -> f32 {
    match s.kernel {
        RBF => exp2_neg_with(sum, EXP2_BLOCK),
        POLYNOMIAL => powi(sum, s.degree),
        _ => tanh_from(sum, exp2_neg_with(s.post_scale * libm::fabsf(sum), EXP2_BLOCK)),
    }
}

/// Adds a run's register sums into `y[..k]`: sum `l` is component `l`, or
/// `l - (width - k)` when the run read A backwards.
fn flush(y: &mut [f32; MAX_COMPONENTS], sums: &[f32], k: usize, back: bool) {
    let shift = if back { sums.len().saturating_sub(k) } else { 0 };
    for (l, &v) in sums.iter().enumerate().skip(shift) {
        keep_rolled();
        if let Some(o) = y.get_mut(l - shift).filter(|_| l - shift < k) {
            *o += v;
        }
    }
}

/// The register pass over one run: `XR` floats of x' in `h` (with the 0/1
/// `mask` for the Laplacian kernel), `KR` component sums (8 in registers and
/// the rest in `y[8..k]` when KR = 16). Returns c'k over the run.
///
/// # Safety
/// `sec` describes the model's sections; `run` comes from [`Segments::new`]
/// for widths (d, XR) and (k, min(KR, 8)), so every read lies in its section.
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn register_run<const XR: usize, const KR: usize>(
    sec: &Sections,
    s: &Scalars,
    h: &[f32; XR],
    run: Run,
    y: &mut [f32; MAX_COMPONENTS],
) -> f32 {
    let (d, k) = (sec.d, sec.k);
    let ka = KR.min(8);
    // SAFETY (all pointer arithmetic below): row i of the run has its point
    // read at points + i·d (+ d - XR backwards, >= points for rows at or past
    // the backward limit), XR floats inside m·d by the forward limit; A
    // likewise with k and ka; norms[i] and c[i] with i < m.
    unsafe {
        let (mut zp, mut ap) = (sec.points.add(run.start * d), sec.a.add(run.start * k));
        if run.z_back {
            zp = zp.add(d).sub(XR);
        }
        if run.a_back {
            ap = ap.add(k).sub(ka);
        }
        let (mut np, mut cp) = (sec.norms.add(run.start), sec.c.add(run.start));
        let end = sec.norms.add(run.end);
        let mut sums = [-0.0f32; 8];
        let mut ck = 0.0f32;
        while np != end {
            keep_rolled();
            let z = load_n::<XR>(zp);
            let mut sum = s.base + s.norm_scale * *np;
            for j in 0..XR {
                sum += h[j] * z[j];
            }
            let kv = value(s, sum);
            ck += kv * *cp;
            if KR == 4 {
                let a = load4(ap);
                for l in 0..4 {
                    sums[l] += kv * a[l];
                }
            } else {
                let a = load8(ap);
                for l in 0..8 {
                    sums[l] += kv * a[l];
                }
                if KR > 8 {
                    for l in 8..k {
                        keep_rolled();
                        y[l] += kv * *ap.add(l);
                    }
                }
            }
            zp = zp.add(d);
            ap = ap.add(k);
            np = np.add(1);
            cp = cp.add(1);
        }
        flush(y, &sums[..ka], k, run.a_back);
        ck
    }
}

/// The chunked pass over one run (8 <= d <= [`STAGE`]): x' staged in
/// `stage` as described in [`stage_chunks`]; sums as in [`register_run`].
///
/// # Safety
/// As [`register_run`], for widths (d, 8) (every row is read forwards in
/// chunks inside the row) and (k, min(KR, 8)); `stage` holds 8·ceil(d/8)
/// floats.
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn chunked_run<const KR: usize>(
    sec: &Sections,
    s: &Scalars,
    stage: &[f32; STAGE],
    run: Run,
    y: &mut [f32; MAX_COMPONENTS],
) -> f32 {
    let (d, k) = (sec.d, sec.k);
    let ka = KR.min(8);
    let (full, rest) = (d / 8, d % 8);
    // SAFETY (all pointer arithmetic below): as in `register_run`; the chunk
    // reads of a row are its floats 8j..8j+8 (j < d/8) and, when d % 8 > 0,
    // d-8..d, all inside the row (d >= 8), and stage[..8·ceil(d/8)].
    unsafe {
        let mut zp = sec.points.add(run.start * d);
        let mut ap = sec.a.add(run.start * k);
        if run.a_back {
            ap = ap.add(k).sub(ka);
        }
        let (mut np, mut cp) = (sec.norms.add(run.start), sec.c.add(run.start));
        let end = sec.norms.add(run.end);
        let sp = stage.as_ptr();
        let mut sums = [-0.0f32; 8];
        let mut ck = 0.0f32;
        while np != end {
            keep_rolled();
            let mut sum = s.base + s.norm_scale * *np;
            let (mut xq, mut zq) = (sp, zp);
            for _ in 0..full {
                keep_rolled();
                let (x, z) = (load8(xq), load8(zq));
                for j in 0..8 {
                    sum += x[j] * z[j];
                }
                xq = xq.add(8);
                zq = zq.add(8);
            }
            if rest > 0 {
                let (x, z) = (load8(xq), load8(zq.add(rest).sub(8)));
                for j in 0..8 {
                    sum += x[j] * z[j];
                }
            }
            let kv = value(s, sum);
            ck += kv * *cp;
            if KR == 4 {
                let a = load4(ap);
                for l in 0..4 {
                    sums[l] += kv * a[l];
                }
            } else {
                let a = load8(ap);
                for l in 0..8 {
                    sums[l] += kv * a[l];
                }
                if KR > 8 {
                    for l in 8..k {
                        keep_rolled();
                        y[l] += kv * *ap.add(l);
                    }
                }
            }
            zp = zp.add(d);
            ap = ap.add(k);
            np = np.add(1);
            cp = cp.add(1);
        }
        flush(y, &sums[..ka], k, run.a_back);
        ck
    }
}

/// Stages x' (scaled by `scale`) for the chunked passes: chunks of 8
/// features, then, when d % 8 = r > 0, a chunk of 8 - r zeros and the last r
/// features (read against the 8 floats ending at a row's end).
fn stage_chunks(x: &Input<'_>, scale: f32, stage: &mut [f32; STAGE]) {
    let d = x.raw.len();
    let (full, rest) = (d / 8 * 8, d % 8);
    for (j, o) in stage.iter_mut().take(full).enumerate() {
        keep_rolled();
        *o = x.get(j) * scale;
    }
    if rest > 0 {
        let tail = stage.iter_mut().skip(full);
        for (j, o) in tail.take(8).enumerate() {
            keep_rolled();
            *o = match (j + rest).checked_sub(8) {
                Some(i) => x.get(full + i) * scale,
                None => 0.0,
            };
        }
    }
}

/// The input vector with the model's standardisation, read one feature at a
/// time as x'_j = (x_j - mean_j) · (1/std_j) (the same operations as the
/// projection's first pass), or x_j.
#[derive(Clone, Copy)]
pub(crate) struct Input<'x> {
    /// The caller's x (length d).
    pub(crate) raw: &'x [f32],
    /// The model's (mean, 1/std), when it standardises (length d each).
    pub(crate) standardization: Option<(&'x [f32], &'x [f32])>,
}

impl Input<'_> {
    /// x'_j (0 past the end).
    #[inline(always)]
    fn get(&self, j: usize) -> f32 {
        let v = self.raw.get(j).copied().unwrap_or(0.0);
        match self.standardization {
            Some((mean, inv_std)) => {
                (v - mean.get(j).copied().unwrap_or(0.0)) * inv_std.get(j).copied().unwrap_or(0.0)
            }
            None => v,
        }
    }
}

/// x' (scaled) in `XR` floats for a register run: forwards x' then zeros,
/// backwards zeros then x'; the Laplacian's mask has 1 where x' is.
fn register_input<const XR: usize>(x: &Input<'_>, scale: f32, back: bool) -> [f32; XR] {
    let mut h = [0.0f32; XR];
    let d = x.raw.len();
    let off = if back { XR.saturating_sub(d) } else { 0 };
    for (j, hj) in h.iter_mut().skip(off).take(d).enumerate() {
        keep_rolled();
        *hj = x.get(j) * scale;
    }
    h
}

/// The kernel's [`Scalars`] and the factor x' is scaled by.
fn scalars(model: &ModelRef<'_>, sq_norm: f32) -> (Scalars, f32) {
    let r = model.as_raw();
    let g = r.gamma * core::f32::consts::LOG2_E;
    let mut s = Scalars {
        base: r.coef0,
        norm_scale: 0.0,
        post_scale: 2.0 * core::f32::consts::LOG2_E,
        degree: r.degree,
        kernel: r.kernel,
    };
    let scale = match r.kernel {
        RBF => {
            s.base = g * sq_norm;
            s.norm_scale = g;
            -2.0 * g
        }
        _ => r.gamma,
    };
    (s, scale)
}

/// c'k_x (returned) and A'k_x (added into `y[..k]`) by a register pass, for
/// the input `x` (length d); `None` (nothing added) when no pass applies:
/// the linear, cosine and Laplacian kernels, d > [`STAGE`], d < 8 with
/// k > 4, or a model too small to read in either direction.
///
/// The passes: d <= 8 and k <= 4, [`register_run`] (x' in 8 registers, 4
/// sums); 8 < d <= [`STAGE`] and k <= 4, [`chunked_run`] with 4 sums; d >= 8
/// and k > 4, [`chunked_run`] with 8 sums in registers and the rest in `y`.
#[inline(never)]
#[allow(unsafe_code)]
pub(crate) fn accumulate_fast(
    model: &ModelRef<'_>,
    x: &Input<'_>,
    sq_norm: f32,
    y: &mut [f32; MAX_COMPONENTS],
) -> Option<f32> {
    let (d, m, k) = model.dims();
    let kernel = model.as_raw().kernel;
    let register = d <= 8 && k <= 4;
    if !matches!(kernel, RBF | POLYNOMIAL | SIGMOID)
        || x.raw.len() != d
        || d > STAGE
        || (d < 8 && k > 4)
    {
        return None;
    }
    let sec = Sections {
        points: model.section(Section::Points).as_ptr(),
        norms: model.section(Section::Norms).as_ptr(),
        a: model.section(Section::A).as_ptr(),
        c: model.section(Section::C).as_ptr(),
        d,
        k,
    };
    let (s, scale) = scalars(model, sq_norm);
    let segs = Segments::new(m, (d, 8), (k, if k <= 4 { 4 } else { 8 }))?;
    let mut ck = 0.0f32;
    let mut stage = [0.0f32; STAGE];
    if !register {
        stage_chunks(x, scale, &mut stage);
    }
    for &run in segs.runs() {
        // SAFETY: `sec` is the model's sections (lengths by the invariant of
        // `ModelRef`), `run` from `Segments::new` for these widths (points
        // read 8 floats at a time: forwards or backwards for d <= 8, inside
        // each row for d >= 8, where every row reads forwards).
        ck += unsafe {
            if register {
                let h = register_input::<8>(x, scale, run.z_back);
                register_run::<8, 4>(&sec, &s, &h, run, y)
            } else if k <= 4 {
                chunked_run::<4>(&sec, &s, &stage, run, y)
            } else {
                chunked_run::<16>(&sec, &s, &stage, run, y)
            }
        };
    }
    Some(ck)
}
