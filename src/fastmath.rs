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
// Minimax coefficients of e^r on [-ln2/2, ln2/2] (relative error 1.4e-7 in exact arithmetic).
const P0: f32 = 1.000_000_1;
const P1: f32 = 0.999_999_7;
const P2: f32 = 0.499_988_94;
const P3: f32 = 0.166_675_75;
const P4: f32 = 0.041_915_383;
const P5: f32 = 0.008_297_655;
/// Below this the result is not a normal f32.
const MIN_ARG: f32 = -87.336_54;
/// Above this the result overflows f32.
const MAX_ARG: f32 = 88.722_83;

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
    // Round to nearest without calling a library function: adding 1.5 * 2^23 pushes
    // the fraction out of the mantissa. |x * log2 e| < 128 so this is exact.
    const SHIFTER: f32 = 12_582_912.0;
    let t = x * LOG2_E + SHIFTER;
    let n = t - SHIFTER;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = P0 + r * (P1 + r * (P2 + r * (P3 + r * (P4 + r * P5))));
    // n is in [-126, 128]; build 2^n in two halves so n = 128 and n = -126 stay exact.
    let ni = n as i32;
    let half = ni >> 1;
    let s1 = f32::from_bits(((half + 127) as u32) << 23);
    let s2 = f32::from_bits(((ni - half + 127) as u32) << 23);
    p * s1 * s2
}

/// e^(-t) for the distance kernels: t = gamma * distance, normally >= 0.
///
/// Negative t (a squared distance that came out slightly below 0 through
/// rounding) is treated as 0; t above 87.33 or NaN (an infinite distance) give
/// +0.0. Otherwise the error bound of [`exp`] holds. One comparison on the
/// common path.
#[inline(always)]
pub fn exp_neg(t: f32) -> f32 {
    if t < -MIN_ARG {
        exp(-(if t > 0.0 { t } else { 0.0 }))
    } else {
        0.0
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
        assert!(
            worst <= EXP_MAX_REL_ERROR as f64,
            "worst relative error {worst:e}"
        );
    }

    #[test]
    fn edges_flush_overflow_and_propagate_nan() {
        assert_eq!(exp(-88.0), 0.0);
        assert_eq!(exp(-1.0e30), 0.0);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(89.0), f32::INFINITY);
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        assert!(exp(f32::NAN).is_nan());
        assert!(exp(MIN_ARG) >= f32::MIN_POSITIVE);
        assert!(exp(MAX_ARG).is_finite());
    }

    #[test]
    fn exp_neg_handles_rounding_far_points_and_nan() {
        assert_eq!(exp_neg(-1e-7), 1.0 * exp(0.0));
        assert_eq!(exp_neg(2.0), exp(-2.0));
        assert_eq!(exp_neg(88.0), 0.0);
        assert_eq!(exp_neg(f32::INFINITY), 0.0);
        assert_eq!(exp_neg(f32::NAN), 0.0);
    }
}
