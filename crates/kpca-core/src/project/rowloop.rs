//! The innermost loops of the register passes ([`super::passes`]): one run
//! of stored points, the sums in registers.
//!
//! [`run_rows_rust`] is ordinary Rust, for every target and every kernel of
//! the passes (linear, polynomial, rbf, sigmoid, cosine: a sum of products;
//! Laplacian: a sum of absolute differences over exactly d floats per point). On hard-float Arm (Cortex-M4F, M7, M33) [`run_rows`] runs the
//! same loop written in assembly (`project/rowloop/asm.rs`) instead, for one reason: the
//! instructions per stored point. The Rust loop spends a third of them on
//! single-float loads and register copies (each feature, each A entry, each
//! constant of the exponential is one `vldr`; each polynomial step copies a
//! constant before overwriting it); the assembly loads each group with one
//! `vldmia` and lets the polynomial overwrite constants loaded afresh for each
//! point. (Rust 1.95 cannot give an `asm!` block `s`-register operands on
//! single-precision FPUs, rust-lang/rust#159976, so the whole loop is one
//! block with core-register operands, every `s` register declared clobbered.)
//!
//! Both do the same IEEE operations in the same order (`vmla` rounds the
//! product and then the sum, as Rust's `a * b + c` does), so the device's
//! results are the host's bit for bit; the firmware benches check every
//! output for equality, over shapes that take every variant and both read
//! directions.

// On hard-float Arm the assembly runs instead; the Rust loop is still
// compiled there (the same source as every other target), not called.
#![cfg_attr(
    all(target_arch = "arm", target_abi = "eabihf", not(miri)),
    allow(dead_code)
)]

use super::loads::{load4, load8};
use crate::fastmath::{exp2_neg_with, tanh_from, EXP2_BLOCK};
use crate::kernel::{powi, KernelId};

const RBF: u32 = KernelId::Rbf as u32;
const POLYNOMIAL: u32 = KernelId::Polynomial as u32;
const LAPLACIAN: u32 = KernelId::Laplacian as u32;
const LINEAR: u32 = KernelId::Linear as u32;
const COSINE: u32 = KernelId::Cosine as u32;

/// Everything a run needs besides its row pointers, in the layout the
/// assembly reads (byte offsets in the comments, asserted below). One per
/// call: it also holds the call's component sums `y` and c'k, which the
/// runs add into in place.
#[repr(C)]
pub(crate) struct RunState {
    /// 0: where each point's sum starts.
    pub(crate) base: f32,
    /// 4: multiplies ‖z‖² into the sum.
    pub(crate) norm_scale: f32,
    /// 8: the component sums y (in: -0.0, the exact additive identity); a
    /// run adds into the first 8 (sums past k collect what the reads past a
    /// row's k entries give, and are never read).
    pub(crate) y: [f32; 16],
    /// 72: c'k (in: 0.0).
    pub(crate) ck: f32,
    /// 76: x' in 8 floats (register runs) or 8·ceil(d/8) (chunked runs).
    pub(crate) x: *const f32,
    /// 80: chunks of 8 floats read per point (chunked runs): ceil(d/8)
    /// (Laplacian: floor(d/8), the rest read one float at a time).
    pub(crate) full: u32,
    /// 84: bytes from the end of a point's chunk reads to the next point's
    /// start (chunked runs): 4·(d - 8·ceil(d/8)), <= 0 (Laplacian: 0).
    pub(crate) tail: i32,
    /// 88: bytes per point row (4·d).
    pub(crate) d_bytes: u32,
    /// 92: bytes per A row (4·k).
    pub(crate) k_bytes: u32,
    /// 96: the polynomial's degree (1..=16).
    pub(crate) degree: u32,
    /// 100: scales the exponential's argument: 2 log2(e) times |u| for the
    /// sigmoid, gamma log2(e) times the L1 distance for the Laplacian; for
    /// the cosine, ‖x'‖ (the kernel value is x'z / (‖x'‖ ‖z‖)).
    pub(crate) post_scale: f32,
    /// 104: k > 8: bytes from an A row's start to its second group of 8
    /// (components 8..16, or the 8 ending at the row's end): 4·(k - 8).
    pub(crate) group2: u32,
    /// 108: the second group's sums (k > 8; in: -0.0, written by the
    /// caller before each run of k > 8, and read only then).
    pub(crate) sums2: core::mem::MaybeUninit<[f32; 8]>,
    /// 140: Laplacian chunked runs: the d mod 8 floats read one at a time
    /// after the `full` chunks (0 for the other kernels).
    pub(crate) rest: u32,
}

// The offsets the assembly reads (32-bit targets, where it runs).
#[cfg(target_pointer_width = "32")]
const _: () = {
    use core::mem::offset_of;
    assert!(offset_of!(RunState, base) == 0 && offset_of!(RunState, norm_scale) == 4);
    assert!(offset_of!(RunState, y) == 8 && offset_of!(RunState, ck) == 72);
    assert!(offset_of!(RunState, x) == 76 && offset_of!(RunState, full) == 80);
    assert!(offset_of!(RunState, tail) == 84 && offset_of!(RunState, d_bytes) == 88);
    assert!(offset_of!(RunState, k_bytes) == 92 && offset_of!(RunState, degree) == 96);
    assert!(offset_of!(RunState, post_scale) == 100 && offset_of!(RunState, group2) == 104);
    assert!(offset_of!(RunState, sums2) == 108 && offset_of!(RunState, rest) == 140);
};

/// The row pointers of one run: its first point's read, norm, c and A row
/// read, and the number of points.
#[derive(Clone, Copy)]
pub(crate) struct RowPtrs {
    pub(crate) z: *const f32,
    pub(crate) norms: *const f32,
    pub(crate) c: *const f32,
    pub(crate) a: *const f32,
    pub(crate) n: usize,
}

/// The kernel value from a point's sum (and, for the cosine, its ‖z‖²),
/// with the call's `post_scale` and polynomial `degree` ([`RunState`]).
#[inline(always)]
pub(crate) fn value(kernel: u32, post_scale: f32, degree: u32, sum: f32, norm: f32) -> f32 {
    match kernel {
        LINEAR => sum,
        // As crate::kernel::cosine, with sqrt(‖x'‖²) computed once per call.
        COSINE => {
            let denom = post_scale * crate::fastmath::sqrt(norm);
            if denom > 0.0 {
                sum / denom
            } else {
                0.0
            }
        }
        RBF => exp2_neg_with(sum, EXP2_BLOCK),
        LAPLACIAN => exp2_neg_with(sum * post_scale, EXP2_BLOCK),
        POLYNOMIAL => powi(sum, degree),
        _ => tanh_from(
            sum,
            exp2_neg_with(post_scale * libm::fabsf(sum), EXP2_BLOCK),
        ),
    }
}

/// A point's sum: base + norm_scale ‖z‖², then the products of x' and the
/// point's reads: its d floats at `zp` against the last d of `h` (register
/// runs, x' staged right-aligned), or ceil(d/8) chunks of 8 from `zp`
/// against the staged x' (chunked runs).
/// Laplacian: [`l1_sum`] instead.
///
/// # Safety
/// As [`run_rows_rust`].
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn point_sum<const CHUNKED: bool>(
    kernel: u32,
    st: &RunState,
    h: &[f32; 8],
    zp: *const f32,
    norm: f32,
) -> f32 {
    // SAFETY: the caller's contract (every read inside its section).
    unsafe {
        if kernel == LAPLACIAN {
            return l1_sum::<CHUNKED>(st, h, zp);
        }
        // Only the rbf kernel has a ‖z‖² term (the others' norm_scale is 0,
        // and the assembly reads no norm for them).
        let mut sum = if kernel == RBF {
            st.base + st.norm_scale * norm
        } else {
            st.base
        };
        if !CHUNKED {
            // x' right-aligned in h (x'_j in lane 8 - d + j); exactly the
            // point's d floats read.
            let d = (st.d_bytes as usize / 4).min(8);
            if d == 8 {
                // The common full row as one read of 8 (the same sums).
                for (hj, zj) in h.iter().zip(load8(zp)) {
                    sum += hj * zj;
                }
            } else {
                for (j, hj) in h.iter().skip(8 - d).enumerate() {
                    sum += hj * *zp.add(j);
                }
            }
            return sum;
        }
        let (mut xq, mut zq) = (st.x, zp);
        for _ in 0..st.full {
            crate::codegen::keep_rolled();
            for (xj, zj) in load8(xq).into_iter().zip(load8(zq)) {
                sum += xj * zj;
            }
            xq = xq.add(8);
            zq = zq.add(8);
        }
        sum
    }
}

/// A point's L1 distance ‖x' - z‖₁, summed from 0 in feature order: the d
/// floats at `zp` against the last d of `h` (register runs), or `full` chunks of 8
/// and then `rest` single floats against the staged x' (chunked runs): d
/// floats exactly, so no padding enters the sum.
///
/// # Safety
/// As [`run_rows_rust`].
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn l1_sum<const CHUNKED: bool>(st: &RunState, h: &[f32; 8], zp: *const f32) -> f32 {
    let mut sum = 0.0f32;
    // SAFETY: the caller's contract (every read inside its section).
    unsafe {
        if !CHUNKED {
            // x' right-aligned in h; exactly the point's d floats read.
            let d = (st.d_bytes as usize / 4).min(8);
            if d == 8 {
                for (hj, zj) in h.iter().zip(load8(zp)) {
                    sum += libm::fabsf(hj - zj);
                }
            } else {
                for (j, hj) in h.iter().skip(8 - d).enumerate() {
                    sum += libm::fabsf(hj - *zp.add(j));
                }
            }
            return sum;
        }
        let (mut xq, mut zq) = (st.x, zp);
        for _ in 0..st.full {
            crate::codegen::keep_rolled();
            for (xj, zj) in load8(xq).into_iter().zip(load8(zq)) {
                sum += libm::fabsf(xj - zj);
            }
            xq = xq.add(8);
            zq = zq.add(8);
        }
        for _ in 0..st.rest {
            crate::codegen::keep_rolled();
            sum += libm::fabsf(*xq - *zq);
            xq = xq.add(1);
            zq = zq.add(1);
        }
    }
    sum
}

/// One run in Rust: for each point, its sum, its kernel value, c'k and the
/// `KR` (4, 8, or 16: 8 and the second group at `group2`) component sums,
/// added into `st.y[..8]` (and `st.sums2`) and `st.ck`.
///
/// # Safety
/// `rows` and `st` describe reads inside the model's sections: for each of
/// the `rows.n` points, d (register runs) or 8·ceil(d/8) (chunked runs;
/// Laplacian: d) floats at its point read (advancing by d), one norm and one c,
/// min(`KR`, 8) floats at its A read (advancing by k), for `KR` = 16 also 8 floats
/// `group2` bytes further; `st.x` holds 8 or 8·ceil(d/8) floats.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn run_rows_rust<const CHUNKED: bool, const KR: usize>(
    st: &mut RunState,
    rows: RowPtrs,
    kernel: u32,
) {
    let (d, k) = (st.d_bytes as usize / 4, st.k_bytes as usize / 4);
    // SAFETY: the caller's contract.
    unsafe {
        let h = if CHUNKED { [0.0; 8] } else { load8(st.x) };
        let mut sums: [f32; 8] = load8(st.y.as_ptr());
        // SAFETY (assume_init): for KR = 16 (k > 8) the caller has
        // written the second group's sums.
        let mut sums2 = if KR > 8 {
            st.sums2.assume_init()
        } else {
            [0.0; 8]
        };
        let mut ck = st.ck;
        let (mut zp, mut np, mut cp, mut ap) = (rows.z, rows.norms, rows.c, rows.a);
        let end = rows.norms.add(rows.n);
        while np != end {
            crate::codegen::keep_rolled();
            let sum = point_sum::<CHUNKED>(kernel, st, &h, zp, *np);
            let kv = value(kernel, st.post_scale, st.degree, sum, *np);
            ck += kv * *cp;
            if KR == 4 {
                for (sl, al) in sums.iter_mut().zip(load4(ap)) {
                    *sl += kv * al;
                }
            } else {
                for (sl, al) in sums.iter_mut().zip(load8(ap)) {
                    *sl += kv * al;
                }
                if KR > 8 {
                    let a2 = ap.cast::<u8>().add(st.group2 as usize).cast::<f32>();
                    for (sl, al) in sums2.iter_mut().zip(load8(a2)) {
                        *sl += kv * al;
                    }
                }
            }
            zp = zp.add(d);
            ap = ap.add(k);
            np = np.add(1);
            cp = cp.add(1);
        }
        st.y[..8].copy_from_slice(&sums);
        if KR > 8 {
            st.sums2.write(sums2);
        }
        st.ck = ck;
    }
}

/// One run of the `kernel` (an argument, so that a caller whose kernel is a
/// constant gets only that kernel's code): the assembly on
/// hard-float Arm, [`run_rows_rust`] elsewhere (the same results).
///
/// # Safety
/// As [`run_rows_rust`].
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) unsafe fn run_rows<const CHUNKED: bool, const KR: usize>(
    st: &mut RunState,
    rows: RowPtrs,
    kernel: u32,
) {
    #[cfg(all(target_arch = "arm", target_abi = "eabihf", not(miri)))]
    // SAFETY: the caller's contract, which is the assembly's.
    unsafe {
        asm::run::<CHUNKED, KR>(st, rows, kernel)
    }
    #[cfg(not(all(target_arch = "arm", target_abi = "eabihf", not(miri))))]
    // SAFETY: the caller's contract.
    unsafe {
        run_rows_rust::<CHUNKED, KR>(st, rows, kernel)
    }
}

#[cfg(all(target_arch = "arm", target_abi = "eabihf", not(miri)))]
mod asm;
