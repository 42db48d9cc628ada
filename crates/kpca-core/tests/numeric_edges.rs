//! Numeric edges of the projection: overflow of the polynomial kernel (an
//! error, nothing written), RBF and Laplacian far from every stored point
//! (kernel values underflow to exactly 0, so the coordinates are exactly b),
//! denormal inputs and model values, and huge-but-finite inputs for every
//! kernel: every call returns finite values or a clear error, never NaN or
//! infinity as Ok. Case counts are reduced under Miri.

use kpca_testkit as common;

use common::{all_kernels, path_kernels, Lcg, TestModel};
use kpca_core::{Error, Kernel, ModelRef};

/// Same scale-relative tolerance as tests/core_model.rs.
const PROJECTION_REL_TOL: f64 = 2e-5;
const SENTINEL: f32 = -12345.5;

/// Values whose squares (or products with the stored points) overflow f32.
const HUGE: [f32; 6] = [1e30, -1e30, f32::MAX, f32::MIN, 1e19, 2e19];
const DENORMALS: [f32; 5] = [1e-40, -1e-40, 1e-45, -1e-45, f32::MIN_POSITIVE / 3.0];

/// Under Miri, a few of `all` (every `step`-th, from the first).
fn some<T: Copy>(all: &[T], step: usize) -> Vec<T> {
    all.iter()
        .step_by(if cfg!(miri) { step } else { 1 })
        .copied()
        .collect()
}

fn shapes() -> &'static [(usize, usize, usize, bool)] {
    if cfg!(miri) {
        &[(3, 5, 2, false), (4, 6, 2, true)]
    } else {
        &[
            (3, 5, 2, false),
            (4, 9, 3, true),
            (8, 37, 4, false),
            (5, 20, 16, true),
        ]
    }
}

/// Every call on `x` (length d): each Ok result is finite, each failure is
/// `NonFiniteResult` (or `NonFiniteInput` for non-finite x) and writes nothing,
/// the calls agree with each other, and the batch of [x0, x] writes row 0 when
/// it fails on row 1. Returns the fused call's result.
fn finite_or_clear_error(
    view: &ModelRef<'_>,
    x: &[f32],
    x0: &[f32],
) -> Result<(Vec<f32>, f32), Error> {
    let k = view.n_components();
    let want_err = if x.iter().all(|v| v.is_finite()) {
        Error::NonFiniteResult
    } else {
        Error::NonFiniteInput
    };
    let mut out = vec![SENTINEL; k + 1];
    let fused = view.project_and_score(x, &mut out);
    match fused {
        Ok(e) => {
            assert!(e.is_finite(), "score {e} returned as Ok for {x:?}");
            assert!(
                out[..k].iter().all(|v| v.is_finite()),
                "{out:?} returned as Ok for {x:?}"
            );
            assert_eq!(out[k], SENTINEL);
        }
        Err(e) => {
            assert_eq!(e, want_err, "{x:?}");
            assert!(
                out.iter().all(|&v| v == SENTINEL),
                "written on error: {out:?}"
            );
        }
    }
    let mut y = vec![SENTINEL; k];
    match view.project(x, &mut y) {
        Ok(()) => assert!(y.iter().all(|v| v.is_finite())),
        Err(e) => {
            assert_eq!(e, want_err);
            assert!(y.iter().all(|&v| v == SENTINEL));
        }
    }
    let score = view.anomaly_score(x);
    if let Ok(s) = score {
        assert!(s.is_finite());
    }
    assert_eq!(score.map(f32::to_bits), fused.map(f32::to_bits));
    if fused.is_ok() {
        assert_eq!(&y, &out[..k]);
    }
    if view.threshold() > 0.0 {
        assert_eq!(view.is_anomaly(x), score.map(|s| s > view.threshold()));
    }
    // Batch: x0, then x. Rows are written up to the first failing one.
    let xs: Vec<f32> = x0.iter().chain(x).copied().collect();
    let mut outs = vec![SENTINEL; 2 * k];
    let mut row0 = vec![SENTINEL; k];
    let r0 = view.project(x0, &mut row0);
    let r1 = view.project(x, &mut vec![0.0; k]);
    match view.project_batch(&xs, &mut outs) {
        Ok(n) => {
            assert_eq!(n, 2);
            assert!(r0.is_ok() && r1.is_ok());
            assert_eq!(&outs[..k], &row0[..]);
            assert_eq!(&outs[k..], &y[..]);
        }
        Err(Error::NonFiniteResult) => {
            assert!(r0.is_err() || r1.is_err());
            if r0.is_ok() {
                assert_eq!(
                    &outs[..k],
                    &row0[..],
                    "the rows before the failing one are written"
                );
            }
            assert!(outs[k..].iter().all(|&v| v == SENTINEL));
        }
        Err(e) => {
            assert_eq!(e, Error::NonFiniteInput);
            assert!(outs.iter().all(|&v| v == SENTINEL));
        }
    }
    fused.map(|e| (out[..k].to_vec(), e))
}

fn assert_matches_reference(model: &TestModel, x: &[f32], y: &[f32], e: f32) {
    let (y_ref, e_ref) = model.reference(x);
    let scale =
        1.0 + kpca_testkit::max_abs(&y_ref) + model.a.iter().map(|v| v.abs() as f64).sum::<f64>();
    for (got, want) in y.iter().zip(&y_ref) {
        assert!(
            (*got as f64 - want).abs() <= PROJECTION_REL_TOL * scale,
            "{:?}: {got} vs {want} for {x:?}",
            model.kernel
        );
    }
    assert!(
        (e as f64 - e_ref).abs() <= PROJECTION_REL_TOL * scale * scale,
        "{:?}: score {e} vs {e_ref} for {x:?}",
        model.kernel
    );
}

/// Shapes that reach every path of the projection (register pass with chunks
/// of 8 features and a tail, the RBF path for d <= 8 and k <= 4, the
/// standardised path for d > 8, the first four components in registers and the
/// rest, k = 16, a single point): the reference comparison in the normal range
/// and, under Miri, the raw-pointer reads at every boundary.
const PATH_SHAPES: [(usize, usize, usize, bool); 10] = [
    (1, 1, 1, false),
    (3, 1, 4, true),
    (4, 5, 4, false),
    (7, 3, 5, true),
    (8, 9, 3, false),
    (8, 2, 16, true),
    (9, 5, 4, false),
    (13, 6, 2, true),
    (16, 3, 1, false),
    (17, 4, 16, false),
];

#[test]
fn every_projection_path_matches_the_formulas() {
    let mut g = Lcg(123);
    for kernel in path_kernels() {
        for (i, &(d, m, k, standardized)) in PATH_SHAPES.iter().enumerate() {
            let model = TestModel::random(kernel, d, m, k, standardized, 300 + i as u64);
            let view = model.view();
            let xs = g.vec(3 * d, 1.2);
            let mut outs = vec![SENTINEL; 3 * k];
            let mut scores = vec![SENTINEL; 3];
            assert_eq!(view.project_batch(&xs, &mut outs), Ok(3));
            assert_eq!(view.anomaly_score_batch(&xs, &mut scores), Ok(3));
            for (r, x) in xs.chunks(d).enumerate() {
                let mut y = vec![SENTINEL; k + 1];
                let e = view.project_and_score(x, &mut y).expect("finite");
                assert_eq!(y[k], SENTINEL);
                assert_matches_reference(&model, x, &y[..k], e);
                assert_eq!(&outs[r * k..(r + 1) * k], &y[..k], "{kernel:?} {d} {m} {k}");
                assert_eq!(scores[r].to_bits(), e.to_bits());
            }
        }
    }
}

#[test]
fn polynomial_overflow_is_an_error_and_writes_nothing() {
    for degree in some(&[2u32, 3, 8, 16], 3) {
        let kernel = Kernel::Polynomial {
            gamma: 1.0,
            degree,
            coef0: 1.0,
        };
        for &(d, m, k, standardized) in shapes() {
            let model = TestModel::random(kernel, d, m, k, standardized, 7 + u64::from(degree));
            let view = model.view();
            let x0 = vec![0.1f32; d];
            let mut overflowed = 0;
            for scale in some(&[1e3f32, 1e5, 1e10, 1e19, 1e30, f32::MAX], 2) {
                for sign in [1.0f32, -1.0] {
                    let x = vec![sign * scale; d];
                    if finite_or_clear_error(&view, &x, &x0).is_err() {
                        overflowed += 1;
                    }
                }
            }
            // (gamma x'x + coef0)^degree is past f32 for 1e30 at any degree >= 2.
            assert!(overflowed >= 2, "degree {degree}: {overflowed} overflows");
        }
    }
    // Degree 16 at 1e5 overflows: nothing written, the C status is 25.
    let model = TestModel::random(
        Kernel::Polynomial {
            gamma: 1.0,
            degree: 16,
            coef0: 1.0,
        },
        4,
        5,
        2,
        false,
        13,
    );
    let mut out = [SENTINEL; 2];
    assert_eq!(
        model.view().project(&[1e5; 4], &mut out),
        Err(Error::NonFiniteResult)
    );
    assert_eq!(out, [SENTINEL; 2]);
    assert_eq!(Error::NonFiniteResult.code(), 25);
}

#[test]
fn rbf_and_laplacian_far_from_every_point_give_exactly_the_offsets() {
    let kernels = [
        Kernel::Rbf { gamma: 0.25 },
        Kernel::Rbf { gamma: 1e-3 },
        Kernel::Laplacian { gamma: 0.3 },
        Kernel::Laplacian { gamma: 1e-3 },
    ];
    for kernel in some(&kernels, 2) {
        for &(d, m, k, standardized) in shapes() {
            let model = TestModel::random(kernel, d, m, k, standardized, 31);
            let view = model.view();
            let x0 = vec![0.2f32; d];
            // sum of b^2 in the order the projection adds it.
            let sum_sq = model.b.iter().fold(0.0f32, |acc, v| acc + v * v);
            for scale in some(&[1e5f32, 1e10, 1e18, 1e30, f32::MAX], 2) {
                for sign in [1.0f32, -1.0] {
                    let x: Vec<f32> = (0..d)
                        .map(|j| if j % 2 == 0 { sign * scale } else { 0.5 })
                        .collect();
                    let (y, e) = finite_or_clear_error(&view, &x, &x0)
                        .unwrap_or_else(|err| panic!("{kernel:?} at {scale}: {err:?}"));
                    assert_eq!(y, model.b, "{kernel:?} at {scale}: every kernel value is 0");
                    assert_eq!(e, (1.0 + model.s) - sum_sq, "{kernel:?} at {scale}");
                }
            }
        }
    }
}

#[test]
fn denormal_inputs_are_finite_and_match_the_formulas() {
    let mut g = Lcg(77);
    for kernel in all_kernels() {
        for &(d, m, k, standardized) in shapes() {
            let model = TestModel::random(kernel, d, m, k, standardized, 41);
            let view = model.view();
            let x0 = g.vec(d, 1.0);
            for (i, &v) in some(&DENORMALS, 2).iter().enumerate() {
                // All denormal, and one denormal among normal values.
                let all = vec![v; d];
                let mut one = g.vec(d, 1.0);
                one[i % d] = v;
                for x in [all, one] {
                    let result = finite_or_clear_error(&view, &x, &x0);
                    // A non-zero vector whose squared norm underflows has lost
                    // its direction in f32: the cosine kernel reports it (see
                    // cosine_is_scale_invariant_at_the_extremes).
                    let tiny = x.iter().map(|v| v * v).sum::<f32>() < f32::MIN_POSITIVE;
                    if kernel == Kernel::Cosine && tiny && !standardized {
                        assert_eq!(result.map(|_| ()), Err(Error::NonFiniteResult), "{x:?}");
                        continue;
                    }
                    let (y, e) =
                        result.unwrap_or_else(|err| panic!("{kernel:?}: {err:?} for {x:?}"));
                    assert_matches_reference(&model, &x, &y, e);
                }
            }
        }
    }
}

#[test]
fn denormal_model_values_load_and_project() {
    let mut g = Lcg(91);
    for kernel in all_kernels() {
        for &(d, m, k, standardized) in shapes() {
            let mut model = TestModel::random(kernel, d, m, k, standardized, 53);
            // Denormals in every section: a whole stored point, A, b, c, s,
            // the eigenvalues, the mean, and an inverse std (still > 0).
            for v in &mut model.points[..d] {
                *v = 1e-40;
            }
            model.norms[0] = 0.0; // its squared norm underflows to 0
            model.a[0] = -1e-42;
            model.b[0] = 1e-45;
            model.c[1 % m] = 1e-39;
            model.s = 1e-41;
            model.eigenvalues[0] = 1e-44;
            if let Some((mean, inv_std)) = &mut model.standardize {
                mean[0] = -1e-40;
                inv_std[d - 1] = 1e-38;
            }
            let blob = model.blob();
            let loaded = ModelRef::from_bytes(&blob).expect("denormals are finite model values");
            assert_eq!(loaded.parts().points[0].to_bits(), 1e-40f32.to_bits());
            let x0 = g.vec(d, 1.0);
            for _ in 0..if cfg!(miri) { 1 } else { 4 } {
                let x = g.vec(d, 1.2);
                let (y, e) = finite_or_clear_error(&loaded, &x, &x0).expect("finite");
                // The cosine with a stored point whose squared norm underflows is 0
                // in f32; the f64 formula sees a tiny, non-zero norm.
                if kernel != Kernel::Cosine {
                    assert_matches_reference(&model, &x, &y, e);
                }
            }
        }
    }
}

#[test]
fn huge_finite_inputs_give_finite_results_or_a_clear_error_for_every_kernel() {
    let mut g = Lcg(5);
    let mut outcomes = std::collections::BTreeMap::new();
    for kernel in all_kernels() {
        for &(d, m, k, standardized) in shapes() {
            let model = TestModel::random(kernel, d, m, k, standardized, 61);
            let view = model.view();
            let x0 = g.vec(d, 1.0);
            for &h in &some(&HUGE, 2) {
                // All huge; one huge among normal values; alternating signs.
                let mut one = g.vec(d, 1.0);
                one[0] = h;
                let alternating: Vec<f32> =
                    (0..d).map(|j| if j % 2 == 0 { h } else { -h }).collect();
                for x in [vec![h; d], one, alternating] {
                    let r = finite_or_clear_error(&view, &x, &x0);
                    *outcomes
                        .entry((kernel.id().name(), r.is_ok()))
                        .or_insert(0u32) += 1;
                }
            }
        }
    }
    eprintln!("(kernel, Ok) -> cases: {outcomes:?}");
    // The distance kernels never fail: far inputs have kernel values 0.
    for name in ["rbf", "laplacian"] {
        assert!(
            !outcomes.contains_key(&(name, false)),
            "{name} failed on a huge input"
        );
    }
}

#[test]
fn inputs_near_the_limits_of_the_standardisation() {
    // x - mean overflows, or (x - mean) * inv_std does: still finite or an error.
    for kernel in all_kernels() {
        let mut model = TestModel::random(kernel, 4, 9, 3, true, 71);
        if let Some((mean, inv_std)) = &mut model.standardize {
            mean[0] = -f32::MAX;
            inv_std[1] = 1e30;
        }
        let view = model.view();
        let x0 = vec![0.0f32; 4];
        for x in [
            vec![f32::MAX, 1.0, 1.0, 1.0],
            vec![1.0, 1e10, 1.0, 1.0],
            vec![0.0, 0.0, 0.0, 0.0],
            vec![-f32::MAX, -1e30, 1e-40, 0.0],
        ] {
            let _ = finite_or_clear_error(&view, &x, &x0);
        }
    }
}

/// The cosine kernel is scale invariant: cos(t x, z) = cos(x, z) for t > 0.
/// In f32, inputs whose squared norm overflows (|x_j| above about 1.8e19) or
/// underflows below the normal range (below about 1e-19) lose the direction of
/// x: the projection must then report NonFiniteResult, never return zeros.
#[test]
fn cosine_is_scale_invariant_at_the_extremes() {
    let model = TestModel::random(Kernel::Cosine, 4, 9, 3, false, 81);
    let view = model.view();
    let u = [0.5f32, -0.25, 1.0, 0.75];
    let mut want = [0.0f32; 3];
    view.project(&u, &mut want).unwrap();
    for t in [1e20f32, 1e30, 1e-23, 1e-30] {
        let x: Vec<f32> = u.iter().map(|v| v * t).collect();
        let mut y = [SENTINEL; 3];
        match view.project(&x, &mut y) {
            Ok(()) => {
                for (a, b) in y.iter().zip(&want) {
                    assert!(
                        (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                        "t = {t}: {y:?} vs {want:?}"
                    );
                }
            }
            Err(e) => assert_eq!(e, Error::NonFiniteResult, "t = {t}"),
        }
    }
}
