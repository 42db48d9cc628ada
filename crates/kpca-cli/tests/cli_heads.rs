//! The command's regression head, pre-image map and fit report, run as a user
//! runs them (`kpca fit --target / --inverse-transform / --report`, then
//! `kpca predict`, `kpca reconstruct`, `kpca inspect`), against the fixtures of
//! scripts/make_seed_fixtures.py (scikit-learn, nystrompca and numpy).

mod common;

use common::{matrix, ok, run, write_csv};
use kpca_testkit::{col_rel_err, rel_err};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Device outputs (predictions, pre-images): |cli - reference| <= this times
/// the reference column's scale (its largest magnitude).
const DEVICE_TOL: f64 = 1e-4;
/// The report's f64 numbers (reconstruction errors, bound): relative to the
/// largest magnitude of the reference curve.
const REPORT_TOL: f64 = 1e-10;

fn fixture(name: &str) -> Value {
    let path = kpca_testkit::fixture_dir().join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("json")
}

fn read_csv(text: &str) -> Vec<Vec<f64>> {
    text.lines()
        .map(|l| l.split(',').map(|v| v.parse().expect("number")).collect())
        .collect()
}

/// The largest |got - want| over each column, divided by the column's scale;
/// NaN when a value is NaN or the shapes differ.
fn column_rel(got: &[Vec<f64>], want: &[Vec<f64>]) -> f64 {
    let cols = want.first().map_or(0, Vec::len);
    if got.len() != want.len() || got.iter().any(|r| r.len() != cols) {
        return f64::NAN;
    }
    col_rel_err(&got.concat(), &want.concat(), cols)
}

/// The largest |got - want| / max |want|; NaN on a length mismatch or a NaN.
fn curve_rel(got: &[f64], want: &[f64]) -> f64 {
    if got.len() != want.len() {
        return f64::NAN;
    }
    rel_err(got, want)
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect()
}

/// A file in `dir` with the indices of `v`, one per line.
fn write_indices(dir: &Path, v: &Value) -> String {
    let text: String = v
        .as_array()
        .expect("indices")
        .iter()
        .map(|i| format!("{}\n", i.as_u64().expect("index")))
        .collect();
    let path = dir.join("landmarks.txt");
    std::fs::write(&path, text).expect("written");
    path.to_str().expect("utf-8").to_string()
}

struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        Files {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn csv(&self, name: &str, rows: &[Vec<f64>]) -> String {
        write_csv(&self.path(name), rows);
        self.name(name)
    }
    fn name(&self, name: &str) -> String {
        self.path(name).to_str().expect("utf-8").to_string()
    }
}

#[test]
fn fit_with_targets_then_predict_matches_nystrompca_and_scikit_learn() {
    let fx = fixture("seeds_pcr_diabetes.json");
    let f = Files::new();
    let train = f.csv("train.csv", &matrix(&fx["x_train"]));
    let test = f.csv("test.csv", &matrix(&fx["x_test"]));
    let targets = f.csv("y.csv", &matrix(&fx["targets_train"]));
    let landmarks = write_indices(f.dir.path(), &fx["landmarks"]);
    let gamma = fx["gamma"].to_string();
    let k = fx["n_components"].to_string();
    for (nystrom, key) in [(false, "full_predictions"), (true, "nystrom_predictions")] {
        let model = f.name(if nystrom { "nys.kpca" } else { "full.kpca" });
        let mut args = vec![
            "fit",
            "--input",
            &train,
            "--kernel",
            "rbf",
            "--gamma",
            &gamma,
            "--components",
            &k,
            "--target",
            &targets,
            "--output",
            &model,
            "--quiet",
        ];
        if nystrom {
            args.extend(["--landmarks", landmarks.as_str()]);
        }
        ok(&args);
        let got = read_csv(&ok(&["predict", "--model", &model, "--input", &test]));
        let err = column_rel(&got, &matrix(&fx[key]));
        assert!(
            err <= DEVICE_TOL,
            "{key}: predictions off by {err:e} of scale"
        );
        if !nystrom {
            let err = column_rel(&got, &matrix(&fx["sklearn_predictions"]));
            assert!(err <= DEVICE_TOL, "sklearn: predictions off by {err:e}");
            truth_report_is_the_rmse_and_r2(&model, &test, &f, &got);
        }
        let inspect = ok(&["inspect", &model]);
        assert!(
            inspect.contains("regression head for kpca_predict (2 targets"),
            "{inspect}"
        );
    }
}

/// `predict --truth` reports each target's RMSE and R²: against values
/// offset by +1 in target 1 and -2 in target 2 (so RMSE 1 and 2 exactly), and
/// a truth of the wrong shape is refused.
fn truth_report_is_the_rmse_and_r2(model: &str, test: &str, f: &Files, pred: &[Vec<f64>]) {
    let shifted: Vec<Vec<f64>> = pred.iter().map(|r| vec![r[0] + 1.0, r[1] - 2.0]).collect();
    let truth = f.csv("truth.csv", &shifted);
    let (code, _, stderr) = run(&[
        "predict",
        "--model",
        model,
        "--input",
        test,
        "--truth",
        &truth,
        "--output",
        "/dev/null",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let rmse: Vec<f64> = stderr
        .lines()
        .filter_map(|l| l.split("RMSE ").nth(1)?.split(',').next()?.parse().ok())
        .collect();
    assert_eq!(rmse.len(), 2, "{stderr}");
    assert!(
        (rmse[0] - 1.0).abs() < 1e-5 && (rmse[1] - 2.0).abs() < 1e-5,
        "{stderr}"
    );
    let short = f.csv("short_truth.csv", &shifted[..5]);
    let (code, _, stderr) = run(&[
        "predict", "--model", model, "--input", test, "--truth", &short,
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("5 rows x 2 columns"), "{stderr}");
}

#[test]
fn inverse_transform_then_reconstruct_matches_scikit_learn_and_mika() {
    let fx = fixture("seeds_preimage_circles.json");
    let f = Files::new();
    let train = f.csv("train.csv", &matrix(&fx["x_train"]));
    let test = f.csv("test.csv", &matrix(&fx["x_test"]));
    let model = f.name("m.kpca");
    let (gamma, k, alpha) = (
        fx["gamma"].to_string(),
        fx["n_components"].to_string(),
        fx["alpha"].to_string(),
    );
    ok(&[
        "fit",
        "--input",
        &train,
        "--kernel",
        "rbf",
        "--gamma",
        &gamma,
        "--components",
        &k,
        "--inverse-transform",
        "--alpha",
        &alpha,
        "--output",
        &model,
        "--quiet",
    ]);
    let learned = read_csv(&ok(&["reconstruct", "--model", &model, "--input", &test]));
    let err = column_rel(&learned, &matrix(&fx["preimage_test"]));
    assert!(
        err <= DEVICE_TOL,
        "learned pre-image off by {err:e} of scale"
    );
    let residual = read_csv(&ok(&[
        "reconstruct",
        "--model",
        &model,
        "--input",
        &test,
        "--residual",
    ]));
    let x = matrix(&fx["x_test"]);
    let expected: Vec<Vec<f64>> = x
        .iter()
        .zip(&learned)
        .map(|(a, b)| a.iter().zip(b).map(|(p, q)| p - q).collect())
        .collect();
    let err = column_rel(&residual, &expected);
    assert!(err <= DEVICE_TOL, "residual is not x - x-hat: {err:e}");
    let steps = fx["mika_steps"].to_string();
    let iterated = read_csv(&ok(&[
        "reconstruct",
        "--model",
        &model,
        "--input",
        &test,
        "--iterate",
        &steps,
    ]));
    let err = column_rel(&iterated, &matrix(&fx["mika_test"]));
    assert!(
        err <= DEVICE_TOL,
        "fixed-point pre-image off by {err:e} of scale"
    );
    // The iteration moves the answer: a command ignoring --iterate fails above.
    assert!(column_rel(&learned, &matrix(&fx["mika_test"])) > 100.0 * DEVICE_TOL);
    let inspect = ok(&["inspect", &model]);
    assert!(
        inspect.contains("pre-image map for kpca_reconstruct (150 score vectors"),
        "{inspect}"
    );
}

#[test]
fn a_standardised_polynomial_pre_image_matches_scikit_learn() {
    let fx = fixture("seeds_preimage_iris_poly_std.json");
    let f = Files::new();
    let train = f.csv("train.csv", &matrix(&fx["x_train"]));
    let test = f.csv("test.csv", &matrix(&fx["x_test"]));
    let model = f.name("m.kpca");
    ok(&[
        "fit",
        "--input",
        &train,
        "--kernel",
        "poly",
        "--gamma",
        &fx["gamma"].to_string(),
        "--degree",
        &fx["degree"].to_string(),
        "--coef0",
        &fx["coef0"].to_string(),
        "--components",
        &fx["n_components"].to_string(),
        "--standardize",
        "--inverse-transform",
        "--alpha",
        &fx["alpha"].to_string(),
        "--output",
        &model,
        "--quiet",
    ]);
    let got = read_csv(&ok(&["reconstruct", "--model", &model, "--input", &test]));
    let err = column_rel(&got, &matrix(&fx["preimage_test"]));
    assert!(err <= DEVICE_TOL, "pre-image off by {err:e} of scale");
    // Mika's iteration is the Gaussian kernel's.
    let (code, _, stderr) = run(&[
        "reconstruct",
        "--model",
        &model,
        "--input",
        &test,
        "--iterate",
        "5",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("--iterate needs an rbf model"), "{stderr}");
}

#[test]
fn the_report_has_the_errors_and_the_nystrom_bound_of_nystrompca() {
    let fx = fixture("seeds_bound_circles.json");
    let f = Files::new();
    let train = f.csv("train.csv", &matrix(&fx["x_train"]));
    let landmarks = write_indices(f.dir.path(), &fx["landmarks"]);
    let (gamma, k) = (fx["gamma"].to_string(), fx["n_components"].to_string());
    let (model, report) = (f.name("m.kpca"), f.name("r.json"));
    let base = [
        "fit",
        "--input",
        &train,
        "--kernel",
        "rbf",
        "--gamma",
        &gamma,
        "--components",
        &k,
        "--output",
        &model,
        "--quiet",
        "--report",
        &report,
    ];
    for level in [None, Some("0.5"), Some("0.99")] {
        let mut args = base.to_vec();
        args.extend(["--landmarks", landmarks.as_str()]);
        if let Some(c) = level {
            args.extend(["--bound-confidence", c]);
        }
        ok(&args);
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let err = curve_rel(
            &numbers(&r["reconstruction_errors"]),
            &numbers(&fx["reconstruction_errors"]),
        );
        assert!(err <= REPORT_TOL, "reconstruction errors off by {err:e}");
        let bound = numbers(&r["confidence_bound"]);
        let want = numbers(&fx["confidence_bound"][level.unwrap_or("0.9")]);
        let err = curve_rel(&bound, &want);
        assert!(err <= REPORT_TOL, "bound at {level:?} off by {err:e}");
        assert_eq!(numbers(&r["eigenvalues"]).len(), 6);
        assert_eq!(numbers(&r["explained_variance_ratio"]).len(), 6);
    }
    // The report on standard output is the JSON alone (the text report goes to stderr).
    let out = ok(&[
        "fit",
        "--input",
        &train,
        "--kernel",
        "rbf",
        "--gamma",
        &gamma,
        "--components",
        &k,
        "--output",
        &model,
        "--report",
        "-",
        "--landmarks",
        &landmarks,
    ]);
    let r: Value = serde_json::from_str(&out).expect("stdout is the JSON report");
    assert_eq!(numbers(&r["eigenvalues"]).len(), 6);
    // A full fit: its own curve, and no Nyström bound.
    ok(&base);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let err = curve_rel(
        &numbers(&r["reconstruction_errors"]),
        &numbers(&fx["full_reconstruction_errors"]),
    );
    assert!(err <= 1e-8, "full reconstruction errors off by {err:e}");
    assert!(r.get("confidence_bound").is_none(), "{r}");
}

#[test]
fn the_report_says_when_the_bound_is_undefined() {
    let fx = fixture("seeds_bound_circles.json");
    let f = Files::new();
    let train = f.csv("train.csv", &matrix(&fx["x_train"]));
    let (model, report) = (f.name("m.kpca"), f.name("r.json"));
    ok(&[
        "fit",
        "--input",
        &train,
        "--kernel",
        "poly",
        "--components",
        "3",
        "--nystrom",
        "30",
        "--output",
        &model,
        "--quiet",
        "--report",
        &report,
    ]);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(r["confidence_bound"].is_null(), "{r}");
    let why = r["confidence_bound_undefined"].as_str().unwrap_or("");
    assert!(why.contains("undefined"), "{r}");
    assert_eq!(numbers(&r["reconstruction_errors"]).len(), 3);
}

#[test]
fn heads_and_report_flags_refuse_bad_values_and_missing_sections() {
    let fx = fixture("seeds_pcr_diabetes.json");
    let f = Files::new();
    let rows = matrix(&fx["x_train"]);
    let train = f.csv("train.csv", &rows);
    let short = f.csv("short.csv", &matrix(&fx["targets_train"])[..10]);
    let model = f.name("m.kpca");
    let fit = |extra: &[&str]| {
        let mut args = vec![
            "fit",
            "--input",
            &train,
            "--kernel",
            "rbf",
            "--components",
            "3",
            "--output",
            &model,
            "--quiet",
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let cases: [(&[&str], i32, &str); 5] = [
        (
            &["--target", &short],
            1,
            "10 target rows for 300 training rows",
        ),
        (
            &["--inverse-transform", "--alpha", "0"],
            2,
            "--alpha 0: must be finite and > 0",
        ),
        (&["--alpha", "1"], 2, "--inverse-transform"),
        (
            &["--report", "r.json", "--bound-confidence", "1.5"],
            2,
            "--bound-confidence 1.5",
        ),
        (&["--bound-confidence", "0.5"], 2, "--report"),
    ];
    for (extra, want, text) in cases {
        let (code, _, stderr) = fit(extra);
        assert_eq!(code, want, "{extra:?}: {stderr}");
        assert!(stderr.contains(text), "{extra:?}: {stderr}");
    }
    let (code, _, stderr) = fit(&[]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(&["predict", "--model", &model, "--input", &train]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no regression head"), "{stderr}");
    let (code, _, stderr) = run(&["reconstruct", "--model", &model, "--input", &train]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no pre-image section"), "{stderr}");
    assert!(ok(&["inspect", &model]).contains("optional sections: none"));
}
