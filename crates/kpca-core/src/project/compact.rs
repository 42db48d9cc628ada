//! The size-first build's pass over the stored points (Cargo feature
//! `size`): one compact loop for every kernel, d <= 64 and any k, in a few
//! hundred bytes of code and a small fixed frame.
//!
//! It gives the register passes' bits ([`super::passes`]), for a reason the
//! code keeps visible: it follows the same [`Plan`] (the same runs, each
//! added into the call's sums in place or summed apart as the passes do),
//! and each point's sum, kernel value and products are the same IEEE
//! operations in the same order as [`super::rowloop`]'s:
//!
//! - x' times the kernel's scale is computed again for each point (the
//!   passes stage it once; the same two or three roundings), so no stage
//!   takes stack;
//! - a point is read as exactly its d floats and an A row as exactly its k
//!   (the passes' reads past a row meet zeros or dropped sums, which add
//!   nothing: a point's sum starts at +0.0 or above, [`Consts::for_call`],
//!   so it is never -0.0, and adding a product of +-0.0 leaves it as it is);
//! - the polynomial's blocks, the A rows a pass reads backwards and the
//!   second group of 8 sums for k > 8 are summed from -0.0 and then added,
//!   as the passes do.
//!
//! `tests::compact_pass_gives_the_register_passes_bits` checks it over
//! every kernel and the shapes around the passes' limits.

use core::mem::MaybeUninit;

use super::passes::{self, sum_count, Consts, Plan};
use super::rowloop::value;
use crate::codegen::{keep_rolled, opaque};
use crate::kernel::KernelId;
use crate::model::{ModelRef, Section, MAX_COMPONENTS};

const RBF: u32 = KernelId::Rbf as u32;
const LAPLACIAN: u32 = KernelId::Laplacian as u32;

/// The call's component sums y (from -0.0, the exact additive identity)
/// and c'k (from 0), and the scratch of the runs summed apart (written by
/// each run before it is read).
pub(crate) struct Sums {
    pub(crate) y: [f32; MAX_COMPONENTS],
    pub(crate) ck: f32,
    apart: MaybeUninit<[f32; MAX_COMPONENTS]>,
}

impl Sums {
    /// The sums of a call, in `slot`: y = -0.0, c'k = 0 (written in place:
    /// a `Sums` returned by value was built in a second 64-byte array on
    /// the stack and copied).
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn init(slot: &mut MaybeUninit<Sums>) -> &mut Sums {
        let p = slot.as_mut_ptr();
        // SAFETY: `p` points to the slot's Sums; every field but `apart`
        // (MaybeUninit) is written here before the reference is made.
        unsafe {
            let y = core::ptr::addr_of_mut!((*p).y).cast::<f32>();
            for l in 0..MAX_COMPONENTS {
                keep_rolled();
                y.add(l).write(-0.0);
            }
            core::ptr::addr_of_mut!((*p).ck).write(0.0);
            &mut *p
        }
    }
}

/// The input as the loop reads it: x and, for a standardised model, the
/// mean and 1/std, each d floats; and the kernel's scale of x'
/// ([`Consts::for_call`]).
#[derive(Clone, Copy)]
pub(crate) struct Input<'x> {
    pub(crate) x: &'x [f32],
    pub(crate) standardization: Option<(&'x [f32], &'x [f32])>,
    pub(crate) scale: f32,
}

/// The sections the loop reads, as pointers (m·d, m, m and m·k floats).
struct Rows {
    points: *const f32,
    norms: *const f32,
    c: *const f32,
    a: *const f32,
}

/// A point's sum, as [`super::rowloop`]'s `point_sum` / `l1_sum` give it:
/// base + norm_scale ‖z‖² (rbf), base, or 0 (Laplacian), then x'_j·scale
/// against z_j for j = 0..d in feature order.
///
/// # Safety
/// `z` is valid for reading `input.x.len()` floats.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn point_sum(kernel: u32, st: &Consts, input: &Input<'_>, z: *const f32, norm: f32) -> f32 {
    let l1 = kernel == LAPLACIAN;
    let mut sum = match kernel {
        LAPLACIAN => 0.0,
        RBF => st.base + st.norm_scale * norm,
        _ => st.base,
    };
    let scale = input.scale;
    // Pointer loops (one end pointer, every pointer stepped by one float):
    // the fewest instructions per feature LLVM gives a rolled loop.
    let (mut xp, mut zp) = (input.x.as_ptr(), z);
    let end = xp.wrapping_add(input.x.len());
    // SAFETY: every read is at j < d = x.len(): in x, in the d floats at
    // `z` (the caller's contract) and in `mean` and `inv_std` (d floats each).
    unsafe {
        match input.standardization {
            None => {
                // Two features per step (the same operations in the same
                // order): a third fewer instructions per feature.
                let pairs_end = xp.wrapping_add(input.x.len() & !1);
                while xp != pairs_end {
                    keep_rolled();
                    let (v0, v1) = (*xp * scale, *xp.add(1) * scale);
                    let (z0, z1) = (*zp, *zp.add(1));
                    sum += if l1 { libm::fabsf(v0 - z0) } else { v0 * z0 };
                    sum += if l1 { libm::fabsf(v1 - z1) } else { v1 * z1 };
                    xp = xp.add(2);
                    zp = opaque(zp.add(2));
                }
                if xp != end {
                    let v = *xp * scale;
                    sum += if l1 { libm::fabsf(v - *zp) } else { v * *zp };
                }
            }
            Some((mean, inv_std)) => {
                let (mut mp, mut sp) = (mean.as_ptr(), inv_std.as_ptr());
                while xp != end {
                    keep_rolled();
                    let v = ((*xp - *mp) * *sp) * scale;
                    sum += if l1 { libm::fabsf(v - *zp) } else { v * *zp };
                    xp = xp.add(1);
                    zp = opaque(zp.add(1));
                    mp = opaque(mp.add(1));
                    sp = opaque(sp.add(1));
                }
            }
        }
    }
    sum
}

/// Adds the points `from..to` into `acc.y[..k]` and `acc.ck`: in place
/// (`in_place`: the first 8 sums and c'k continue the call's), otherwise
/// summed from -0.0 (c'k from 0) and then added; components 8.. always the
/// latter, as the passes' second group.
///
/// # Safety
/// `rows` are the model's sections and `from..to` lies in 0..m.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn run(
    st: &Consts,
    acc: &mut Sums,
    kernel: u32,
    input: &Input<'_>,
    rows: &Rows,
    (from, to, k): (usize, usize, usize),
    in_place: bool,
) {
    let d = input.x.len();
    let kept = if in_place { k.min(8) } else { 0 };
    // Pointer loops over k (<= MAX_COMPONENTS, the invariant of
    // `ModelRef`): a loop over an array of known length would be unrolled
    // to it.
    let (y, sums) = (acc.y.as_mut_ptr(), acc.apart.as_mut_ptr().cast::<f32>());
    let mut ck = if in_place { acc.ck } else { 0.0 };
    // SAFETY: l < k <= MAX_COMPONENTS, within `y` and `sums`; i < m: point
    // i's d floats, its norm and c, and A row i's k floats lie in their
    // sections (the invariant of `ModelRef`).
    unsafe {
        for l in 0..k {
            keep_rolled();
            *sums.add(l) = if l < kept { *y.add(l) } else { -0.0 };
        }
        let (mut zp, mut ap) = (rows.points.add(from * d), rows.a.add(from * k));
        for i in from..to {
            keep_rolled();
            let norm = *rows.norms.add(i);
            let sum = point_sum(kernel, st, input, zp, norm);
            let kv = value(kernel, st.post_scale, st.degree, sum, norm);
            ck += kv * *rows.c.add(i);
            let (mut sp, end) = (sums, sums.add(k));
            while sp != end {
                keep_rolled();
                *sp += kv * *ap;
                sp = sp.add(1);
                ap = opaque(ap.add(1));
            }
            zp = zp.add(d);
        }
        for l in 0..k {
            keep_rolled();
            let sl = *sums.add(l);
            *y.add(l) = if l < kept { sl } else { *y.add(l) + sl };
        }
    }
    acc.ck = if in_place { ck } else { ck + acc.ck };
}

/// Adds c'k_x into `acc.ck` and A'k_x into `acc.y[..k]` over every stored
/// point, with the bits of [`passes::accumulate_fast`]; `None` (nothing
/// added) where that takes no pass either (the caller's general loop runs).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn accumulate(
    model: &ModelRef<'_>,
    st: &Consts,
    kernel: u32,
    input: &Input<'_>,
    acc: &mut Sums,
) -> Option<()> {
    let (d, m, k) = model.dims();
    if !passes::takes(kernel, d) || input.x.len() != d {
        return None;
    }
    let layout = passes::stage_layout(kernel, d, k);
    let plan = Plan::of(kernel, (d, m, k), layout.point_width(d), sum_count(k))?;
    let rows = Rows {
        points: model.section(Section::Points).as_ptr(),
        norms: model.section(Section::Norms).as_ptr(),
        c: model.section(Section::C).as_ptr(),
        a: model.section(Section::A).as_ptr(),
    };
    let mut start = 0;
    while start < m {
        keep_rolled();
        let r = plan.run_from(start, m);
        // SAFETY: start < r.end <= m; the sections are the model's.
        unsafe { run(st, acc, kernel, input, &rows, (start, r.end, k), r.in_place) };
        start = r.end;
    }
    Some(())
}
