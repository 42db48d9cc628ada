//! What the fit's hand-vectorised loops (`symprod`, `vexp`) share: the
//! multiply-add that is fused or not by a const parameter, and the choice of
//! compilation. Each such loop is written once, generic over `FMA`, and compiled
//! twice on x86-64: for the baseline target and, inside a
//! `#[target_feature(enable = "avx2,fma")]` function, for CPUs that have them
//! ([`has_avx2_fma`] picks at run time). Elsewhere [`NATIVE_FMA`] says whether the
//! target fuses on its own.

/// a * b + c, fused when `FMA` (chosen only where the CPU fuses it; elsewhere
/// the fused variant runs only in the tests, through a slow software fma).
#[inline(always)]
pub(crate) fn madd<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// Whether the target fuses multiply-adds without run-time detection.
pub(crate) const NATIVE_FMA: bool = cfg!(any(target_arch = "aarch64", target_feature = "fma"));

/// Whether the AVX2 + FMA compilations may run on this CPU.
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx2_fma() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
}
