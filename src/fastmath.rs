//! An f32 exponential for the kernels, the same code on host and device.
//!
//! `exp` reduces `x = n ln2 + r` with `|r| <= ln2/2` (Cody-Waite, two-part ln2),
//! evaluates a degree-5 minimax polynomial for `e^r` (no division, no table) and
//! scales by `2^n` built from the exponent bits.
//!
//! Error bound (tested against f64 `exp` in `tests` below over every 64th f32 in
//! [-87.3, 88.7] and a dense sweep of the reduced interval): relative error at most
//! [`EXP_MAX_REL_ERROR`] for results in the normal f32 range. Results below the
//! smallest normal f32 (x < -87.33654) are flushed to +0.0 (absolute error below
//! 1.2e-38); x > 88.72283 gives +infinity; NaN gives NaN. The kernels only call it
//! with finite arguments, because the core rejects non-finite input first.

/// Stated bound on the relative error of [`exp`] in the normal range.
pub const EXP_MAX_REL_ERROR: f32 = 4.0e-7;

const LOG2_E: f32 = core::f32::consts::LOG2_E;
// ln 2 split so that n * LN2_HI is exact for |n| < 2^8.
const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;
// Minimax coefficients of e^r on [-ln2/2, ln2/2] with P0 = 1 exactly, so that
// e^0 = 1 (relative error 9.5e-8 with these f32 coefficients in exact arithmetic).
const P0: f32 = 1.0;
const P1: f32 = 0.999_999_7;
const P2: f32 = 0.499_991_5;
const P3: f32 = 0.166_676_36;
const P4: f32 = 0.041_897_93;
const P5: f32 = 0.008_290_315;
/// Below this the result is not a normal f32.
const MIN_ARG: f32 = -87.336_54;
/// Above this the result overflows f32.
const MAX_ARG: f32 = 88.722_83;

/// Adds 1.5 * 2^23 to push the fraction out of the mantissa: round to nearest
/// integer without a library call (exact for |v| < 2^22).
const SHIFTER: f32 = 12_582_912.0;

/// Range reduction and polynomial: returns (e^r, bits of SHIFTER + n) where
/// x = n ln2 + r. Valid for |x| < 2^21.
#[inline(always)]
fn reduce(x: f32) -> (f32, u32) {
    let t = x * LOG2_E + SHIFTER;
    let n = t - SHIFTER;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = P0 + r * (P1 + r * (P2 + r * (P3 + r * (P4 + r * P5))));
    (p, t.to_bits())
}

/// e^x in f32 with relative error at most [`EXP_MAX_REL_ERROR`] (see the module docs).
#[inline]
pub fn exp(x: f32) -> f32 {
    if x < MIN_ARG {
        return 0.0;
    }
    if x > MAX_ARG {
        return f32::INFINITY;
    }
    if x.is_nan() {
        return x;
    }
    let (p, t_bits) = reduce(x);
    // n is in [-126, 128]; build 2^n in two halves so n = 128 stays finite.
    let n = t_bits.wrapping_sub(SHIFTER.to_bits()) as i32;
    let half = n >> 1;
    let s1 = f32::from_bits(((half + 127) as u32) << 23);
    let s2 = f32::from_bits(((n - half + 127) as u32) << 23);
    p * s1 * s2
}

/// e^(-t) for the distance kernels: t = gamma * distance, normally >= 0.
///
/// For |t| < 87.33 this is the reduction and polynomial of [`exp`], with 2^n
/// (n in [-126, 126]) built in one step from the bits the reduction already
/// holds, so the error bound of [`exp`] holds (a slightly negative t, from a
/// squared distance rounded below 0, gives a value slightly above 1). t >= 87.33
/// or NaN (an infinite distance) give +0.0. t <= -87.33 can only come from
/// catastrophic cancellation in a distance that is 0 to working precision, and
/// gives 1.0. One comparison on the common path.
#[inline(always)]
pub fn exp_neg(t: f32) -> f32 {
    if libm::fabsf(t) < -MIN_ARG {
        let (p, t_bits) = reduce(-t);
        // (SHIFTER + n) << 23 plus (127 - SHIFTER) << 23 is (n + 127) << 23,
        // the exponent field of 2^n (wrapping arithmetic drops the high bits).
        const BIAS: u32 = 127u32.wrapping_sub(SHIFTER.to_bits()) << 23;
        p * f32::from_bits((t_bits << 23).wrapping_add(BIAS))
    } else if t < 0.0 {
        1.0
    } else {
        0.0
    }
}

/// Stated bound on the absolute error of [`tanh`].
pub const TANH_MAX_ABS_ERROR: f32 = 4.0e-7;

/// tanh(t) in f32 through [`exp`]: (1 - e^(-2|t|)) / (1 + e^(-2|t|)) with the sign
/// of t. Absolute error at most [`TANH_MAX_ABS_ERROR`] (tested against f64); the
/// kernel value feeds sums, so the absolute error is the one that matters.
/// |t| > 9 gives exactly ±1; NaN gives NaN.
#[inline]
pub fn tanh(t: f32) -> f32 {
    let a = if t < 0.0 { -t } else { t };
    let r = if a > 9.0 {
        1.0
    } else if a < 1.0 / 4096.0 {
        // tanh(a) = a - a^3/3 + ..., and a^3/3 < 5e-12 here.
        a
    } else {
        let e = exp(-2.0 * a);
        (1.0 - e) / (1.0 + e)
    };
    if t < 0.0 {
        -r
    } else if t.is_nan() {
        t
    } else {
        r
    }
}

/// Correctly rounded square root: the FPU instruction on hard-float Arm, `libm`
/// elsewhere (both are IEEE 754 exact roundings, so results are identical).
#[inline]
pub fn sqrt(v: f32) -> f32 {
    #[cfg(all(target_arch = "arm", target_abi = "eabihf"))]
    {
        let r: u32;
        // SAFETY: moves the bits into s0, `vsqrt.f32` on it, and back; no memory
        // effects; hard-float targets always have the FPU enabled. s0 is declared
        // clobbered through the explicit register operand.
        #[allow(unsafe_code)]
        unsafe {
            core::arch::asm!(
                ".fpu fpv4-sp-d16",
                "vmov s0, {v}",
                "vsqrt.f32 s0, s0",
                "vmov {r}, s0",
                v = in(reg) v.to_bits(),
                r = lateout(reg) r,
                out("s0") _,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        f32::from_bits(r)
    }
    #[cfg(not(all(target_arch = "arm", target_abi = "eabihf")))]
    {
        libm::sqrtf(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel_err(x: f32) -> f64 {
        let want = (x as f64).exp();
        let got = exp(x) as f64;
        ((got - want) / want).abs()
    }

    #[test]
    fn relative_error_is_within_the_stated_bound_over_the_normal_range() {
        let mut worst = 0.0f64;
        let mut bits = (-87.3f32).to_bits();
        // Walk negative floats from -87.3 up to -0.0 (decreasing magnitude).
        while bits > 0x8000_0000 {
            worst = worst.max(rel_err(f32::from_bits(bits)));
            bits = bits.saturating_sub(64).max(0x8000_0000);
        }
        let mut bits = 0u32;
        while f32::from_bits(bits) < 88.7 {
            worst = worst.max(rel_err(f32::from_bits(bits)));
            bits += 64;
        }
        // Dense sweep of one reduced interval and around the reduction boundaries.
        for i in -200_000..=200_000 {
            worst = worst.max(rel_err(i as f32 * 4.0e-6));
        }
        // exp_neg over [0, 87.3] follows the same bound.
        let mut bits = 0u32;
        while f32::from_bits(bits) < 87.3 {
            let t = f32::from_bits(bits);
            let want = (-(t as f64)).exp();
            worst = worst.max(((exp_neg(t) as f64 - want) / want).abs());
            bits += 61;
        }
        assert!(
            worst <= EXP_MAX_REL_ERROR as f64,
            "worst relative error {worst:e}"
        );
    }

    #[test]
    fn edges_flush_overflow_and_propagate_nan() {
        assert_eq!(exp(-88.0), 0.0);
        assert_eq!(exp(-1.0e30), 0.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp_neg(0.0), 1.0);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(89.0), f32::INFINITY);
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        assert!(exp(f32::NAN).is_nan());
        assert!(exp(MIN_ARG) >= f32::MIN_POSITIVE);
        assert!(exp(MAX_ARG).is_finite());
    }

    #[test]
    fn tanh_is_within_its_absolute_error_bound() {
        let mut worst = 0.0f64;
        for i in -400_000..=400_000 {
            let t = i as f32 * 3.0e-5;
            worst = worst.max((tanh(t) as f64 - (t as f64).tanh()).abs());
        }
        for &t in &[9.5f32, -20.0, 1e30, -1e30, f32::INFINITY] {
            worst = worst.max((tanh(t) as f64 - (t as f64).tanh()).abs());
        }
        assert!(
            worst <= TANH_MAX_ABS_ERROR as f64,
            "worst absolute error {worst:e}"
        );
        assert!(tanh(f32::NAN).is_nan());
        assert_eq!(tanh(0.0), 0.0);
    }

    #[test]
    fn sqrt_is_exact() {
        for &v in &[0.0f32, 1.0, 2.0, 1e-30, 3.0e38, 0.3] {
            assert_eq!(sqrt(v), libm::sqrtf(v));
        }
    }

    #[test]
    fn exp_neg_handles_rounding_far_points_and_nan() {
        assert!((exp_neg(-1e-7) - 1.0).abs() < 2e-7);
        assert_eq!(exp_neg(-1e3), 1.0);
        assert_eq!(exp_neg(2.0), exp(-2.0));
        assert_eq!(exp_neg(88.0), 0.0);
        assert_eq!(exp_neg(f32::INFINITY), 0.0);
        assert_eq!(exp_neg(f32::NAN), 0.0);
    }
}
