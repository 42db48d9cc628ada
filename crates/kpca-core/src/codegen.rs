//! The code's shape: what the compiler is told about loops and specialisation,
//! shared by every module that has a loop (the projection, the blob's loader
//! and writer, the CRC, the device fit).
//!
//! - [`keep_rolled`]: keeps a loop with a run-time trip count rolled on Arm;
//! - [`rows`], [`rows_mut`]: a slice's rows without a division;
//! - [`ANY_KERNEL`]: the kernel parameter of the projection's generic
//!   functions that serves every kernel (the others serve one kernel id).

/// Keeps the loop it is called in rolled: an empty inline-assembly statement
/// (no instruction, no register, no memory effect) on Arm targets.
///
/// LLVM's unrolling preferences for Arm M-profile cores runtime-unroll every
/// small loop whose trip count is known only at run time (by 4, plus a
/// remainder loop), unless the loop contains a call that is not an intrinsic;
/// an inline-assembly statement counts as such a call. Runtime unrolling of
/// the loops over d, k and m here doubles the projection's code (thumbv7em:
/// `evaluate` 3,668 B instead of 1,788, 28 B more stack, 1.6% more
/// instructions for RBF) and buys 8% for the general path, so each such loop
/// calls this. It is part of the code, not of a build setting: a downstream
/// crate with ordinary release settings gets the same code and the same cost
/// as the repository's own builds (scripts/downstream-size.sh checks it,
/// scripts/firmware-cost.sh measures it). Loops with a constant trip count
/// (the 8 features and 4 components of the register path) are still
/// unrolled completely, as intended.
#[inline(always)]
pub(crate) fn keep_rolled() {
    #[cfg(all(target_arch = "arm", not(miri)))]
    // SAFETY: an empty template: no instruction is emitted, no register,
    // memory or flag is read or written (nomem, nostack, preserves_flags).
    #[allow(unsafe_code)]
    unsafe {
        core::arch::asm!("", options(nomem, nostack, preserves_flags));
    }
}

/// `evaluate::<ANY_KERNEL>` serves models of every kernel: the kernel is the
/// model's, chosen at run time; any other value is one kernel id
/// ([`crate::kernel::KernelId`] as `u32`), and only that kernel's code is
/// compiled in.
pub(crate) const ANY_KERNEL: u32 = u32::MAX;

/// `p`, through an empty inline-assembly statement on Arm (no instruction):
/// the compiler no longer knows how it relates to the loop's other
/// pointers, so a loop that steps several pointers keeps each as its own
/// post-incremented register instead of one shared index plus an add per
/// load (the size-first loop, `project/compact.rs`: 9 instructions per
/// feature on a Cortex-M4F without it).
#[inline(always)]
pub(crate) fn opaque<T>(p: *const T) -> *const T {
    #[cfg(all(target_arch = "arm", not(miri)))]
    {
        let mut q = p;
        // SAFETY: an empty template that hands the register back unchanged
        // (nomem, nostack, preserves_flags).
        // The pointer is only a value here: nothing is read or written
        // through it, which is what `nomem` says.
        #[allow(unsafe_code, clippy::pointers_in_nomem_asm_block)]
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg) q, options(nomem, nostack, preserves_flags, pure));
        }
        q
    }
    #[cfg(not(all(target_arch = "arm", not(miri))))]
    p
}

/// The consecutive rows of `n` elements of `s` (`n` 0 is taken as 1; a
/// shorter tail is left out), as `chunks_exact` gives them but without its
/// division: `Zip` of two `ChunksExact` divides by the chunk length, and an
/// outlined copy of it (opt-level s, the size-first C library) cannot see
/// that the length is not 0, so it links a panic.
#[inline(always)]
pub(crate) fn rows<T>(s: &[T], n: usize) -> impl Iterator<Item = &[T]> {
    let mut rest = s;
    core::iter::from_fn(move || {
        let (row, tail) = rest.split_at_checked(n.max(1))?;
        rest = tail;
        Some(row)
    })
}

/// [`rows`] of a mutable slice.
#[inline(always)]
pub(crate) fn rows_mut<T>(s: &mut [T], n: usize) -> impl Iterator<Item = &mut [T]> {
    let mut rest = s;
    core::iter::from_fn(move || {
        let (row, tail) = core::mem::take(&mut rest).split_at_mut_checked(n.max(1))?;
        rest = tail;
        Some(row)
    })
}
