//! The on-device fit (`kpca_core::learn`, f32, no allocation) against scikit-learn's
//! full KernelPCA (testdata/fixtures/full_*.json, made by
//! scripts/make_fixtures.py) and against the host's f64 fit on the same data.

mod support;

use kpca_core::learn::{fit, fit_sizes, FitParams};
use kpca_core::{Error, FitMethod, ModelRef};
use kpca_fit::{AlignedBytes, Dataset, FittedKpca, KernelPca, ModelBlob};
use serde_json::Value;
use support::*;

/// Each eigenvalue against scikit-learn's, relative to itself.
const EIG_REL_TOL: f64 = 1e-4;
/// Out-of-sample coordinates against scikit-learn's, relative to each
/// column's largest magnitude (signs included).
const COORD_REL_TOL: f64 = 1e-3;
/// Anomaly scores against the reference, relative to the score's scale
/// max(max |e_ref|, max k(x, x)) (the score is a difference of terms of size
/// k(x, x)); the threshold relative to itself.
const SCORE_REL_TOL: f64 = 1e-3;
/// The false-alarm rate of every fit here.
const RATE: f32 = 0.05;

fn to_f32(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// The device fit of `x` (row-major, d columns): the blob in an aligned buffer.
fn device_fit(x: &[f32], d: usize, params: &FitParams) -> Result<ModelBlob, Error> {
    let sizes = fit_sizes(x.len() / d, d, params)?;
    let mut ws = vec![0.0f32; sizes.workspace_floats];
    let mut out = AlignedBytes::zeroed(sizes.model_bytes);
    let report = fit(x, d, params, &mut ws, &mut out)?;
    assert_eq!(report.model_len, sizes.model_bytes);
    out.truncate(report.model_len);
    ModelBlob::from_aligned(out)
}

/// The device kernel (f32) of a fixture, by way of the host's own conversion.
fn device_kernel(fx: &Value) -> kpca_core::Kernel {
    let k = fx["n_components"].as_u64().expect("k") as usize;
    let fitted = KernelPca::params()
        .kernel(kernel_of(fx))
        .n_components(k)
        .fit(&dataset(&fx["x_train"]))
        .expect("host fit");
    fitted.to_model().expect("device model").kernel
}

/// Largest relative error of each eigenvalue (NaN propagates).
fn eig_err(got: &[f32], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    max_of(
        got.iter()
            .zip(want)
            .map(|(&g, &w)| (f64::from(g) - w).abs() / w.abs()),
    )
}

/// Coordinates and anomaly scores of the rows of `x` through the device model.
fn evaluate(model: &ModelRef<'_>, x: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let (d, k) = (model.dim(), model.n_components());
    let (mut ys, mut es) = (Vec::new(), Vec::new());
    for row in x.chunks(d) {
        let mut y = vec![0.0f32; k];
        let e = model.project_and_score(row, &mut y).expect("project");
        ys.extend(y.iter().map(|&v| f64::from(v)));
        es.push(f64::from(e));
    }
    (ys, es)
}

/// max(max |e_ref|, max k(x, x)) over rows `x` for the device model.
fn score_scale(model: &ModelRef<'_>, e_ref: &[f64], x: &[f32]) -> f64 {
    let kernel = model.kernel();
    let self_k = x.chunks(model.dim()).map(|r| {
        let sq: f64 = r.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
        match kernel {
            kpca_core::Kernel::Linear => sq,
            kpca_core::Kernel::Polynomial {
                gamma,
                degree,
                coef0,
            } => (f64::from(gamma) * sq + f64::from(coef0))
                .powi(degree as i32)
                .abs(),
            kpca_core::Kernel::Sigmoid { gamma, coef0 } => {
                (f64::from(gamma) * sq + f64::from(coef0)).tanh().abs()
            }
            _ => 1.0,
        }
    });
    max_of(e_ref.iter().map(|e| e.abs()).chain(self_k))
}

#[test]
fn device_fit_matches_sklearn_on_every_full_fixture() {
    for (name, fx) in fixtures("full_") {
        let (x, d) = mat(&fx["x_train"]);
        let (xt, _) = mat(&fx["x_test"]);
        let (x, xt) = (to_f32(&x), to_f32(&xt));
        let k = fx["n_components"].as_u64().expect("k") as usize;
        let params = FitParams {
            kernel: device_kernel(&fx),
            n_components: k,
            standardize: false,
            false_alarm_rate: RATE,
        };
        let blob = device_fit(&x, d, &params).unwrap_or_else(|e| panic!("{name}: {e}"));
        let model = blob.model();
        let n = x.len() / d;
        assert_eq!(model.fit_info().method, FitMethod::Full, "{name}");
        assert_eq!(model.fit_info().n_train as usize, n, "{name}");
        let eig = eig_err(model.eigenvalues(), &vec1(&fx["eigenvalues"]));
        assert!(eig <= EIG_REL_TOL, "{name}: eigenvalues {eig:e}");
        let (ys, es) = evaluate(model, &xt);
        let coord = col_rel_err(&ys, &mat(&fx["test_scores"]).0, k);
        assert!(coord <= COORD_REL_TOL, "{name}: coordinates {coord:e}");
        let e_ref = vec1(&fx["test_anomaly_scores"]);
        let scale = score_scale(model, &e_ref, &xt);
        let score = max_of(es.iter().zip(&e_ref).map(|(g, w)| (g - w).abs())) / scale;
        assert!(score <= SCORE_REL_TOL, "{name}: anomaly scores {score:e}");
        let train_ref = vec1(&fx["train_anomaly_scores"]);
        let t_ref = kpca_fit::quantile(&train_ref, 1.0 - f64::from(RATE)).expect("quantile");
        let t_err =
            (f64::from(model.threshold()) - t_ref).abs() / score_scale(model, &train_ref, &x);
        assert!(
            t_err <= SCORE_REL_TOL,
            "{name}: threshold {} vs {t_ref} ({t_err:e})",
            model.threshold()
        );
        println!("{name}: eigenvalues {eig:.1e}, coordinates {coord:.1e}, scores {score:.1e}, threshold {t_err:.1e}");
    }
}

/// The host's f64 fit of the same rows with standardisation, for comparison.
fn host_fit(x: &[f64], d: usize, fx: &Value, k: usize) -> FittedKpca {
    KernelPca::params()
        .kernel(kernel_of(fx))
        .n_components(k)
        .standardize(true)
        .false_alarm_rate(f64::from(RATE))
        .fit(&Dataset::new(x.to_vec(), d).expect("dataset"))
        .expect("host fit")
}

#[test]
fn standardised_device_fit_matches_the_host_fit() {
    for name in [
        "full_sensor_rbf",
        "full_moons_poly",
        "full_sigmoid_case",
        "full_cosine_case",
    ] {
        let fx = load(&format!("{name}.json"));
        let (x64, d) = mat(&fx["x_train"]);
        let (xt64, _) = mat(&fx["x_test"]);
        let k = fx["n_components"].as_u64().expect("k") as usize;
        let host = host_fit(&x64, d, &fx, k);
        let params = FitParams {
            kernel: host.to_model().expect("device model").kernel,
            n_components: k,
            standardize: true,
            false_alarm_rate: RATE,
        };
        let (x, xt) = (to_f32(&x64), to_f32(&xt64));
        let blob = device_fit(&x, d, &params).expect("device fit");
        let model = blob.model();
        assert!(model.is_standardized(), "{name}");
        let eig = eig_err(model.eigenvalues(), host.eigenvalues());
        assert!(eig <= EIG_REL_TOL, "{name}: eigenvalues {eig:e}");
        let test = Dataset::new(xt64.clone(), d).expect("dataset");
        let (ys, es) = evaluate(model, &xt);
        let coord = col_rel_err(&ys, &host.transform(&test).expect("transform"), k);
        assert!(coord <= COORD_REL_TOL, "{name}: coordinates {coord:e}");
        let e_ref = host.anomaly_score(&test).expect("scores");
        let scale = score_scale(model, &e_ref, &xt);
        let score = max_of(es.iter().zip(&e_ref).map(|(g, w)| (g - w).abs())) / scale;
        assert!(score <= SCORE_REL_TOL, "{name}: anomaly scores {score:e}");
        let t_err = (f64::from(model.threshold()) - host.threshold()).abs() / host.threshold();
        assert!(t_err <= SCORE_REL_TOL, "{name}: threshold {t_err:e}");
        let total = f64::from(model.fit_info().total_variance);
        let tv_err = (total - host.total_variance()).abs() / host.total_variance();
        assert!(
            tv_err <= EIG_REL_TOL,
            "{name}: total variance {total} vs {}",
            host.total_variance()
        );
    }
}
