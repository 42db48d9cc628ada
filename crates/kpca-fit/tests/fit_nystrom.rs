//! Nyström kernel PCA against nystrompca and the fixtures' numpy implementation
//! (testdata/fixtures/nystrom_*.json), and against full kernel PCA when m = n.
//!
//! Conventions (recorded in the fixtures and followed by the fit): eigenvalues are
//! score variances lambda (already divided by n; mu = n lambda); each component's
//! sign makes the entry of largest absolute value of its training score column
//! positive (scikit-learn's rule). nystrompca's own sign rule (midpoint of the
//! score range positive) was undone in the fixtures, so no flipping is needed here.

mod support;

use kpca_fit::{FittedKpca, KernelPca, KernelSpec, Method, Nystrom, Solver};
use serde_json::Value;
use support::*;

/// f64 Nyström vs nystrompca and the fixture's numpy implementation: eigenvalues
/// relative to each eigenvalue, scores relative to each column's max abs.
const NYSTROM_REL_TOL: f64 = 1e-8;
/// Anomaly scores vs numpy, relative to max(max |e|, k(x, x) = 1).
const NYSTROM_ANOMALY_TOL: f64 = 1e-8;
/// m = n Nyström vs full kernel PCA.
const M_EQUALS_N_REL_TOL: f64 = 1e-8;
/// f32 device model vs f64 test scores, relative to each column's scale.
const DEVICE_SCORE_REL_TOL: f64 = 1e-4;
/// f32 device anomaly score vs f64, relative to max(max |e|, k(x, x) = 1).
const DEVICE_ANOMALY_TOL: f64 = 1e-5;

fn fit_nystrom(fx: &Value) -> FittedKpca {
    let k = fx["n_components"].as_u64().expect("k") as usize;
    let landmarks: Vec<usize> = fx["landmarks"]
        .as_array()
        .expect("landmarks")
        .iter()
        .map(|v| v.as_u64().expect("index") as usize)
        .collect();
    KernelPca::params()
        .kernel(KernelSpec::rbf(fx["gamma"].as_f64().expect("gamma")))
        .n_components(k)
        .nystrom(Nystrom::indices(landmarks))
        .fit(&dataset(&fx["x_train"]))
        .expect("Nyström fit")
}

fn eig_rel(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    got.iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs() / w.abs())
        .fold(0.0, nan_max)
}

fn abs_err_scaled(got: &[f64], want: &[f64], floor: f64) -> f64 {
    let scale = want.iter().fold(floor, |a, v| nan_max(a, v.abs()));
    max_of(got.iter().zip(want).map(|(g, w)| (g - w).abs())) / scale
}

#[test]
fn nystrom_matches_nystrompca_and_numpy() {
    eprintln!(
        "{:<26} {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} {:>9} {:>9} | {:>9} {:>9}",
        "fixture",
        "eig",
        "train",
        "test",
        "np_eig",
        "np_train",
        "np_test",
        "np_e_tr",
        "np_e_te",
        "dev",
        "dev_e"
    );
    for (name, fx) in fixtures("nystrom_") {
        let k = fx["n_components"].as_u64().expect("k") as usize;
        let fitted = fit_nystrom(&fx);
        let x_test = dataset(&fx["x_test"]);
        let (test, test_e) = fitted.transform_and_score(&x_test).expect("transform");

        // nystrompca's explained_variance_ is the score variance mu / n.
        let eig = eig_rel(&fitted.score_variances(), &vec1(&fx["eigenvalues"]));
        let train = col_rel_err(fitted.train_scores(), &mat(&fx["train_scores"]).0, k);
        let test_err = col_rel_err(&test, &mat(&fx["test_scores"]).0, k);
        let np_eig = eig_rel(&fitted.score_variances(), &vec1(&fx["numpy_eigenvalues"]));
        let np_train = col_rel_err(fitted.train_scores(), &mat(&fx["numpy_train_scores"]).0, k);
        let np_test = col_rel_err(&test, &mat(&fx["numpy_test_scores"]).0, k);
        let np_e_tr = abs_err_scaled(
            fitted.train_anomaly_scores(),
            &vec1(&fx["numpy_train_anomaly_scores"]),
            1.0,
        );
        let want_e = vec1(&fx["numpy_test_anomaly_scores"]);
        let np_e_te = abs_err_scaled(&test_e, &want_e, 1.0);

        let model = fitted.to_model().expect("device model");
        let view = model.as_model_ref().expect("valid");
        let mut dev = Vec::new();
        let mut dev_e = Vec::new();
        for row in x_test.rows() {
            let x: Vec<f32> = row.iter().map(|&v| v as f32).collect();
            let mut y = vec![0.0f32; k];
            dev_e.push(view.project_and_score(&x, &mut y).expect("project") as f64);
            dev.extend(y.iter().map(|&v| v as f64));
        }
        let dev_err = col_rel_err(&dev, &test, k);
        let dev_e_err = abs_err_scaled(&dev_e, &test_e, 1.0);
        eprintln!(
            "{name:<26} {eig:>9.2e} {train:>9.2e} {test_err:>9.2e} | {np_eig:>9.2e} {np_train:>9.2e} \
             {np_test:>9.2e} {np_e_tr:>9.2e} {np_e_te:>9.2e} | {dev_err:>9.2e} {dev_e_err:>9.2e}"
        );
        assert!(
            eig <= NYSTROM_REL_TOL,
            "{name}: eigenvalues vs nystrompca {eig:e}"
        );
        assert!(
            train <= NYSTROM_REL_TOL,
            "{name}: train scores vs nystrompca {train:e}"
        );
        assert!(
            test_err <= NYSTROM_REL_TOL,
            "{name}: test scores vs nystrompca {test_err:e}"
        );
        assert!(
            np_eig <= NYSTROM_REL_TOL,
            "{name}: eigenvalues vs numpy {np_eig:e}"
        );
        assert!(
            np_train <= NYSTROM_REL_TOL,
            "{name}: train vs numpy {np_train:e}"
        );
        assert!(
            np_test <= NYSTROM_REL_TOL,
            "{name}: test vs numpy {np_test:e}"
        );
        assert!(
            np_e_tr <= NYSTROM_ANOMALY_TOL,
            "{name}: train anomaly {np_e_tr:e}"
        );
        assert!(
            np_e_te <= NYSTROM_ANOMALY_TOL,
            "{name}: test anomaly {np_e_te:e}"
        );
        assert!(
            dev_err <= DEVICE_SCORE_REL_TOL,
            "{name}: device scores {dev_err:e}"
        );
        assert!(
            dev_e_err <= DEVICE_ANOMALY_TOL,
            "{name}: device anomaly {dev_e_err:e}"
        );
    }
}

/// The m = n fixture (every training point a landmark) against its sklearn keys.
#[test]
fn m_equals_n_matches_sklearn_full_fit() {
    let fx = load("nystrom_circles_full.json");
    let k = fx["n_components"].as_u64().expect("k") as usize;
    let fitted = fit_nystrom(&fx);
    let eig = eig_rel(fitted.eigenvalues(), &vec1(&fx["full_eigenvalues"]));
    let train = col_rel_err(fitted.train_scores(), &mat(&fx["full_train_scores"]).0, k);
    let test = col_rel_err(
        &fitted
            .transform(&dataset(&fx["x_test"]))
            .expect("transform"),
        &mat(&fx["full_test_scores"]).0,
        k,
    );
    eprintln!("circles_full m = n vs sklearn: eig {eig:.2e} train {train:.2e} test {test:.2e}");
    assert!(eig <= M_EQUALS_N_REL_TOL, "eigenvalues {eig:e}");
    assert!(train <= M_EQUALS_N_REL_TOL, "train {train:e}");
    assert!(test <= M_EQUALS_N_REL_TOL, "test {test:e}");
}

/// m = n Nyström equals our full fit on several full-KPCA fixtures (rbf, laplacian):
/// eigenvalues (times n), train and test scores and anomaly scores.
#[test]
fn m_equals_n_equals_full_fit() {
    for name in [
        "full_circles_rbf.json",
        "full_sensor_rbf.json",
        "full_laplacian_case.json",
    ] {
        let fx = load(name);
        let k = fx["n_components"].as_u64().expect("k") as usize;
        let x = dataset(&fx["x_train"]);
        let x_test = dataset(&fx["x_test"]);
        let n = x.n_rows();
        let base = KernelPca::params().kernel(kernel_of(&fx)).n_components(k);
        let full = base.clone().solver(Solver::Dense).fit(&x).expect("full");
        let ny = base
            .nystrom(Nystrom::indices((0..n).collect()))
            .fit(&x)
            .expect("nystrom");
        let eig = eig_rel(ny.eigenvalues(), full.eigenvalues());
        let train = col_rel_err(ny.train_scores(), full.train_scores(), k);
        let (ty, te) = ny.transform_and_score(&x_test).expect("transform");
        let (fy, fe) = full.transform_and_score(&x_test).expect("transform");
        let test = col_rel_err(&ty, &fy, k);
        let e_tr = abs_err_scaled(ny.train_anomaly_scores(), full.train_anomaly_scores(), 1.0);
        let e_te = abs_err_scaled(&te, &fe, 1.0);
        let curve = abs_err_scaled(
            ny.reconstruction_error_curve(),
            full.reconstruction_error_curve(),
            1.0,
        );
        eprintln!(
            "{name:<26} m = n vs full: eig {eig:.2e} train {train:.2e} test {test:.2e} \
             e_train {e_tr:.2e} e_test {e_te:.2e} curve {curve:.2e}"
        );
        for (what, err) in [
            ("eigenvalues", eig),
            ("train", train),
            ("test", test),
            ("train anomaly", e_tr),
            ("test anomaly", e_te),
            ("curve", curve),
        ] {
            assert!(err <= M_EQUALS_N_REL_TOL, "{name}: {what} {err:e}");
        }
    }
}

/// Score columns are uncorrelated, mean zero, with variance lambda (DESIGN section 3).
#[test]
fn score_columns_are_uncorrelated_with_variance_lambda() {
    const COV_TOL: f64 = 1e-10;
    let fx = load("nystrom_digits.json");
    let fitted = fit_nystrom(&fx);
    let k = fitted.n_components();
    let n = fitted.n_train() as f64;
    let w = fitted.train_scores();
    let lam = fitted.score_variances();
    for a in 0..k {
        let mean: f64 = w.iter().skip(a).step_by(k).sum::<f64>() / n;
        assert!(
            mean.abs() <= COV_TOL * lam[0].sqrt(),
            "mean of column {a}: {mean:e}"
        );
        for b in 0..k {
            let cov: f64 = w
                .iter()
                .skip(a)
                .step_by(k)
                .zip(w.iter().skip(b).step_by(k))
                .map(|(x, y)| x * y)
                .sum::<f64>()
                / n;
            let want = if a == b { lam[a] } else { 0.0 };
            assert!(
                (cov - want).abs() <= COV_TOL * lam[0],
                "cov[{a}][{b}] = {cov:e}"
            );
        }
    }
}

/// Random landmarks: reproducible from the seed, distinct, and a different seed
/// gives different landmarks.
#[test]
fn random_landmarks_are_reproducible() {
    let fx = load("nystrom_digits.json");
    let x = dataset(&fx["x_train"]);
    let params = KernelPca::params()
        .kernel(KernelSpec::rbf(None))
        .n_components(3)
        .nystrom(Nystrom::random(40, 11));
    let a = params.fit(&x).expect("fit");
    let b = params.fit(&x).expect("fit");
    let c = params
        .clone()
        .nystrom(Nystrom::random(40, 12))
        .fit(&x)
        .expect("fit");
    let lm = |f: &FittedKpca| match f.method() {
        Method::Nystrom { landmarks, .. } => landmarks.clone(),
        Method::Full => Vec::new(),
    };
    assert_eq!(lm(&a), lm(&b));
    assert_eq!(a.train_scores(), b.train_scores());
    assert_ne!(lm(&a), lm(&c));
    let mut sorted = lm(&a);
    sorted.dedup();
    assert_eq!(sorted.len(), 40);
    // gamma None resolved to 1/d.
    assert_eq!(a.kernel().gamma, Some(1.0 / 64.0));
}
