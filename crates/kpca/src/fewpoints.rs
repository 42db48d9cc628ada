//! The pass for models of few stored points with a dot-product kernel: the
//! linear and cosine models that the fit folds into a linear map (k + 1
//! points, see [`crate::format::FLAG_LINEAR_MAP`]), or any such model of at
//! most [`MAX_FEW_POINTS`] points.
//!
//! x' is staged once and each point's x'z summed four floats at a time, so
//! the cost is about d·(k + 1) multiply-adds and no per-point exponential:
//! the d x k map the model is, evaluated directly.

use core::mem::MaybeUninit;

use crate::kernel::{cosine, KernelId};
use crate::model::{ModelRef, Section, MAX_COMPONENTS};
use crate::passes::{stage_input, Input, MAX_FAST_DIM, STAGE};
use crate::project::keep_rolled;

/// The most stored points this pass takes: a folded map of k <=
/// [`MAX_COMPONENTS`] components has k + 1.
pub(crate) const MAX_FEW_POINTS: usize = MAX_COMPONENTS + 1;

const LINEAR: u32 = KernelId::Linear as u32;
const COSINE: u32 = KernelId::Cosine as u32;

/// x'z, four products at a time into four sums, then the rest.
#[inline(always)]
fn dot(x: &[f32], z: &[f32]) -> f32 {
    let mut acc = [0.0f32; 4];
    let (xc, zc) = (x.chunks_exact(4), z.chunks_exact(4));
    let tail: f32 = xc
        .remainder()
        .iter()
        .zip(zc.remainder())
        .map(|(a, b)| {
            keep_rolled();
            a * b
        })
        .sum();
    for (xa, za) in xc.zip(zc) {
        keep_rolled();
        for ((s, a), b) in acc.iter_mut().zip(xa).zip(za) {
            *s += a * b;
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// y[..k] += kv · arow (k = arow.len() <= [`MAX_COMPONENTS`]), four
/// components at a time.
#[inline(always)]
fn add_row(y: &mut [f32; MAX_COMPONENTS], kv: f32, arow: &[f32]) {
    let (quads, rest) = (arow.chunks_exact(4), arow.chunks_exact(4).remainder());
    let Some((y4, y_rest)) = y.split_at_mut_checked(arow.len() - rest.len()) else {
        return;
    };
    for (yq, aq) in y4.chunks_exact_mut(4).zip(quads) {
        keep_rolled();
        for (yl, al) in yq.iter_mut().zip(aq) {
            *yl += kv * al;
        }
    }
    for (yl, al) in y_rest.iter_mut().zip(rest) {
        keep_rolled();
        *yl += kv * al;
    }
}

/// c'k_x (returned) and A'k_x (added into `y[..k]`) for linear and cosine
/// models of at most [`MAX_FEW_POINTS`] points and d <= [`MAX_FAST_DIM`];
/// `None` (nothing added) for any other model. `kernel` is the model's
/// kernel id; `stage` is the caller's scratch for x' (the one the register
/// passes also use).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn accumulate_few(
    model: &ModelRef<'_>,
    x: &Input<'_>,
    sq_norm: f32,
    y: &mut [f32; MAX_COMPONENTS],
    kernel: u32,
    stage: &mut MaybeUninit<[f32; STAGE]>,
) -> Option<f32> {
    let (d, m, k) = model.dims();
    let is_cosine = match kernel {
        LINEAR => false,
        COSINE => true,
        _ => return None,
    };
    if m > MAX_FEW_POINTS || d > MAX_FAST_DIM || x.raw.len() != d {
        return None;
    }
    stage_input(x, 1.0, false, stage)?;
    // SAFETY: `stage_input` returned Some, so it wrote x' into the first d
    // floats of the stage (d <= MAX_FAST_DIM = STAGE).
    let xs = unsafe { core::slice::from_raw_parts(stage.as_ptr().cast::<f32>(), d) };
    let (points, a) = (model.section(Section::Points), model.section(Section::A));
    let (norms, c) = (model.section(Section::Norms), model.section(Section::C));
    let mut ck = 0.0f32;
    for i in 0..m {
        keep_rolled();
        // SAFETY: i < m, so row i of the points (d floats from i·d) and of A
        // (k floats from i·k) and norms[i], c[i] lie in their sections (m·d,
        // m·k, m and m floats by the invariant of `ModelRef`).
        let (z, arow, zn, ci) = unsafe {
            (
                core::slice::from_raw_parts(points.as_ptr().add(i * d), d),
                core::slice::from_raw_parts(a.as_ptr().add(i * k), k),
                *norms.as_ptr().add(i),
                *c.as_ptr().add(i),
            )
        };
        let dz = dot(xs, z);
        let kv = if is_cosine {
            cosine(dz, sq_norm, zn)
        } else {
            dz
        };
        ck += kv * ci;
        add_row(y, kv, arow);
    }
    Some(ck)
}
