//! f32 exponentials for the kernels (and tanh and sqrt), the same code on host
//! and device.
//!
//! The projection uses [`exp2_neg`] (and [`exp_neg`] on top of it): 2^-w with
//! one rounding step and a degree-5 polynomial, about 15 instructions on a
//! Cortex-M4F; its stated bounds are in [`EXP_NEG_MAX_REL_ERROR`], tested
//! below against f64.
//!
//! There is one exponential: every kernel that needs e^x (rbf, laplacian,
//! sigmoid through [`tanh`]) goes through [`exp2_neg`].

const LOG2_E: f32 = core::f32::consts::LOG2_E;

// Minimax coefficients of 2^f on [-1/2, 1/2] with the constant term 1 exactly
// (used for 2^-f with alternating signs)
// (relative error 9.2e-8 in exact arithmetic, 2.1e-7 evaluated in f32 as below).
// Not ln 2 (0.693_147_2): the minimax coefficient is slightly smaller.
#[allow(clippy::approx_constant)]
const Q1: f32 = 0.693_147;
const Q2: f32 = 0.240_222_42;
const Q3: f32 = 0.055_507_336;
const Q4: f32 = 0.009_671_513;
const Q5: f32 = 0.001_326_472_7;

/// 2^23: adding it to w in [0, 2^23) rounds w to an integer n and leaves n in
/// the low mantissa bits (its bits are 0x4B00_0000 + n); also a Thumb-2
/// immediate, so the range check below needs no constant load.
const SHIFTER_POS: f32 = 8_388_608.0;

/// 2^-w for the kernels' exponentials, the callers having folded log2(e) into
/// their scale (e^(-t) is `exp2_neg(t * LOG2_E)`); w is normally >= 0.
///
/// For 0 <= w < 124.5: n = round(w) and f = w - n (both exact, |f| <= 1/2), a
/// degree-5 polynomial for 2^-f (Horner; no division, no table), and 2^-n subtracted
/// into the result's exponent field with one integer operation; relative error
/// (against 2^-w for the f32 argument w) at most `EXP_NEG_MAX_REL_ERROR.0`
/// ([`EXP_NEG_MAX_REL_ERROR`]). The range check is one integer comparison on
/// the bits the rounding already produced. w >= 124.5 (results below 3.4e-38)
/// and NaN give +0.0; w < -1/4 gives 1.0 (and w in [-1/4, 0) gives 2^-w): in the
/// kernels a negative w can only come
/// from a distance that rounded below 0, that is a distance that is 0 to working
/// precision.
#[inline(always)]
pub fn exp2_neg(w: f32) -> f32 {
    exp2_neg_with(w, EXP2_BLOCK)
}

/// The constants of [`exp2_neg`] as one block of 8 floats (the shifter 2^23,
/// 1, the polynomial's Q1..Q5, and the shifter again, which the wide
/// Laplacian runs of `project/rowloop/asm.rs` add the exponent into), so that the
/// register passes load them with one instruction per point
/// (`project::loads::load8`).
pub(crate) static EXP2_BLOCK: [f32; 8] = [SHIFTER_POS, 1.0, Q1, Q2, Q3, Q4, Q5, SHIFTER_POS];

/// [`exp2_neg`] with its constants given as [`EXP2_BLOCK`] (the same
/// operations in the same order, so the same result bit for bit).
#[inline(always)]
pub(crate) fn exp2_neg_with(w: f32, k: [f32; 8]) -> f32 {
    let [shifter, one, q1, q2, q3, q4, q5, _] = k;
    let t = w + shifter;
    // For w in [0, 2^23): t in [2^23, 2^24), whose bits are 0x4B00_0000 + n.
    let n_bits = t.to_bits().wrapping_sub(SHIFTER_POS.to_bits());
    if n_bits > 124 {
        return if w < 0.0 { 1.0 } else { 0.0 };
    }
    // g = n - w = -f, so that 2^-f = 2^g is a polynomial with positive
    // coefficients, in Horner form: each step is one multiply-add whose addend
    // is a constant just loaded (so it is overwritten, not copied).
    let g = (t - shifter) - w;
    let p = one + g * (q1 + g * (q2 + g * (q3 + g * (q4 + g * q5))));
    // p is in [0.70, 1.42] (exponent field 126 or 127) and n in [0, 124], so the
    // exponent field stays in [2, 127]: a normal f32.
    f32::from_bits(p.to_bits().wrapping_sub(n_bits << 23))
}

/// Stated bound on the relative error of [`exp_neg`] at t >= 0, as a constant
/// plus a part proportional to t (the roundings of log2(e) and of t·log2(e) in
/// f32); the constant alone bounds [`exp2_neg`] against 2^-w for its f32 argument.
pub const EXP_NEG_MAX_REL_ERROR: (f32, f32) = (2.5e-7, 1.2e-7);

/// e^(-t) for the distance kernels: t = gamma * distance, normally >= 0.
///
/// [`exp2_neg`] of t·log2(e): relative error at most
/// `EXP_NEG_MAX_REL_ERROR.0 + EXP_NEG_MAX_REL_ERROR.1 * t` for 0 <= t < 86.3
/// (for the kernel values that matter, t of order 1, this is below 4e-7; the
/// absolute error is below 3e-7 for every t >= 0). t >= 86.3 or NaN (an infinite
/// distance) give +0.0; t < 0 gives 1.0 (see [`exp2_neg`]).
#[inline(always)]
pub fn exp_neg(t: f32) -> f32 {
    exp2_neg(t * LOG2_E)
}

/// Stated bound on the absolute error of [`tanh`].
pub const TANH_MAX_ABS_ERROR: f32 = 4.0e-7;

/// tanh(t) in f32 through [`exp_neg`]: (1 - e^(-2|t|)) / (1 + e^(-2|t|)) with the sign
/// of t. Absolute error at most [`TANH_MAX_ABS_ERROR`] (tested against f64); the
/// kernel value feeds sums, so the absolute error is the one that matters.
/// |t| > 9 gives exactly ±1; NaN gives NaN.
#[inline]
pub fn tanh(t: f32) -> f32 {
    let a = if t < 0.0 { -t } else { t };
    tanh_from(t, exp_neg(2.0 * a))
}

/// [`tanh`] of t given `e` = [`exp_neg`]`(2|t|)` (so that a caller with its own
/// exponential shares it).
#[inline]
pub(crate) fn tanh_from(t: f32, e: f32) -> f32 {
    // No branch for small or large |t|: below 1/4096 the cancellation in
    // 1 - e costs at most the absolute error of e (2.5e-7 relative, about
    // 1.3e-7 here), and past 8.7, e < 2^-25 rounds 1 - e and 1 + e to 1.
    let r = (1.0 - e) / (1.0 + e);
    if t.is_nan() {
        t
    } else if t < 0.0 {
        -r
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

    // The larger of two error measures, NaN as soon as either is NaN (the
    // fold every test shares; `f64::max` would drop a NaN and let a broken
    // result pass).
    use kpca_testkit::nan_max as worse;

    /// Under Miri (an interpreter, about 10^5 times slower) the sweeps below
    /// visit every `MIRI_STRIDE`-th of their points: the same code on a sample.
    const MIRI_STRIDE: u32 = if cfg!(miri) { 4099 } else { 1 };

    #[test]
    fn exp2_neg_and_exp_neg_are_within_their_stated_bounds() {
        let mut worst = 0.0f64;
        // 2^-w over [0, 124.5), every 61st f32, and densely near 0.
        let mut bits = 0u32;
        while f32::from_bits(bits) < 124.4 {
            let w = f32::from_bits(bits);
            let want = (-(w as f64)).exp2();
            worst = worse(worst, ((exp2_neg(w) as f64 - want) / want).abs());
            bits += 61 * MIRI_STRIDE;
        }
        for i in (0..=600_000).step_by(MIRI_STRIDE as usize) {
            let w = i as f32 * 3.0e-6;
            let want = (-(w as f64)).exp2();
            worst = worse(worst, ((exp2_neg(w) as f64 - want) / want).abs());
        }
        assert!(
            worst <= EXP_NEG_MAX_REL_ERROR.0 as f64,
            "exp2_neg: worst relative error {worst:e}"
        );
        assert_eq!(exp2_neg(124.6), 0.0);
        assert!(exp2_neg(124.4) > 0.0);
        assert_eq!(exp2_neg(f32::NAN), 0.0);
        assert_eq!(exp2_neg(f32::INFINITY), 0.0);
        assert_eq!(exp2_neg(-1e-30), 1.0);
        assert_eq!(exp2_neg(f32::NEG_INFINITY), 1.0);
        // e^(-t) over [0, 86.2], every 61st f32.
        let (c0, c1) = EXP_NEG_MAX_REL_ERROR;
        let mut bits = 0u32;
        let mut worst_abs = 0.0f64;
        while f32::from_bits(bits) < 86.2 {
            let t = f32::from_bits(bits);
            let want = (-(t as f64)).exp();
            let err = (exp_neg(t) as f64 - want).abs();
            assert!(
                err <= (c0 as f64 + c1 as f64 * t as f64) * want,
                "exp_neg({t}): {} vs {want}",
                exp_neg(t)
            );
            worst_abs = worse(worst_abs, err);
            bits += 61 * MIRI_STRIDE;
        }
        assert!(
            worst_abs < 3e-7,
            "exp_neg: worst absolute error {worst_abs:e}"
        );
    }

    #[test]
    fn tanh_is_within_its_absolute_error_bound() {
        let mut worst = 0.0f64;
        for i in (-400_000..=400_000).step_by(MIRI_STRIDE as usize) {
            let t = i as f32 * 3.0e-5;
            worst = worse(worst, (tanh(t) as f64 - (t as f64).tanh()).abs());
        }
        for &t in &[9.5f32, -20.0, 1e30, -1e30, f32::INFINITY] {
            worst = worse(worst, (tanh(t) as f64 - (t as f64).tanh()).abs());
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
        assert_eq!(exp_neg(-1e30), 1.0);
        assert!((exp_neg(2.0) as f64 - (-2.0f64).exp()).abs() < 1e-7);
        assert_eq!(exp_neg(0.0), 1.0);
        assert_eq!(exp_neg(86.5), 0.0);
        assert_eq!(exp_neg(88.0), 0.0);
        assert_eq!(exp_neg(1e30), 0.0);
        assert_eq!(exp_neg(f32::INFINITY), 0.0);
        assert_eq!(exp_neg(f32::NAN), 0.0);
    }
}
