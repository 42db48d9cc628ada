//! The register passes over the stored points: c'k_x and A'k_x for every
//! kernel, d <= [`MAX_FAST_DIM`] and any k, with the sums in registers (the
//! linear and cosine models the fit folds into a d x k map, k + 1 points,
//! take them too: about d (k + 1) multiply-adds and no exponential).
//!
//! Each stored point is read as W = 8·ceil(d/8) floats in groups of 8
//! against x' staged (scaled for the kernel) with zeros where the read goes
//! past the point's own floats; [`accumulate_fast`] picks the variant once
//! per call:
//!
//! - register runs, d <= 8 and k <= 8: x' in 8 registers for the whole run;
//! - chunked runs, every other d <= 64: x' read from the stage chunk by
//!   chunk;
//! - the Laplacian reads exactly d floats per point (padding would add
//!   |0 - z_j|, not 0): register runs for d = 8 only, otherwise floor(d/8)
//!   chunks and then d mod 8 single floats, all forwards;
//! - 4 component sums for k <= 4, 8 for k <= 8; for k > 8 a second group of
//!   8 (components 8..16, or the 8 ending at the row's end) kept in memory.
//!
//! No read leaves its section: near the start of a section a row is read
//! forwards (its floats, then the next row's, which meet zeros in x' or
//! dropped sums), near the end backwards (the W floats ending at the row's
//! end, the earlier floats meeting zeros); [`segments`] splits the points
//! into such runs. Where a model is too small for either direction, no pass
//! applies and the caller's general loop runs.
//!
//! The run loop is [`crate::rowloop`]: assembly on hard-float Arm, the same
//! operations in Rust elsewhere.

use core::mem::MaybeUninit;

use crate::kernel::KernelId;
use crate::model::{ModelRef, Section, MAX_COMPONENTS};
use crate::project::keep_rolled;
use crate::rowloop::{run_rows, RowPtrs, RunState};

/// The largest d of the chunked passes.
pub(crate) const MAX_FAST_DIM: usize = 64;
/// Floats x' is staged in: W = 8·ceil(d/8) <= 64 for one run.
pub(crate) const STAGE: usize = 64;

const POLYNOMIAL: u32 = KernelId::Polynomial as u32;
const RBF: u32 = KernelId::Rbf as u32;
const SIGMOID: u32 = KernelId::Sigmoid as u32;
const LAPLACIAN: u32 = KernelId::Laplacian as u32;
const LINEAR: u32 = KernelId::Linear as u32;
const COSINE: u32 = KernelId::Cosine as u32;

/// One run of stored points `start..end` read in one direction per section.
#[derive(Clone, Copy)]
struct Run {
    start: usize,
    end: usize,
    /// Points read backwards: the W floats ending at the row's end.
    z_back: bool,
    /// A rows read backwards: the `width` floats ending at the row's end.
    a_back: bool,
}

/// The rows of a section of `m` rows of `len` floats that a read of `width`
/// floats can take forwards (from the row's start: rows `..forward`) and
/// the first row it can take backwards (ending at the row's end: rows
/// `backward..`).
fn directions(m: usize, len: usize, width: usize) -> (usize, usize) {
    let total = m.saturating_mul(len);
    let forward = match (total.checked_sub(width), len) {
        (Some(spare), 1..) => (spare / len + 1).min(m),
        _ => 0,
    };
    let backward = width.saturating_sub(len).div_ceil(len.max(1));
    (forward, backward)
}

/// The split of the m points into at most three [`Run`]s (an empty one has
/// start = end), or `None` when some row can be read in neither direction
/// (a model of very few floats).
fn segments(m: usize, z: (usize, usize), a: (usize, usize)) -> Option<[Run; 3]> {
    let (zf, zb) = directions(m, z.0, z.1);
    let (af, ab) = directions(m, a.0, a.1);
    if zb > zf || ab > af {
        return None;
    }
    let (lo, hi) = (zf.min(af), zf.max(af));
    let run = |start: usize, end: usize| Run {
        start,
        end,
        z_back: start >= zf,
        a_back: start >= af,
    };
    Some([run(0, lo), run(lo, hi), run(hi, m)])
}

/// Adds a run's sums into `y`: sum `l` is component `first + l` when that is
/// at least `from` and below `k` (the others were read past the outputs this
/// run accounts for).
fn flush(y: &mut [f32; MAX_COMPONENTS], sums: &[f32; 8], first: isize, from: usize, k: usize) {
    let lo = (from as isize - first).max(0) as usize;
    let hi = (k as isize - first).clamp(0, 8) as usize;
    for l in lo..hi {
        keep_rolled();
        if let (Some(o), Some(&v)) = (y.get_mut((first + l as isize) as usize), sums.get(l)) {
            *o += v;
        }
    }
}

/// The input vector and the model's standardisation (x'_j = (x_j - mean_j)
/// · (1/std_j), the same operations as the projection's first pass).
#[derive(Clone, Copy)]
pub(crate) struct Input<'x> {
    /// The caller's x (length d).
    pub(crate) raw: &'x [f32],
    /// The model's (mean, 1/std), when it standardises (length d each).
    pub(crate) standardization: Option<(&'x [f32], &'x [f32])>,
}

/// Stages x' scaled by `scale` in `stage` for one run, writing every float
/// the run reads: W = 8·ceil(d/8) floats, x' then W - d zeros for a forward
/// run (each point read from its row's start), W - d zeros then x' for a
/// backward run (the W floats ending at the row's end). `None` (nothing
/// written) when W floats do not fit (d > [`MAX_FAST_DIM`]).
#[allow(unsafe_code)]
fn stage_input(
    x: &Input<'_>,
    scale: f32,
    back: bool,
    stage: &mut MaybeUninit<[f32; STAGE]>,
) -> Option<()> {
    let d = x.raw.len();
    let pad = d.div_ceil(8) * 8 - d;
    // Every write below is at a position < pad + d <= STAGE (checked here),
    // inside the array.
    if pad + d > STAGE {
        return None;
    }
    let p = stage.as_mut_ptr().cast::<f32>();
    let (zeros, start) = if back { (0..pad, pad) } else { (d..d + pad, 0) };
    for pos in zeros {
        keep_rolled();
        // SAFETY: pos < pad + d <= STAGE.
        unsafe { p.add(pos).write(0.0) };
    }
    let xp = p.wrapping_add(start);
    match x.standardization {
        Some((mean, inv_std)) => {
            for (j, ((&xj, &mj), &sj)) in x.raw.iter().zip(mean).zip(inv_std).enumerate() {
                keep_rolled();
                // SAFETY: j < d, so start + j < pad + d <= STAGE.
                unsafe { xp.add(j).write((xj - mj) * sj * scale) };
            }
        }
        None => {
            for (j, &xj) in x.raw.iter().enumerate() {
                keep_rolled();
                // SAFETY: j < d, so start + j < pad + d <= STAGE.
                unsafe { xp.add(j).write(xj * scale) };
            }
        }
    }
    Some(())
}

/// Sets the kernel's numbers for one call into `st` and returns the factor
/// x' is scaled by.
fn set_kernel(st: &mut RunState, model: &ModelRef<'_>, kernel: u32, sq_norm: f32) -> f32 {
    let r = model.as_raw();
    let g = r.gamma * core::f32::consts::LOG2_E;
    st.degree = r.degree;
    match kernel {
        RBF => {
            st.base = g * sq_norm;
            st.norm_scale = g;
            -2.0 * g
        }
        LAPLACIAN => {
            st.post_scale = g;
            1.0
        }
        LINEAR => 1.0,
        COSINE => {
            st.post_scale = crate::fastmath::sqrt(sq_norm);
            1.0
        }
        _ => {
            st.base = r.coef0;
            st.post_scale = 2.0 * core::f32::consts::LOG2_E;
            r.gamma
        }
    }
}

/// The points one block of a run sums at most for the polynomial kernel
/// ([`accumulate_fast`]), whose values are unbounded and grow like a power. Each block's f32
/// sums start from 0 and are then added into y and c'k, so their rounding
/// grows with the block rather than with m: the anomaly score, a small
/// difference of large terms for these kernels, keeps its accuracy
/// (the moons' polynomial score: 1.2e-4 of its size summed in one block of
/// 128 points, 3.6e-5 in two). Each further block costs about 150
/// instructions on a Cortex-M4F, so the other kernels sum in one: rbf,
/// Laplacian, sigmoid and cosine values lie in [-1, 1], and a linear model
/// is usually a folded map of k + 1 points.
const UNBOUNDED_BLOCK: usize = 64;

/// The model's sections the runs read.
struct Sections {
    points: *const f32,
    norms: *const f32,
    c: *const f32,
    a: *const f32,
}

/// The loop variant of a call: chunked or register reads, the number of
/// sums, the kernel.
#[derive(Clone, Copy)]
struct Variant {
    chunked: bool,
    kr: usize,
    kernel: u32,
}

/// Sums the points `rows.0..rows.1` of a run (read backwards when `z_back`,
/// A read from `first` floats into each row) from 0, adds them into
/// `y[..k]` and returns their c'k.
///
/// # Safety
/// `sections` are the model's (m·d, m, m and m·k floats, the invariant of
/// `ModelRef`), `st` describes the model and holds the staged x' for the
/// direction `z_back`, and the rows lie in a [`Run`] of [`segments`] for
/// widths (d, W) and (k, min(kr, 8)) with `first` its A offset (or, when
/// every read ends inside its row, anywhere in 0..m with `first` 0 and
/// `z_back` false): then each row's point read (W floats at the row's
/// start, or ending at its end; the Laplacian's W is d) and A read
/// (min(kr, 8) floats at row + first; for k > 8 also 8 floats at
/// row + k - 8, inside the row) lie in their sections.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn sum_points(
    st: &mut RunState,
    sections: &Sections,
    variant: Variant,
    rows: (usize, usize),
    z_back: bool,
    first: isize,
    y: &mut [f32; MAX_COMPONENTS],
) -> f32 {
    let (d, k) = (st.d_bytes as usize / 4, st.k_bytes as usize / 4);
    let z_off = if z_back { st.tail as isize / 4 } else { 0 };
    st.sums = [-0.0; 8];
    st.sums2 = [-0.0; 8];
    st.ck = 0.0;
    // SAFETY: the caller's contract.
    unsafe {
        let ptrs = RowPtrs {
            z: sections.points.add(rows.0 * d).offset(z_off),
            norms: sections.norms.add(rows.0),
            c: sections.c.add(rows.0),
            a: sections.a.add(rows.0 * k).offset(first),
            n: rows.1 - rows.0,
        };
        let kernel = variant.kernel;
        match (variant.chunked, variant.kr) {
            (false, 4) => run_rows::<false, 4>(st, ptrs, kernel),
            (false, _) => run_rows::<false, 8>(st, ptrs, kernel),
            (true, 4) => run_rows::<true, 4>(st, ptrs, kernel),
            (true, 8) => run_rows::<true, 8>(st, ptrs, kernel),
            (true, _) => run_rows::<true, 16>(st, ptrs, kernel),
        }
    }
    flush(y, &st.sums, first, 0, k);
    if k > 8 {
        flush(y, &st.sums2, k.saturating_sub(8) as isize, 8, k);
    }
    st.ck
}

/// c'k_x (returned) and A'k_x (added into `y[..k]`) by a register pass, for
/// the input `x` (length d); `None` (nothing added) when no pass applies:
/// d > [`MAX_FAST_DIM`], or a model too small to read in either direction.
///
/// `kernel` is the model's kernel id (a constant in the per-kernel entry
/// points, so only its code is kept); `stage` is the caller's scratch for
/// x'.
///
/// The passes: d <= 8 and k <= 8, register runs (x' in 8 registers);
/// otherwise chunked runs. Sums: 4 for k <= 4, 8 for k <= 8, and for k > 8
/// a second group of 8 (components 8..16, or the 8 ending at the row's end).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn accumulate_fast(
    model: &ModelRef<'_>,
    x: &Input<'_>,
    sq_norm: f32,
    y: &mut [f32; MAX_COMPONENTS],
    kernel: u32,
    stage: &mut MaybeUninit<[f32; STAGE]>,
) -> Option<f32> {
    let (d, m, k) = model.dims();
    if !matches!(
        kernel,
        LINEAR | POLYNOMIAL | RBF | LAPLACIAN | SIGMOID | COSINE
    ) || x.raw.len() != d
        || d > MAX_FAST_DIM
    {
        return None;
    }
    let l1 = kernel == LAPLACIAN;
    let chunked = if l1 { d != 8 || k > 8 } else { d > 8 || k > 8 };
    let kr = match k {
        0..=4 => 4,
        5..=8 => 8,
        _ => 16,
    };
    // The floats read per point: W = 8·ceil(d/8), or d for the Laplacian.
    let width = if l1 { d } else { 8 * d.div_ceil(8) };
    let runs = if width <= d && kr.min(8) <= k {
        // Every row's reads end inside it (d a multiple of 8, or the
        // Laplacian; and k = 4, k = 8 or k > 8): one forward run, no split
        // to work out.
        let whole = Run {
            start: 0,
            end: m,
            z_back: false,
            a_back: false,
        };
        let empty = Run {
            start: m,
            end: m,
            ..whole
        };
        [whole, empty, empty]
    } else {
        segments(m, (d, width), (k, kr.min(8)))?
    };
    let (points, a) = (model.section(Section::Points), model.section(Section::A));
    let (norms, c) = (model.section(Section::Norms), model.section(Section::C));
    let mut st = RunState {
        base: 0.0,
        norm_scale: 0.0,
        sums: [-0.0; 8],
        ck: 0.0,
        x: core::ptr::null(),
        full: if l1 { d / 8 } else { d.div_ceil(8) } as u32,
        tail: if l1 { 0 } else { 4 * (d as i32 - width as i32) },
        d_bytes: (4 * d) as u32,
        k_bytes: (4 * k) as u32,
        degree: 0,
        post_scale: 0.0,
        group2: (4 * k.saturating_sub(8)) as u32,
        sums2: [-0.0; 8],
        rest: if l1 { d % 8 } else { 0 } as u32,
    };
    let scale = set_kernel(&mut st, model, kernel, sq_norm);
    let sections = Sections {
        points: points.as_ptr(),
        norms: norms.as_ptr(),
        c: c.as_ptr(),
        a: a.as_ptr(),
    };
    let variant = Variant {
        chunked,
        kr,
        kernel,
    };
    let block = if kernel == POLYNOMIAL {
        UNBOUNDED_BLOCK
    } else {
        usize::MAX
    };
    let mut ck = 0.0f32;
    for run in runs.iter().filter(|r| r.start < r.end) {
        stage_input(x, scale, run.z_back, stage)?;
        st.x = stage.as_ptr().cast::<f32>();
        // The A read: forwards from the row's start, or (a backward run of
        // k < kr) the kr floats ending at the row's end.
        let first = if run.a_back {
            k as isize - kr as isize
        } else {
            0
        };
        // Blocks of at most `block` points, each summed from 0 and then
        // added into y and c'k (see UNBOUNDED_BLOCK).
        let mut start = run.start;
        while start < run.end {
            let end = run.end.min(start.saturating_add(block));
            // SAFETY: `start..end` lies in `run`, which comes from
            // `segments` (or is the whole model when every read ends in its
            // row), with `first` its A offset: see `sum_points`.
            ck += unsafe {
                sum_points(
                    &mut st,
                    &sections,
                    variant,
                    (start, end),
                    run.z_back,
                    first,
                    y,
                )
            };
            start = end;
        }
    }
    Some(ck)
}
