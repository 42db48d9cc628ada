//! The rbf map of a kernel-matrix column (the fit's kernel matrices spend most of
//! their time here), on an e^x that is branch-free so that the loop vectorises.
//! The loop is compiled once per [`simd::Level`] and the widest the CPU runs is
//! chosen at run time.
//!
//! Method: x = k ln 2 + r with k = round(x / ln 2) (by adding and subtracting
//! 1.5 * 2^52, which needs no rounding instruction) and ln 2 split in two parts
//! (Cody-Waite), e^r by its Taylor polynomial of degree 13 (Estrin's scheme;
//! |r| <= ln 2 / 2, so the truncation is below 5e-18 relative), times 2^k built
//! from the exponent bits. Error: a few units in the last place (the tests check 8 eps against `f64::exp`
//! for both compilations). Arguments below -708 (results below 2^-1021) give 0;
//! rbf values that small are zero to any tolerance used here. NaN stays NaN.

use super::simd::{self, madd, Level, NATIVE_FMA};

/// ln 2 = LN2_HI + LN2_LO, LN2_HI with its low 21 bits zero (k LN2_HI is exact).
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
/// The rest of ln 2.
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// 1.5 * 2^52: adding it rounds to an integer, kept in the low mantissa bits.
const ROUND_SHIFT: f64 = 6_755_399_441_055_744.0;
/// Smallest argument whose result is kept (e^-708 > 2^-1022).
const MIN_ARG: f64 = -708.0;
/// 1/i! for i = 2 up to 13.
const TAYLOR: [f64; 12] = [
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5_040.0,
    1.0 / 40_320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];

/// e^v for v <= 0 (see the module documentation; positive v are not supported
/// beyond 709).
#[inline(always)]
fn exp_nonpositive<const FMA: bool>(v: f64) -> f64 {
    let x = v.max(MIN_ARG);
    let shifted = madd::<FMA>(x, core::f64::consts::LOG2_E, ROUND_SHIFT);
    let k = shifted - ROUND_SHIFT;
    let r = madd::<FMA>(-k, LN2_LO, madd::<FMA>(-k, LN2_HI, x));
    // p(r) = sum_i r^i / (i + 2)!, by Estrin's scheme (pairs, then powers r^2,
    // r^4, r^8): a dependency chain of 5 operations instead of Horner's 11.
    let [c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13] = TAYLOR;
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let q0 = madd::<FMA>(c3, r, c2);
    let q1 = madd::<FMA>(c5, r, c4);
    let q2 = madd::<FMA>(c7, r, c6);
    let q3 = madd::<FMA>(c9, r, c8);
    let q4 = madd::<FMA>(c11, r, c10);
    let q5 = madd::<FMA>(c13, r, c12);
    let s0 = madd::<FMA>(q1, r2, q0);
    let s1 = madd::<FMA>(q3, r2, q2);
    let s2 = madd::<FMA>(q5, r2, q4);
    let p = madd::<FMA>(s2, r8, madd::<FMA>(s1, r4, s0));
    let er = madd::<FMA>(r2, p, r) + 1.0;
    // The low 12 bits of `shifted` hold k (two's complement, |k| <= 1022), so its
    // bits plus the exponent bias, shifted into place, are the bits of 2^k.
    let scale = f64::from_bits(shifted.to_bits().wrapping_add(1023) << 52);
    let y = er * scale;
    if v >= MIN_ARG {
        y
    } else if v.is_nan() {
        v
    } else {
        0.0
    }
}

/// The rbf map of one column, generic over fusing.
#[inline(always)]
fn rbf_column_impl<const FMA: bool>(col: &mut [f64], row_sq: &[f64], col_sq: f64, gamma: f64) {
    for (v, &sq) in col.iter_mut().zip(row_sq) {
        let dist = madd::<FMA>(-2.0, *v, sq + col_sq).max(0.0);
        *v = exp_nonpositive::<FMA>(-gamma * dist);
    }
}

/// [`rbf_column_impl`] compiled with AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn rbf_column_avx2(col: &mut [f64], row_sq: &[f64], col_sq: f64, gamma: f64) {
    rbf_column_impl::<true>(col, row_sq, col_sq, gamma);
}

/// [`rbf_column_impl`] compiled with AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn rbf_column_avx512(col: &mut [f64], row_sq: &[f64], col_sq: f64, gamma: f64) {
    rbf_column_impl::<true>(col, row_sq, col_sq, gamma);
}

/// The rbf kernel from inner products, in place: each entry v of `col` (the inner
/// product of row point i and the column's point) becomes
/// exp(-gamma max(‖a_i‖² + ‖b‖² - 2 v, 0)) (the squared distance clamped at 0, as
/// scikit-learn's `euclidean_distances`), with `row_sq[i]` = ‖a_i‖² and `col_sq` =
/// ‖b‖². Entries past `row_sq` are left as they are.
pub(crate) fn rbf_column(col: &mut [f64], row_sq: &[f64], col_sq: f64, gamma: f64) {
    rbf_column_at(simd::level(), col, row_sq, col_sq, gamma);
}

/// [`rbf_column`] in the compilation of `level`, one from
/// [`simd::supported_levels`] (with `symprod::panels_at`, the fit's unsafe code:
/// calling a function compiled for CPU features checked at run time).
#[allow(unsafe_code)]
fn rbf_column_at(level: Level, col: &mut [f64], row_sq: &[f64], col_sq: f64, gamma: f64) {
    match level {
        // SAFETY: `level` is one that `supported_levels` found on this CPU, so it
        // has the features each function is compiled for.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { rbf_column_avx512(col, row_sq, col_sq, gamma) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2Fma => unsafe { rbf_column_avx2(col, row_sq, col_sq, gamma) },
        _ => rbf_column_impl::<NATIVE_FMA>(col, row_sq, col_sq, gamma),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// Relative error bound of the approximation, against `f64::exp`.
    const EXP_REL_TOL: f64 = 8.0 * f64::EPSILON;

    /// e^v over a slice through one compilation of [`exp_nonpositive`].
    fn exp_slice<const FMA: bool>(values: &mut [f64]) {
        for v in values.iter_mut() {
            *v = exp_nonpositive::<FMA>(*v);
        }
    }

    /// e^v over a slice through [`rbf_column_at`] at `level` (squared norms 0,
    /// gamma 1, inner product v / 2: the squared distance is -v).
    fn exp_at(level: Level, values: &mut [f64]) {
        values.iter_mut().for_each(|v| *v /= 2.0);
        let zeros = std::vec![0.0; values.len()];
        rbf_column_at(level, values, &zeros, 0.0, 1.0);
    }

    /// The arguments of the accuracy tests: 0 down to -720 in steps of 3.6e-3.
    fn arguments() -> Vec<f64> {
        (0..200_001).map(|i| -(i as f64) * 3.6e-3).collect()
    }

    fn worst_relative_error(exp: impl Fn(&mut [f64])) -> f64 {
        let xs = arguments();
        let mut ys = xs.clone();
        exp(&mut ys);
        let mut worst = 0.0f64;
        for (&x, &y) in xs.iter().zip(&ys) {
            let e = x.exp();
            if e > 1e-300 {
                worst = worst.max((y - e).abs() / e);
            }
        }
        worst
    }

    #[test]
    fn exp_is_within_a_few_ulps_of_std_in_every_compilation() {
        for (name, worst) in [
            ("unfused", worst_relative_error(exp_slice::<false>)),
            ("fused", worst_relative_error(exp_slice::<true>)),
        ] {
            assert!(worst < EXP_REL_TOL, "{name}: {worst:e}");
        }
        for level in simd::supported_levels() {
            let worst = worst_relative_error(|v| exp_at(level, v));
            assert!(worst < EXP_REL_TOL, "{level:?}: {worst:e}");
        }
    }

    /// The fused compilations (AVX2 + FMA, AVX-512, and the generic fused loop)
    /// give the same bits.
    #[test]
    fn fused_compilations_agree_bit_for_bit() {
        let mut reference = arguments();
        exp_slice::<true>(&mut reference);
        for level in simd::supported_levels() {
            if level == Level::Baseline && !NATIVE_FMA {
                continue;
            }
            let mut got = arguments();
            exp_at(level, &mut got);
            let differ = got
                .iter()
                .zip(&reference)
                .filter(|(a, b)| a.to_bits() != b.to_bits())
                .count();
            assert_eq!(differ, 0, "{level:?}: {differ} values differ");
        }
    }

    #[test]
    fn exp_edges() {
        let edges = [
            0.0,
            -0.0,
            -1e-300,
            -708.0,
            -708.5,
            -1e6,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for exp in [exp_slice::<false>, exp_slice::<true>] {
            let mut edge = edges;
            exp(&mut edge);
            assert_eq!(edge[..3], [1.0, 1.0, 1.0]);
            let e708 = (-708.0f64).exp();
            assert!((edge[3] - e708).abs() < EXP_REL_TOL * e708, "{:e}", edge[3]);
            assert_eq!(edge[4..7], [0.0, 0.0, 0.0]);
            assert!(edge[7].is_nan());
        }
    }

    #[test]
    fn rbf_column_matches_the_formula() {
        // Squared distances 0.5 + 0 - 0, 1 + 0.5 - 1, 4 + 0.5 - 4, 2 + 0.5 - 2.
        let row_sq = [0.0, 1.0, 4.0, 2.0];
        let mut col = [0.0, 0.5, 2.0, 1.0];
        rbf_column(&mut col, &row_sq, 0.5, 0.7);
        let want = (-0.7f64 * 0.5).exp();
        for (i, &got) in col.iter().enumerate() {
            assert!((got - want).abs() < EXP_REL_TOL * want, "{i}: {got} {want}");
        }
        // A negative rounded distance is clamped at 0: k = 1.
        let mut neg = [1.0 + 1e-15];
        rbf_column(&mut neg, &[1.0], 1.0, 3.0);
        assert_eq!(neg, [1.0]);
    }
}
