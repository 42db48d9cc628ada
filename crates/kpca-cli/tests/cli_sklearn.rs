//! Running the documented flags on the scikit-learn fixtures reproduces
//! scikit-learn's test scores through the CLI: x_train and x_test go to CSV
//! files, `kpca fit` and `kpca project` run as a user would run them, and the
//! device's f32 scores are compared with `KernelPCA.transform` (and the anomaly
//! scores with the fixtures' f64 reference).

mod common;

use common::{matrix, write_csv};
// The largest of non-negative values, NaN when any is NaN (`f64::max` would
// skip a NaN and let the comparison after it pass).
use kpca_testkit::max_of;
use std::process::Command;

/// Coordinates: |cli - sklearn| <= this times the column's scale (max |sklearn|).
const SCORE_TOL: f64 = 1e-4;
/// Anomaly scores: |cli - reference| <= this times the size of the score's terms
/// (max over rows of e + ||y||^2, the centred k(x, x)). The score is a difference
/// of such terms computed in f32, so its absolute error is set by them, not by the
/// (possibly small) result.
const ANOMALY_TOL: f64 = 1e-4;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kpca"))
        .args(args)
        .output()
        .expect("kpca runs");
    assert!(
        out.status.success(),
        "kpca {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn cli_reproduces_sklearn_test_scores_on_every_full_fixture() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fixtures = kpca_testkit::fixture_dir();
    let mut names: Vec<_> = std::fs::read_dir(&fixtures)
        .expect("fixtures dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("full_") && n.ends_with(".json"))
        })
        .collect();
    names.sort();
    assert!(names.len() >= 5, "expected the full_*.json fixtures");
    for path in names {
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let fx: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let train = matrix(&fx["x_train"]);
        let test = matrix(&fx["x_test"]);
        let expected = matrix(&fx["test_scores"]);
        let k = fx["n_components"].as_u64().unwrap().to_string();
        let kernel = fx["kernel"].as_str().unwrap().to_string();
        let train_csv = dir.path().join(format!("{name}_train.csv"));
        let test_csv = dir.path().join(format!("{name}_test.csv"));
        let model = dir.path().join(format!("{name}.kpca"));
        let scores = dir.path().join(format!("{name}_scores.csv"));
        write_csv(&train_csv, &train);
        write_csv(&test_csv, &test);

        let mut args: Vec<String> = [
            "fit",
            "--input",
            train_csv.to_str().unwrap(),
            "--kernel",
            &kernel,
            "--components",
            &k,
            "--degree",
            &fx["degree"].as_u64().unwrap().to_string(),
            "--coef0",
            &format!("{:?}", fx["coef0"].as_f64().unwrap()),
            "--solver",
            "dense",
            "--output",
            model.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if let Some(g) = fx["gamma"].as_f64() {
            args.push("--gamma".into());
            args.push(format!("{g:?}"));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&args);
        run(&[
            "project",
            "--model",
            model.to_str().unwrap(),
            "--input",
            test_csv.to_str().unwrap(),
            "--output",
            scores.to_str().unwrap(),
            "--anomaly-score",
        ]);
        let got: Vec<Vec<f64>> = std::fs::read_to_string(&scores)
            .unwrap()
            .lines()
            .map(|l| l.split(',').map(|f| f.parse::<f64>().unwrap()).collect())
            .collect();
        assert_eq!(got.len(), expected.len(), "{name}: row count");
        let k: usize = k.parse().unwrap();
        for col in 0..k {
            let scale = max_of(expected.iter().map(|r| r[col].abs()));
            let worst = max_of(
                got.iter()
                    .zip(&expected)
                    .map(|(g, e)| (g[col] - e[col]).abs()),
            );
            eprintln!(
                "{name}: component {col} worst {worst:e} scale {scale:e} ratio {:e}",
                worst / scale
            );
            assert!(
                worst <= SCORE_TOL * scale,
                "{name}: component {} differs from scikit-learn by {worst:e} (scale {scale:e})",
                col + 1
            );
        }
        let anomaly = fx["test_anomaly_scores"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: no test_anomaly_scores"));
        let reference: Vec<f64> = anomaly.iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(reference.len(), got.len(), "{name}: anomaly score count");
        // The score is k(x,x) - 2c'k_x + s - ||y||^2: its rounding error scales
        // with the terms, of which ||y||^2 + e (the centred k(x,x)) is the size.
        let scale = max_of(
            got.iter()
                .zip(&reference)
                .map(|(g, e)| e.abs() + g[..k].iter().map(|y| y * y).sum::<f64>()),
        );
        let worst = max_of(got.iter().zip(&reference).map(|(g, e)| (g[k] - e).abs()));
        eprintln!(
            "{name}: anomaly worst {worst:e}, term scale {scale:e}, ratio {:e}",
            worst / scale
        );
        assert!(
            worst <= ANOMALY_TOL * scale,
            "{name}: anomaly scores differ by {worst:e} (scale of the terms {scale:e})"
        );
    }
}
