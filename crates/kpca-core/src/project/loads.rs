//! Loads of 4 or 8 consecutive floats for the register passes
//! ([`super::passes`]).
//!
//! Plain reads on every target today. The passes are measured in
//! instructions per stored point, and a third of them are single-float loads
//! (`vldr`); one `vldmia` per group would save about 10 per point on the
//! Cortex-M4F, but an `asm!` operand in an `s` register requires the `vfp2`
//! target feature in Rust 1.95, which single-precision FPUs
//! (thumbv7em-none-eabihf, thumbv8m.main-none-eabihf) do not have
//! (rust-lang/rust#159976, fixed by rust-lang/rust#159988 after 1.95). These
//! functions are the one place such loads would go.

// On hard-float Arm the assembly runs instead; the Rust loop is still
// compiled there (the same source as every other target), not called.
#![cfg_attr(
    all(target_arch = "arm", target_abi = "eabihf", not(miri)),
    allow(dead_code)
)]

/// Reads `[f32; 4]` at `p`.
///
/// # Safety
/// `p` must be aligned to 4 bytes and valid for reading 4 floats.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) unsafe fn load4(p: *const f32) -> [f32; 4] {
    // SAFETY: the caller's contract.
    unsafe { p.cast::<[f32; 4]>().read() }
}

/// Reads `[f32; 8]` at `p`.
///
/// # Safety
/// `p` must be aligned to 4 bytes and valid for reading 8 floats.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) unsafe fn load8(p: *const f32) -> [f32; 8] {
    // SAFETY: the caller's contract.
    unsafe { p.cast::<[f32; 8]>().read() }
}
