//! The on-device fit (`kpca_core::learn`) by its own mathematics, without
//! fixtures: the training scores of the written model have the eigenvalues
//! as their sums of squares and are uncorrelated; the threshold is the
//! quantile it states; recalibration works on blobs and owned models; and
//! hostile shapes, parameters, buffers and values return errors, never a
//! panic or an unloadable model. (Accuracy against scikit-learn and the
//! host fit: kpca-fit/tests/device_fit.rs.)

use kpca_core::learn::{fit, fit_sizes, recalibrate, FitParams};
use kpca_core::{Error, Kernel, ModelRef, OwnedModel};
use kpca_testkit::{path_kernels, AlignedBytes, Lcg};

/// Sums of squares of the training scores against the eigenvalues, and
/// their cross products, relative to the largest eigenvalue.
const SCORE_GRAM_REL_TOL: f64 = 1e-4;

/// Rows of the tests' data (fewer under Miri).
fn rows() -> usize {
    if cfg!(miri) {
        12
    } else {
        60
    }
}

/// Two noisy rings in d = 3, off the origin.
fn rings(n: usize) -> Vec<f32> {
    let mut rng = Lcg(0x5eed);
    (0..n)
        .flat_map(|i| {
            let t = i as f32 * 0.37;
            let r = if i % 2 == 0 { 1.0 } else { 0.5 };
            [
                2.0 + r * libm::cosf(t) + 0.05 * rng.next_f32(),
                -1.0 + r * libm::sinf(t) + 0.05 * rng.next_f32(),
                0.3 * rng.next_f32(),
            ]
        })
        .collect()
}

fn params(kernel: Kernel, k: usize, standardize: bool) -> FitParams {
    FitParams {
        kernel,
        n_components: k,
        standardize,
        false_alarm_rate: 0.1,
    }
}

fn fit_blob(x: &[f32], d: usize, p: &FitParams) -> Result<AlignedBytes, Error> {
    let sizes = fit_sizes(x.len() / d, d, p)?;
    let mut ws = vec![0.0f32; sizes.workspace_floats];
    let mut out = AlignedBytes::zeroed(sizes.model_bytes);
    let report = fit(x, d, p, &mut ws, &mut out)?;
    assert_eq!(report.model_len, sizes.model_bytes);
    Ok(out)
}

#[test]
fn training_scores_have_the_eigenvalues_as_sums_of_squares_and_are_uncorrelated() {
    let (n, d, k) = (rows(), 3, 2);
    let x = rings(n);
    for kernel in path_kernels() {
        for standardize in [false, true] {
            let blob = fit_blob(&x, d, &params(kernel, k, standardize))
                .unwrap_or_else(|e| panic!("{kernel:?} std {standardize}: {e}"));
            let model = ModelRef::from_bytes(&blob).expect("loads");
            let mut ys = vec![0.0f32; n * k];
            model.project_batch(&x, &mut ys).expect("project");
            let mu = model.eigenvalues();
            let top = f64::from(mu[0]);
            for l in 0..k {
                assert!(
                    l == 0 || mu[l] <= mu[l - 1],
                    "{kernel:?}: eigenvalues sorted"
                );
                for j in 0..k {
                    let g: f64 = ys
                        .chunks(k)
                        .map(|y| f64::from(y[l]) * f64::from(y[j]))
                        .sum();
                    let want = if l == j { f64::from(mu[l]) } else { 0.0 };
                    let err = (g - want).abs() / top;
                    assert!(
                        err <= SCORE_GRAM_REL_TOL,
                        "{kernel:?} std {standardize}: ({l},{j}) {err:e}"
                    );
                }
                // scikit-learn's sign rule: each column's largest entry is positive.
                let peak =
                    ys.chunks(k)
                        .map(|y| y[l])
                        .fold(0.0f32, |m, v| if v.abs() > m.abs() { v } else { m });
                assert!(peak > 0.0, "{kernel:?}: sign of column {l}");
            }
            let centred = matches!(
                kernel,
                Kernel::Rbf { .. } | Kernel::Laplacian { .. } | Kernel::Linear
            );
            assert_eq!(model.is_standardized(), standardize || centred);
        }
    }
}

/// How many of the training rows score above the model's threshold.
fn flagged(model: &ModelRef<'_>, x: &[f32]) -> usize {
    x.chunks(model.dim())
        .filter(|r| model.is_anomaly(r).expect("score"))
        .count()
}

#[test]
fn the_threshold_is_the_stated_quantile_and_recalibration_moves_it() {
    let (n, d) = (rows(), 3);
    let x = rings(n);
    let mut blob = fit_blob(&x, d, &params(Kernel::Rbf { gamma: 0.5 }, 2, true)).expect("fit");
    let model = ModelRef::from_bytes(&blob).expect("loads");
    let t0 = model.threshold();
    assert!(t0 > 0.0);
    // The (1 - 0.1) quantile of n scores: at most ceil(0.1 (n - 1)) lie above it.
    let f0 = flagged(&model, &x);
    assert!(
        f0 <= (0.1 * (n - 1) as f32).ceil() as usize && f0 >= 1,
        "{f0}"
    );
    // Exactly numpy's linear quantile (computed here in f64) of the scores the
    // model gives its training rows.
    let mut scores = vec![0.0f32; n];
    model.anomaly_score_batch(&x, &mut scores).expect("scores");
    let mut sorted: Vec<f64> = scores.iter().map(|&v| f64::from(v)).collect();
    sorted.sort_by(f64::total_cmp);
    let pos = 0.9 * (n - 1) as f64;
    let (lo, frac) = (pos.floor() as usize, pos - pos.floor());
    let want = sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
    assert!(
        (f64::from(t0) - want).abs() <= 1e-6 * want,
        "threshold {t0} vs numpy's {want}"
    );
    let mut scratch = vec![0.0f32; n];
    let t1 = recalibrate(&mut blob, &x, 0.5, &mut scratch).expect("recalibrate");
    let model = ModelRef::from_bytes(&blob).expect("a recalibrated blob loads");
    assert_eq!(model.threshold(), t1);
    assert!(t1 < t0);
    let f1 = flagged(&model, &x);
    assert!(f1 >= n / 2 - 1 && f1 <= n / 2 + 1, "{f1} of {n}");
    // The same on an owned copy.
    let mut owned = OwnedModel::<3, 64, 2>::from_model_ref(&model).expect("copy");
    let t2 = owned.recalibrate(&x, 0.1, &mut scratch).expect("owned");
    assert_eq!(t2, t0);
    // Failures leave the blob as it was.
    let before = blob.clone();
    assert_eq!(
        recalibrate(&mut blob, &x, 0.0, &mut scratch),
        Err(Error::BadFalseAlarmRate)
    );
    assert_eq!(
        recalibrate(&mut blob, &x[..5], 0.1, &mut scratch),
        Err(Error::BatchLength)
    );
    assert_eq!(
        recalibrate(&mut blob, &[], 0.1, &mut scratch),
        Err(Error::TooFewRows)
    );
    assert_eq!(
        recalibrate(&mut blob, &x, 0.1, &mut scratch[..n - 1]),
        Err(Error::WorkspaceTooSmall)
    );
    let mut bad = x.clone();
    bad[4] = f32::NAN;
    assert_eq!(
        recalibrate(&mut blob, &bad, 0.1, &mut scratch),
        Err(Error::NonFiniteInput)
    );
    assert_eq!(blob, before);
}

#[test]
fn bad_shapes_parameters_and_buffers_have_their_own_errors() {
    let (n, d) = (rows(), 3);
    let x = rings(n);
    let p = params(Kernel::Rbf { gamma: 0.5 }, 2, false);
    let sizes = fit_sizes(n, d, &p).expect("sizes");
    let mut ws = vec![0.0f32; sizes.workspace_floats];
    let mut out = AlignedBytes::zeroed(sizes.model_bytes + 8 * 3 + 4);
    let mut run =
        |x: &[f32], d: usize, p: &FitParams, ws_len: usize, out_at: usize, out_len: usize| {
            fit(
                x,
                d,
                p,
                &mut ws[..ws_len],
                &mut out[out_at..out_at + out_len],
            )
            .map(|r| r.model_len)
        };
    let (w, m) = (sizes.workspace_floats, sizes.model_bytes);
    assert_eq!(run(&x, d, &p, w, 0, m), Ok(m));
    assert_eq!(run(&x, 0, &p, w, 0, m), Err(Error::ZeroDimension));
    assert_eq!(
        run(
            &x,
            d,
            &params(Kernel::Rbf { gamma: 0.5 }, 0, false),
            w,
            0,
            m
        ),
        Err(Error::ZeroDimension)
    );
    assert_eq!(
        run(
            &x,
            d,
            &params(Kernel::Rbf { gamma: 0.5 }, 17, false),
            w,
            0,
            m
        ),
        Err(Error::DimensionTooLarge)
    );
    assert_eq!(
        run(
            &x,
            d,
            &params(Kernel::Rbf { gamma: -1.0 }, 2, false),
            w,
            0,
            m
        ),
        Err(Error::BadKernelParameter)
    );
    let mut r = p;
    r.false_alarm_rate = f32::NAN;
    assert_eq!(run(&x, d, &r, w, 0, m), Err(Error::BadFalseAlarmRate));
    assert_eq!(
        run(&x[..x.len() - 1], d, &p, w, 0, m),
        Err(Error::BatchLength)
    );
    assert_eq!(run(&x[..d], d, &p, w, 0, m), Err(Error::TooFewRows));
    assert_eq!(
        run(&x[..2 * d], d, &p, w, 0, m),
        Err(Error::TooManyComponents)
    );
    assert_eq!(run(&x, d, &p, w - 1, 0, m), Err(Error::WorkspaceTooSmall));
    assert_eq!(run(&x, d, &p, w, 0, m - 1), Err(Error::BufferTooSmall));
    assert_eq!(run(&x, d, &p, w, 2, m), Err(Error::Misaligned));
    let mut bad = x.clone();
    bad[7] = f32::INFINITY;
    assert_eq!(run(&bad, d, &p, w, 0, m), Err(Error::NonFiniteInput));
    let mut flat = x.clone();
    flat.chunks_mut(d).for_each(|r| r[1] = 3.0);
    assert_eq!(
        run(
            &flat,
            d,
            &params(Kernel::Rbf { gamma: 0.5 }, 2, true),
            w,
            0,
            m + 8 * d
        ),
        Err(Error::ConstantColumn)
    );
    let huge = Kernel::Polynomial {
        gamma: 1.0,
        degree: 16,
        coef0: 1.0,
    };
    let far: Vec<f32> = x.iter().map(|v| v * 100.0).collect();
    assert_eq!(
        run(&far, d, &params(huge, 2, false), w, 0, m),
        Err(Error::NonFiniteResult)
    );
}

#[test]
fn kernel_values_far_from_one_are_solved_at_their_scale() {
    // The linear kernel on rows scaled by s has its eigenvalues scaled by s²:
    // at the ends of the f32 range (kernel values about 1e-40, subnormal, with
    // about 17 significant bits, and 1e36) the solver works on Kc scaled by a
    // power of two.
    let x = rings(rows());
    let base = fit_blob(&x, 3, &params(Kernel::Linear, 2, false)).expect("fit");
    let base = ModelRef::from_bytes(&base)
        .expect("loads")
        .eigenvalues()
        .to_vec();
    for (s, tol) in [(1e-20f32, 1e-3), (1e-18, 1e-4), (1e18, 1e-4)] {
        let scaled: Vec<f32> = x.iter().map(|v| v * s).collect();
        let blob = fit_blob(&scaled, 3, &params(Kernel::Linear, 2, false))
            .unwrap_or_else(|e| panic!("{s}: {e}"));
        let model = ModelRef::from_bytes(&blob).expect("loads");
        for (got, want) in model.eigenvalues().iter().zip(&base) {
            let want = f64::from(*want) * f64::from(s) * f64::from(s);
            let err = (f64::from(*got) - want).abs() / want;
            assert!(err <= tol, "scale {s}: {got} vs {want}");
        }
    }
    // Past the f32 range the fit says so.
    let huge: Vec<f32> = x.iter().map(|v| v * 1e20).collect();
    assert_eq!(
        fit_blob(&huge, 3, &params(Kernel::Linear, 2, false)).err(),
        Some(Error::NonFiniteResult)
    );
}

#[test]
fn more_components_than_positive_eigenvalues_are_refused() {
    // The linear kernel on 3-D rows: at most 3 positive eigenvalues.
    let x = rings(rows());
    assert!(fit_blob(&x, 3, &params(Kernel::Linear, 3, false)).is_ok());
    assert_eq!(
        fit_blob(&x, 3, &params(Kernel::Linear, 4, false)).err(),
        Some(Error::TooManyComponents)
    );
}

#[test]
fn random_hostile_inputs_never_panic_and_successes_load() {
    let mut rng = Lcg(0xfeed);
    let specials = [
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
        1e-42,
        3e38,
        -0.0,
        0.0,
    ];
    let cases = if cfg!(miri) { 6 } else { 400 };
    let kernels = path_kernels();
    let mut loaded = 0;
    for case in 0..cases {
        let n = (rng.next_f32().abs() * 14.0) as usize;
        let d = 1 + (rng.next_f32().abs() * 5.0) as usize;
        let k = (rng.next_f32().abs() * 5.0) as usize;
        let kernel = kernels[case % kernels.len()];
        let mut x = rng.vec(n * d, 4.0);
        if case % 3 == 0 && !x.is_empty() {
            let at = (rng.next_f32().abs() * x.len() as f32) as usize % x.len();
            x[at] = specials[case % specials.len()];
        }
        let p = params(kernel, k, case % 2 == 0);
        let (ws_len, out_len) = match fit_sizes(n, d, &p) {
            Ok(s) => (
                s.workspace_floats - usize::from(case % 7 == 0),
                s.model_bytes,
            ),
            Err(_) => (64, 256),
        };
        let mut ws = vec![0.0f32; ws_len];
        let mut out = AlignedBytes::zeroed(out_len);
        if let Ok(r) = fit(&x, d, &p, &mut ws, &mut out) {
            let model = ModelRef::from_bytes(&out[..r.model_len]).expect("a fitted model loads");
            assert_eq!(model.fit_info().n_train as usize, n);
            loaded += 1;
        }
    }
    assert!(
        loaded * 4 >= cases,
        "only {loaded} of {cases} fits succeeded: the test does not reach the fit"
    );
}
