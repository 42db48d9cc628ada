//! The pre-image, kernel principal component regression, the reconstruction
//! errors and the Nyström confidence bound against scikit-learn, nystrompca and
//! numpy (testdata/fixtures/seeds_*.json, made by scripts/make_seed_fixtures.py),
//! in f64 and through the f32 device model.

mod support;

use kpca_fit::{Dataset, ErrorEstimate, FitError, FittedKpca, KernelPca, KernelSpec, Nystrom};
use serde_json::Value;
use support::*;

/// f64 pre-images and PCR predictions vs the references, relative to each
/// column's max |value|.
const HOST_REL_TOL: f64 = 1e-8;
/// f32 device results vs the references, relative to each column's scale.
const DEVICE_REL_TOL: f64 = 1e-4;
/// Bound and reconstruction errors vs nystrompca, relative to each entry.
const BOUND_REL_TOL: f64 = 1e-10;

fn indices(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("index list")
        .iter()
        .map(|i| i.as_u64().expect("index") as usize)
        .collect()
}

fn fit(fx: &Value, landmarks: Option<&Value>, k_key: Option<usize>) -> FittedKpca {
    let k = k_key.unwrap_or(fx["n_components"].as_u64().expect("k") as usize);
    let mut p = KernelPca::params()
        .kernel(kernel_of(fx))
        .n_components(k)
        .standardize(fx["standardize"].as_bool().unwrap_or(false));
    if let Some(lm) = landmarks {
        p = p.nystrom(Nystrom::indices(indices(lm)));
    }
    p.fit(&dataset(&fx["x_train"])).expect("fit")
}

/// Each row of `data` through the device model's `op`, as f64, rows x `width`.
fn device_rows(
    fitted: &FittedKpca,
    data: &Value,
    width: usize,
    op: impl Fn(&kpca_core::ModelRef<'_>, &[f32], &mut [f32]) -> Result<(), kpca_core::Error>,
) -> Vec<f64> {
    let device = fitted.to_model().expect("device model");
    let model = device.as_model_ref().expect("model ref");
    let (values, d) = mat(data);
    let mut out = Vec::new();
    for row in values.chunks_exact(d) {
        let x: Vec<f32> = row.iter().map(|&v| v as f32).collect();
        let mut o = vec![0.0f32; width];
        op(&model, &x, &mut o).expect("device call");
        out.extend(o.iter().map(|&v| f64::from(v)));
    }
    out
}

/// Relative error of each entry; NaN when either is NaN.
fn entry_rel(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "lengths differ");
    max_of(got.iter().zip(want).map(|(g, w)| (g - w).abs() / w.abs()))
}

#[test]
fn learned_preimage_matches_scikit_learn_on_host_and_device() {
    for name in [
        "seeds_preimage_circles.json",
        "seeds_preimage_iris_poly_std.json",
    ] {
        let fx = load(name);
        let mut fitted = fit(&fx, None, None);
        let alpha = fx["alpha"].as_f64().expect("alpha");
        fitted
            .fit_inverse_transform(alpha)
            .expect("inverse transform");
        let test = dataset(&fx["x_test"]);
        let (want, d) = mat(&fx["preimage_test"]);
        let scores = fitted.transform(&test).expect("transform");
        let host = fitted.inverse_transform(&scores).expect("inverse");
        let err = col_rel_err(&host, &want, d);
        assert!(
            err <= HOST_REL_TOL,
            "{name}: host pre-image vs sklearn {err:e}"
        );
        let same = fitted.preimage(&test, 0).expect("preimage");
        assert_eq!(same, host, "{name}: preimage(.., 0) is the learned map");
        let dev = device_rows(&fitted, &fx["x_test"], d, |m, x, o| m.reconstruct(x, o));
        let err = col_rel_err(&dev, &want, d);
        assert!(
            err <= DEVICE_REL_TOL,
            "{name}: device pre-image vs sklearn {err:e}"
        );
    }
    let fx = load("seeds_preimage_circles.json");
    let mut fitted = fit(&fx, None, None);
    fitted
        .fit_inverse_transform(0.1)
        .expect("inverse transform");
    let (want, d) = mat(&fx["preimage_train"]);
    let got = fitted
        .preimage(&dataset(&fx["x_train"]), 0)
        .expect("preimage");
    let err = col_rel_err(&got, &want, d);
    assert!(err <= HOST_REL_TOL, "train pre-image vs sklearn {err:e}");
}

#[test]
fn fixed_point_preimage_matches_numpy_mika() {
    let fx = load("seeds_preimage_circles.json");
    let mut fitted = fit(&fx, None, None);
    fitted
        .fit_inverse_transform(fx["alpha"].as_f64().expect("alpha"))
        .expect("inverse transform");
    let steps = fx["mika_steps"].as_u64().expect("steps") as usize;
    let (want, d) = mat(&fx["mika_test"]);
    let got = fitted
        .preimage(&dataset(&fx["x_test"]), steps)
        .expect("mika");
    let err = col_rel_err(&got, &want, d);
    assert!(err <= HOST_REL_TOL, "Mika pre-image vs numpy {err:e}");
    // The iteration moves the points: the learned map alone is far from it.
    let (start, _) = mat(&fx["preimage_test"]);
    assert!(
        col_rel_err(&start, &want, d) > 1e-2,
        "the fixture would not catch a no-op"
    );
}

#[test]
fn preimage_needs_a_fitted_map_and_a_positive_alpha() {
    let fx = load("seeds_preimage_circles.json");
    let mut fitted = fit(&fx, None, None);
    let test = dataset(&fx["x_test"]);
    assert!(matches!(
        fitted.preimage(&test, 0),
        Err(FitError::NoPreImage)
    ));
    for alpha in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(
            fitted.fit_inverse_transform(alpha).is_err(),
            "alpha {alpha} accepted"
        );
    }
}

fn pcr_fit(fx: &Value, nystrom: bool, targets: &Dataset<'_>) -> FittedKpca {
    let mut fitted = fit(fx, nystrom.then(|| &fx["landmarks"]), None);
    fitted.fit_regression(targets).expect("regression");
    fitted
}

#[test]
fn pcr_matches_nystrompca_and_scikit_learn_on_host_and_device() {
    let fx = load("seeds_pcr_diabetes.json");
    let targets = dataset(&fx["targets_train"]);
    let test = dataset(&fx["x_test"]);
    for (nystrom, key) in [(false, "full_predictions"), (true, "nystrom_predictions")] {
        let fitted = pcr_fit(&fx, nystrom, &targets);
        let (want, t) = mat(&fx[key]);
        let host = fitted.predict(&test).expect("predict");
        let err = col_rel_err(&host, &want, t);
        assert!(err <= HOST_REL_TOL, "{key}: host vs nystrompca {err:e}");
        if !nystrom {
            let (sk, _) = mat(&fx["sklearn_predictions"]);
            let err = col_rel_err(&host, &sk, t);
            assert!(
                err <= HOST_REL_TOL,
                "full PCR vs sklearn LinearRegression {err:e}"
            );
        }
        let dev = device_rows(&fitted, &fx["x_test"], t, |m, x, o| m.predict(x, o));
        let err = col_rel_err(&dev, &want, t);
        assert!(err <= DEVICE_REL_TOL, "{key}: device vs nystrompca {err:e}");
    }
}

#[test]
fn pcr_rejects_targets_of_the_wrong_shape() {
    let fx = load("seeds_pcr_diabetes.json");
    let mut fitted = fit(&fx, None, None);
    let few = Dataset::new(vec![1.0; 10], 1).expect("dataset");
    assert!(matches!(
        fitted.fit_regression(&few),
        Err(FitError::BadTargets { .. })
    ));
    let wide = Dataset::new(vec![1.0; 300 * 17], 17).expect("dataset");
    assert!(matches!(
        fitted.fit_regression(&wide),
        Err(FitError::BadTargets { .. })
    ));
    assert!(matches!(
        fitted.predict(&dataset(&fx["x_test"])),
        Err(FitError::NoRegression)
    ));
}

#[test]
fn reconstruction_errors_and_bound_match_nystrompca() {
    for name in ["seeds_bound_circles.json", "seeds_bound_diabetes.json"] {
        let fx = load(name);
        let train = dataset(&fx["x_train"]);
        let fitted = fit(&fx, Some(&fx["landmarks"]), None);
        for (key, est) in [
            ("reconstruction_errors", ErrorEstimate::Exact),
            ("reconstruction_errors_approx", ErrorEstimate::Approximate),
        ] {
            let got = fitted
                .reconstruction_errors(Some(&train), est)
                .expect("errors");
            let err = entry_rel(&got, &vec1(&fx[key]));
            assert!(err <= BOUND_REL_TOL, "{name} {key}: {err:e}");
        }
        for (conf, want) in fx["confidence_bound"].as_object().expect("bounds") {
            let c: f64 = conf.parse().expect("confidence");
            let got = fitted.confidence_bound(c).expect("bound");
            let err = entry_rel(&got, &vec1(want));
            assert!(err <= BOUND_REL_TOL, "{name} bound at {c}: {err:e}");
        }
        let full = fit(&fx, None, None);
        let got = full
            .reconstruction_errors(None, ErrorEstimate::Exact)
            .expect("full");
        let err = entry_rel(&got, &vec1(&fx["full_reconstruction_errors"]));
        assert!(err <= BOUND_REL_TOL, "{name} full-fit errors: {err:e}");
        assert_eq!(
            full.confidence_bound(0.9).expect("m = n"),
            vec![0.0; got.len()]
        );
    }
}

#[test]
fn bound_is_undefined_for_unbounded_kernels_and_bad_levels() {
    let fx = load("seeds_bound_circles.json");
    let fitted = fit(&fx, Some(&fx["landmarks"]), None);
    for c in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(matches!(
            fitted.confidence_bound(c),
            Err(FitError::BoundUndefined { .. })
        ));
    }
    let poly = KernelPca::params()
        .kernel(KernelSpec::poly(1.0, 2, 1.0))
        .n_components(3)
        .nystrom(Nystrom::indices(indices(&fx["landmarks"])))
        .fit(&dataset(&fx["x_train"]))
        .expect("poly fit");
    assert!(matches!(
        poly.confidence_bound(0.9),
        Err(FitError::BoundUndefined { .. })
    ));
    assert!(matches!(
        fitted.reconstruction_errors(None, ErrorEstimate::Exact),
        Err(FitError::BoundUndefined { .. })
    ));
}
