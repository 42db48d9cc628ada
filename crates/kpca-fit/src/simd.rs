//! What the fit's hand-vectorised loops (`symprod`, `vexp`) share: the
//! multiply-add that is fused or not by a const parameter, and the choice of
//! compilation. Each such loop is written once, generic over `FMA`, and compiled
//! once per [`Level`]: on x86-64 for the baseline target, inside a
//! `#[target_feature(enable = "avx2,fma")]` function and inside an
//! `#[target_feature(enable = "avx512f,avx2,fma")]` one; [`level`] picks the
//! widest the CPU has, once per process. On aarch64 the baseline compilation is
//! already NEON with fused multiply-adds ([`NATIVE_FMA`]); elsewhere it is the
//! target's own features.
//!
//! The AVX2 and AVX-512 compilations run the same fused operations in the same
//! order on every lane, so they give bit-identical results (tested in each
//! loop's module); only the register width differs.

use std::sync::OnceLock;

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

/// A compilation of the hand-vectorised loops, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// The target's own features (SSE2 on x86-64, NEON on aarch64).
    Baseline,
    /// x86-64 with AVX2 and FMA: 256-bit registers, 16 of them.
    Avx2Fma,
    /// x86-64 with AVX-512F: 512-bit registers, 32 of them.
    Avx512,
}

impl Level {
    /// The name used by `KPCA_FIT_SIMD` and the benchmarks.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Level::Baseline => "baseline",
            Level::Avx2Fma => "avx2",
            Level::Avx512 => "avx512",
        }
    }
}

/// Every level this CPU can run, narrowest first.
pub(crate) fn supported_levels() -> Vec<Level> {
    let mut levels = vec![Level::Baseline];
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            levels.push(Level::Avx2Fma);
            if std::is_x86_feature_detected!("avx512f") {
                levels.push(Level::Avx512);
            }
        }
    }
    levels
}

/// The level the fit uses: the widest this CPU runs, or, when the environment
/// variable `KPCA_FIT_SIMD` names a supported narrower one (`baseline`, `avx2`),
/// that one (for benchmarks that compare them). Decided once per process.
pub(crate) fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let levels = supported_levels();
        let widest = levels.last().copied().unwrap_or(Level::Baseline);
        std::env::var("KPCA_FIT_SIMD")
            .ok()
            .and_then(|want| levels.iter().copied().find(|l| l.name() == want))
            .unwrap_or(widest)
    })
}

/// The name of the level the fit's own vector loops run at on this CPU
/// (`"avx512"`, `"avx2"` or `"baseline"`; see `KPCA_FIT_SIMD`).
pub fn simd_level() -> &'static str {
    level().name()
}
