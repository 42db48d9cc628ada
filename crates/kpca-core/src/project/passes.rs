//! The register passes over the stored points: c'k_x and A'k_x for every
//! kernel, d <= [`MAX_FAST_DIM`] and any k, with the sums in registers (the
//! linear and cosine models the fit folds into a d x k map, k + 1 points,
//! take them too: about d (k + 1) multiply-adds and no exponential).
//!
//! x' is staged once per call (scaled for the kernel) as [`stage_layout`]
//! says; [`accumulate_fast`] picks the variant:
//!
//! - register runs, d <= 8 and k <= 8: x' right-aligned in 8 registers for
//!   the whole run, each stored point read as exactly its d floats;
//! - chunked runs, every other d <= 64: each stored point read as W =
//!   8·ceil(d/8) floats in groups of 8 against x' staged with zeros where
//!   the read goes past the point's own floats, x' read from the stage
//!   chunk by chunk; on hard-float Arm, those of d = 9..16 and k <= 4 run
//!   wide (x' in 16 registers for the whole run, `project/rowloop/asm.rs`), the same
//!   operations;
//! - the Laplacian reads exactly d floats per point (padding would add
//!   |0 - z_j|, not 0): register runs for every d <= 8 (wide for d = 16),
//!   otherwise floor(d/8) chunks and then d mod 8 single floats, all
//!   forwards;
//! - 4 component sums for k <= 4, 8 for k <= 8; for k > 8 a second group of
//!   8 (components 8..16, or the 8 ending at the row's end) kept in memory.
//!
//! No read leaves its section: near the start of a section a row of a
//! chunked run is read forwards (its floats, then the next row's, which
//! meet zeros in x' or dropped sums), near the end backwards (the W floats
//! ending at the row's end, the earlier floats meeting zeros); A rows
//! likewise; [`split_row`] finds where each
//! section turns from one to the other, and a model whose reads all end
//! inside their rows is one forward run. Where a model is too small for
//! either direction, no pass applies and the caller's general loop runs.
//!
//! The component sums and c'k live in the call's [`RunState`], and each run
//! adds into them in place, except the polynomial's blocks and runs whose A
//! rows are read backwards ([`sum_points_apart`]).
//!
//! The run loop is [`super::rowloop`]: assembly on hard-float Arm, the same
//! operations in Rust elsewhere.

use core::mem::MaybeUninit;

use super::rowloop::{run_rows, RowPtrs, RunState};
use crate::codegen::{keep_rolled, ANY_KERNEL};
use crate::kernel::KernelId;
use crate::model::{ModelRef, Section, MAX_COMPONENTS};

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

/// The first row of a section of `m` rows of `len` floats that a read of
/// `width` floats (> `len`) takes backwards (ending at the row's end): the
/// rows before it are read forwards (from the row's start). `None` when
/// some row can be read in neither direction (a section of very few
/// floats): the last forward row must not come before the first row a
/// backward read fits.
fn split_row(m: usize, len: usize, width: usize) -> Option<usize> {
    let total = m.saturating_mul(len);
    let forward = match (total.checked_sub(width), len) {
        (Some(spare), 1..) => (spare / len + 1).min(m),
        _ => 0,
    };
    let backward = width.saturating_sub(len).div_ceil(len.max(1));
    (backward <= forward).then_some(forward)
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

/// Whether the passes take a model of `kernel` and input dimension `d` (the
/// caller then stages x' for them in a [`STAGE`]-float scratch).
#[inline(always)]
pub(crate) fn takes(kernel: u32, d: usize) -> bool {
    d <= MAX_FAST_DIM
        && matches!(
            kernel,
            LINEAR | POLYNOMIAL | RBF | LAPLACIAN | SIGMOID | COSINE
        )
}

/// The floats each point read covers: W = 8·ceil(d/8), or d for the
/// Laplacian (whose padding would add |0 - z_j|, not 0).
#[inline(always)]
pub(crate) fn read_width(kernel: u32, d: usize) -> usize {
    if kernel == LAPLACIAN {
        d
    } else {
        8 * d.div_ceil(8)
    }
}

/// Whether a model of input dimension d and k components takes
/// register runs (x' in 8 registers for the whole run; each point read as
/// exactly its d floats): d <= 8 and k <= 8.
#[inline(always)]
fn register_runs(d: usize, k: usize) -> bool {
    k <= 8 && d <= 8
}

/// How the passes run a model and want x' staged.
#[derive(Clone, Copy)]
pub(crate) struct Layout {
    /// Register runs ([`register_runs`]), else chunked runs.
    pub(crate) register: bool,
    /// x'_j goes at `offset` + j, zeros everywhere else in the `width`
    /// floats: right-aligned in 8 floats for register runs, from 0 for
    /// chunked runs.
    pub(crate) offset: usize,
    /// W ([`read_width`]).
    pub(crate) width: usize,
}

impl Layout {
    /// The floats each point read covers: W, or exactly d for register runs.
    #[inline(always)]
    pub(crate) fn point_width(&self, d: usize) -> usize {
        if self.register {
            d
        } else {
            self.width
        }
    }
}

/// The component sums a run keeps for k components: 4 for k <= 4, 8 for
/// k <= 8, 16 (8 and a second group of 8) above.
#[inline(always)]
pub(crate) fn sum_count(k: usize) -> usize {
    match k {
        0..=4 => 4,
        5..=8 => 8,
        _ => 16,
    }
}

/// The [`Layout`] of a model of `kernel`, input dimension d and k
/// components.
#[inline(always)]
pub(crate) fn stage_layout(kernel: u32, d: usize, k: usize) -> Layout {
    let register = register_runs(d, k);
    let width = if register { 8 } else { read_width(kernel, d) };
    Layout {
        register,
        offset: if register { width - d } else { 0 },
        width,
    }
}

/// Moves the forward stage (x' in the first d floats, zeros up to W) to the
/// backward one (W - d zeros, then x': the W floats ending at a row's end).
///
/// # Safety
/// `stage` holds W = 8·ceil(d/8) <= [`STAGE`] written floats.
#[allow(unsafe_code)]
unsafe fn stage_backwards(stage: *mut f32, d: usize) {
    let pad = d.div_ceil(8) * 8 - d;
    // SAFETY: j + pad < W <= STAGE and j < d (the caller's contract); the
    // copy runs from the end, so no float is overwritten before it is moved.
    unsafe {
        for j in (0..d).rev() {
            crate::codegen::keep_rolled();
            stage.add(j + pad).write(stage.add(j).read());
        }
        for j in 0..pad {
            crate::codegen::keep_rolled();
            stage.add(j).write(0.0);
        }
    }
}

/// The numbers of one call that both the register passes and the
/// size-first loop use: a point's sum starts at `base` (+ `norm_scale`
/// ‖z‖² for the rbf kernel), x' is scaled by `scale`, and the kernel value
/// takes `post_scale` and `degree` ([`super::rowloop::value`]).
#[derive(Clone, Copy)]
pub(crate) struct Consts {
    pub(crate) base: f32,
    pub(crate) norm_scale: f32,
    pub(crate) post_scale: f32,
    pub(crate) scale: f32,
    pub(crate) degree: u32,
}

impl Consts {
    /// The numbers of a call of a model of `kernel`: x' scaled by -2 gamma
    /// log2(e) for the rbf kernel (the point's sum is then the exponent of
    /// 2^-w), gamma for the polynomial and sigmoid kernels, 1 for the
    /// others. [`Consts::take_norm`] completes them once ‖x'‖² is known.
    #[inline(always)]
    pub(crate) fn for_call(model: &ModelRef<'_>, kernel: u32) -> Consts {
        let r = model.as_raw();
        let g = r.gamma * core::f32::consts::LOG2_E;
        let (base, norm_scale, post_scale, scale) = match kernel {
            RBF => (0.0, g, 0.0, -2.0 * g),
            LAPLACIAN => (0.0, 0.0, g, 1.0),
            // coef0 + 0.0: a coef0 of -0.0 starts the sum at +0.0, so no
            // point's sum is -0.0 and the reads past a row (adding +-0.0
            // products) leave every sum as the size-first loop has it.
            POLYNOMIAL | SIGMOID => (r.coef0 + 0.0, 0.0, 2.0 * core::f32::consts::LOG2_E, r.gamma),
            _ => (0.0, 0.0, 0.0, 1.0),
        };
        Consts {
            base,
            norm_scale,
            post_scale,
            scale,
            degree: r.degree,
        }
    }

    /// Sets the numbers of a call of `kernel` that depend on the input's
    /// ‖x'‖² (`sq_norm`): the rbf kernel's base gamma log2(e) ‖x'‖², the
    /// cosine's ‖x'‖.
    #[inline(always)]
    pub(crate) fn take_norm(&mut self, kernel: u32, sq_norm: f32) {
        if kernel == RBF {
            self.base = self.norm_scale * sq_norm;
        } else if kernel == COSINE {
            self.post_scale = crate::fastmath::sqrt(sq_norm);
        }
    }
}

impl RunState {
    /// The state of one call of a model of `kernel` ([`Consts::for_call`]),
    /// with y = -0.0 and c'k = 0, and the factor x' is scaled by when it is
    /// staged. [`RunState::take_norm`] completes it once ‖x'‖² is known.
    pub(crate) fn for_call(model: &ModelRef<'_>, kernel: u32) -> (RunState, f32) {
        let c = Consts::for_call(model, kernel);
        let (d, _, k) = model.dims();
        let l1 = kernel == LAPLACIAN;
        let st = RunState {
            base: c.base,
            norm_scale: c.norm_scale,
            y: [-0.0; MAX_COMPONENTS],
            ck: 0.0,
            x: core::ptr::null(),
            full: if l1 { d / 8 } else { d.div_ceil(8) } as u32,
            tail: 4 * (d as i32 - read_width(kernel, d) as i32),
            d_bytes: (4 * d) as u32,
            k_bytes: (4 * k) as u32,
            degree: c.degree,
            post_scale: c.post_scale,
            group2: (4 * k.saturating_sub(8)) as u32,
            sums2: MaybeUninit::uninit(),
            rest: if l1 { d % 8 } else { 0 } as u32,
        };
        (st, c.scale)
    }

    /// [`Consts::take_norm`] on the run's copy of the numbers.
    #[inline(always)]
    pub(crate) fn take_norm(&mut self, kernel: u32, sq_norm: f32) {
        if kernel == RBF {
            self.base = self.norm_scale * sq_norm;
        } else if kernel == COSINE {
            self.post_scale = crate::fastmath::sqrt(sq_norm);
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

/// Adds the points `rows.0..rows.1` of a run (read backwards when `z_back`,
/// A read from `first` floats into each row) into `st.y` and `st.ck`, in
/// place: sum l of the first 8 into y\[l\] (so `first` must be 0 unless the
/// caller is [`sum_points_apart`]); for k > 8 the second group's
/// components 8..k.
///
/// # Safety
/// `sections` are the model's (m·d, m, m and m·k floats, the invariant of
/// `ModelRef`), `st` describes the model and `st.x` holds the staged x' for
/// the direction `z_back`, and the rows lie on one side of the splits
/// [`split_row`] gives for widths (d, W) and (k, min(kr, 8)): points read
/// backwards (`z_back`) from the points' split on, forwards before it; A
/// rows read from `first` = k - min(kr, 8) from the A split on, from 0
/// before it (or, when every read ends inside its row, anywhere in 0..m
/// with `first` 0 and `z_back` false): then each row's point read (register
/// runs: its d floats; chunked runs: W floats at the row's start, or ending
/// at its end, the Laplacian's W being d) and A read
/// (min(kr, 8) floats at row + first; for k > 8 also 8 floats at
/// row + k - 8, inside the row) lie in their sections.
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn sum_points<const KERNEL: u32>(
    st: &mut RunState,
    sections: &Sections,
    variant: Variant,
    rows: (usize, usize),
    z_back: bool,
    first: isize,
) {
    let (d, k) = (st.d_bytes as usize / 4, st.k_bytes as usize / 4);
    let z_off = if z_back { st.tail as isize / 4 } else { 0 };
    if k > 8 {
        st.sums2.write([-0.0; 8]);
    }
    // SAFETY: the caller's contract.
    unsafe {
        let ptrs = RowPtrs {
            z: sections.points.add(rows.0 * d).offset(z_off),
            norms: sections.norms.add(rows.0),
            c: sections.c.add(rows.0),
            a: sections.a.add(rows.0 * k).offset(first),
            n: rows.1 - rows.0,
        };
        let kernel = if KERNEL == ANY_KERNEL {
            variant.kernel
        } else {
            KERNEL
        };
        match (variant.chunked, variant.kr) {
            (false, 4) => run_rows::<false, 4>(st, ptrs, kernel),
            (false, _) => run_rows::<false, 8>(st, ptrs, kernel),
            (true, 4) => run_rows::<true, 4>(st, ptrs, kernel),
            (true, 8) => run_rows::<true, 8>(st, ptrs, kernel),
            (true, _) => run_rows::<true, 16>(st, ptrs, kernel),
        }
    }
    if k > 8 {
        // SAFETY: written above, and by the run (k > 8 takes KR = 16).
        let sums2 = unsafe { st.sums2.assume_init() };
        flush(&mut st.y, &sums2, k.saturating_sub(8) as isize, 8, k);
    }
}

/// [`sum_points`] with the run's first 8 sums and c'k summed from 0 and
/// then added into `st.y` (sum l is component `first + l`) and `st.ck`.
///
/// # Safety
/// As [`sum_points`].
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn sum_points_apart<const KERNEL: u32>(
    st: &mut RunState,
    sections: &Sections,
    variant: Variant,
    rows: (usize, usize),
    z_back: bool,
    first: isize,
) {
    let mut kept = [-0.0f32; 8];
    for (kl, yl) in kept.iter_mut().zip(st.y.iter_mut()) {
        *kl = *yl;
        *yl = -0.0;
    }
    let kept_ck = st.ck;
    st.ck = 0.0;
    // SAFETY: the caller's contract.
    unsafe { sum_points::<KERNEL>(st, sections, variant, rows, z_back, first) };
    let mut sums = [-0.0f32; 8];
    for (sl, (yl, kl)) in sums.iter_mut().zip(st.y.iter_mut().zip(kept)) {
        *sl = *yl;
        *yl = kl;
    }
    st.ck += kept_ck;
    let k = st.k_bytes as usize / 4;
    flush(&mut st.y, &sums, first, 0, k);
}

/// Where the runs of a pass over m stored points begin and end, and how
/// each adds into the call's sums: [`accumulate_fast`] and the size-first
/// build's loop (`super::compact`) both take it from [`Plan::of`], so that
/// they round the same sums in the same order and give the same bits
/// (`accumulate_fast` writes out the loop of [`Plan::run_from`]: through it
/// the loop took up to 22 more instructions per call on a Cortex-M4F; the
/// test `compact_pass_gives_the_register_passes_bits` fails when the two
/// differ).
#[derive(Clone, Copy)]
pub(crate) struct Plan {
    /// The first point read backwards (m: none).
    pub(crate) zf: usize,
    /// The first A row read backwards (m: none).
    pub(crate) af: usize,
    /// The most points one run sums ([`UNBOUNDED_BLOCK`] for the
    /// polynomial kernel, otherwise no limit).
    pub(crate) block: usize,
}

/// One run of a [`Plan`]: where it ends, whether its A rows are read
/// backwards, and whether its first 8 sums and c'k add into the call's in
/// place (otherwise they are summed from 0 and then added).
#[derive(Clone, Copy)]
pub(crate) struct Run {
    pub(crate) end: usize,
    pub(crate) in_place: bool,
}

impl Plan {
    /// The plan of a model of `kernel` and sizes (d, m, k) whose point reads
    /// cover `width` floats and A reads min(`kr`, 8): `None` when some row
    /// can be read in neither direction (then no pass applies).
    pub(crate) fn of(
        kernel: u32,
        (d, m, k): (usize, usize, usize),
        width: usize,
        kr: usize,
    ) -> Option<Plan> {
        // The first rows read backwards: points from zf on, A rows from af
        // on (m: none, when every read ends inside its row: d a multiple of
        // 8 or the Laplacian; k = 4, k = 8 or k > 8).
        let zf = if width <= d {
            m
        } else {
            split_row(m, d, width)?
        };
        let af = if kr.min(8) <= k {
            m
        } else {
            split_row(m, k, kr.min(8))?
        };
        let block = if kernel == POLYNOMIAL {
            UNBOUNDED_BLOCK
        } else {
            usize::MAX
        };
        Some(Plan { zf, af, block })
    }

    /// The run that starts at point `start` (< m): it ends where either
    /// section turns to backward reads, or after `block` points.
    pub(crate) fn run_from(&self, start: usize, m: usize) -> Run {
        let (z_back, a_back) = (start >= self.zf, start >= self.af);
        let mut end = m.min(start.saturating_add(self.block));
        if !z_back {
            end = end.min(self.zf);
        }
        if !a_back {
            end = end.min(self.af);
        }
        // Sums added in place where sum l is component l, except in the
        // polynomial's blocks, each summed from 0 (see UNBOUNDED_BLOCK).
        let in_place = !a_back && self.block == usize::MAX;
        Run { end, in_place }
    }
}

/// Adds c'k_x into `st.ck` and A'k_x into `st.y[..k]` by a register pass,
/// for x' staged forwards in `stage` (x' scaled as [`Consts::for_call`] says, in the
/// first d floats, zeros up to W = [`read_width`]); `None` (nothing added)
/// when no pass applies: not [`takes`], or a model too small to read in
/// either direction.
///
/// The passes: d <= 8 and k <= 8, register runs (x' in 8 registers);
/// otherwise chunked runs. Sums: 4 for k <= 4, 8 for k <= 8, and for k > 8
/// a second group of 8 (components 8..16, or the 8 ending at the row's end).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn accumulate_fast<const KERNEL: u32>(
    model: &ModelRef<'_>,
    st: &mut RunState,
    kernel: u32,
    layout: Layout,
    stage: &mut MaybeUninit<[f32; STAGE]>,
) -> Option<()> {
    let (d, m, k) = model.dims();
    if !takes(kernel, d) {
        return None;
    }
    let chunked = !layout.register;
    let kr = sum_count(k);
    let width = layout.point_width(d);
    let (points, a) = (model.section(Section::Points), model.section(Section::A));
    let (norms, c) = (model.section(Section::Norms), model.section(Section::C));
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
    let stage = stage.as_mut_ptr().cast::<f32>();
    st.x = stage;
    // Where the runs turn to backward reads and how long they are (the
    // run loop below is written out rather than through `Plan::run_from`:
    // through it the loop took up to 22 more instructions per call).
    let Plan { zf, af, block } = Plan::of(kernel, (d, m, k), width, kr)?;
    if zf == m && af == m && block == usize::MAX {
        // One forward run over every point, sum l component l.
        // SAFETY: every read ends inside its row: see `sum_points`.
        unsafe { sum_points::<KERNEL>(st, &sections, variant, (0, m), false, 0) };
        return Some(());
    }
    let mut backwards = false;
    let mut start = 0;
    while start < m {
        // A run ends where either section turns to backward reads, or
        // after `block` points (see UNBOUNDED_BLOCK).
        let (z_back, a_back) = (start >= zf, start >= af);
        let mut end = m.min(start.saturating_add(block));
        if !z_back {
            end = end.min(zf);
        }
        if !a_back {
            end = end.min(af);
        }
        if z_back && !backwards {
            // SAFETY: backward point reads exist only for W > d, so not
            // for the Laplacian, and the caller staged W <= STAGE floats.
            unsafe { stage_backwards(stage, d) };
            backwards = true;
        }
        // The A read: forwards from the row's start, or (a backward run of
        // k < kr) the kr floats ending at the row's end.
        let first = if a_back { k as isize - kr as isize } else { 0 };
        // Sums added in place where sum l is component l, except in the
        // polynomial's blocks, each summed from 0 (see UNBOUNDED_BLOCK).
        let in_place = first == 0 && block == usize::MAX;
        // SAFETY: rows `start..end` are read forwards below zf and af and
        // backwards from them on, which `split_row` allows; `first` is the
        // A offset of the direction, `st.x` is staged for the point reads'
        // direction: see `sum_points`.
        unsafe {
            if in_place {
                sum_points::<KERNEL>(st, &sections, variant, (start, end), z_back, first);
            } else {
                sum_points_apart::<KERNEL>(st, &sections, variant, (start, end), z_back, first);
            }
        };
        start = end;
    }
    Some(())
}
