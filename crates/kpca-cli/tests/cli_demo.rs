//! The BasicMotions demo (examples/demo.rs) end to end: it follows the DEMO
//! PROTOCOL of data/README.md, gets the reference numbers, finishes fast, and
//! leaves files that the firmware test and `kpca project` agree with.
//!
//! The demo's steps (examples/demo/) are compiled into this test and run in
//! process, as the example's `main` runs them; the `kpca` binary inspects and
//! projects what they wrote.

#[path = "../examples/demo/mod.rs"]
mod demo;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The demo must finish in well under a minute (it takes about a second).
const DEMO_TIME_LIMIT: Duration = Duration::from_secs(30);
/// Device f32 scores against the numpy f64 reference scores (12 significant
/// digits): the f32 score of an O(1) quantity through 90 kernel terms.
const REFERENCE_SCORE_TOL: f64 = 1e-5;

fn root() -> &'static Path {
    kpca_testkit::repo_root()
}

fn kpca(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kpca"))
        .args(args)
        .current_dir(root())
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

/// Data lines of a CSV file with a header line, split on commas.
fn csv_rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut lines = text.lines();
    let header = lines
        .next()
        .expect("a header line")
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    (header, rows)
}

/// The pairwise definition of the ROC AUC (ties count half).
fn auc_pairs(scores: &[f64], anomalous: &[bool]) -> f64 {
    let (mut wins, mut pairs) = (0.0, 0.0);
    for (i, &si) in scores.iter().enumerate() {
        for (j, &sj) in scores.iter().enumerate() {
            if anomalous[i] && !anomalous[j] {
                pairs += 1.0;
                wins += if si > sj {
                    1.0
                } else if si == sj {
                    0.5
                } else {
                    0.0
                };
            }
        }
    }
    wins / pairs
}

#[test]
fn demo_follows_the_protocol_and_writes_firmware_files() {
    let out_dir = tempfile::tempdir().expect("temp dir");
    let out = out_dir.path();
    let started = Instant::now();
    let stdout = match demo::run(out, false) {
        Ok(report) => report,
        Err(e) => panic!("the demo failed: {e}"),
    };
    let elapsed = started.elapsed();
    assert!(elapsed < DEMO_TIME_LIMIT, "demo took {elapsed:?}");
    for needle in [
        "train: 90 Walking windows",
        "test: 360 windows (90 normal, 270 anomalous)",
        "eigenvalues 8.7841 4.4214 4.0880 3.8355 (31.3% of the variance)",
        "ROC AUC:          0.980123",
        "false-alarm rate: 10/90 = 0.1111",
        "detection rate:   266/270 = 0.9852",
        "Badminton 0.9996, Running 1.0000, Standing 0.9407",
        "peers, as recorded in scripts/peers/demo_peers.json (scripts/peers/demo_peers.py \
         with scikit-learn 1.9.1, pyod 3.6.7; not computed by this run): \
         a_ours_feature_space_error 0.980123, \
         b_sklearn_feature_space_error 0.980123, b_sklearn_input_space_error 0.980041, \
         c_pyod_kpca_decision_function 0.980123,",
    ] {
        assert!(
            stdout.contains(needle),
            "{needle:?} not in demo output:\n{stdout}"
        );
    }

    next_step_is_an_absolute_command(&stdout, out);

    // The model: valid, with the protocol's threshold (f32 of 1.005644080313).
    let model = out.join("demo_model.kpca");
    let info = kpca(&["inspect", model.to_str().unwrap()]);
    assert!(info.contains("check: OK"), "{info}");
    assert!(info.contains("kernel: rbf (gamma = 0.041666668)"), "{info}");
    assert!(info.contains("input dimension d: 24"), "{info}");
    assert!(info.contains("stored points m: 90"), "{info}");
    assert!(info.contains("components k: 4"), "{info}");
    assert!(info.contains("standardised input: yes"), "{info}");
    let expected_threshold = format!("anomaly threshold: {:?}", 1.005644080313f64 as f32);
    assert!(info.contains(&expected_threshold), "{info}");
    for f in ["demo_model.h", "demo_model.c"] {
        let text = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(text.contains("demo_model_blob"), "{f}");
    }
    let svg = std::fs::read_to_string(out.join("demo.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("demo.svg is valid XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let circles = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert!(circles >= 360, "{circles} circles");

    // Firmware test data: 360 vectors of 24 features, their f32 scores, labels.
    let (vh, vectors) = csv_rows(&out.join("test_vectors.csv"));
    assert_eq!(vh.len(), 24);
    assert_eq!(vh[0], "mean_acc_x");
    assert_eq!(vectors.len(), 360);
    assert!(vectors.iter().all(|r| r.len() == 24));
    let (sh, scores) = csv_rows(&out.join("expected_scores.csv"));
    assert_eq!(sh, ["y1", "y2", "y3", "y4", "anomaly_score"]);
    assert_eq!(scores.len(), 360);
    let (th, train) = csv_rows(&out.join("train_vectors.csv"));
    assert_eq!(th, vh);
    assert_eq!(train.len(), 90);
    assert!(train.iter().all(|r| r.len() == 24));
    let (_, labels) = csv_rows(&out.join("test_labels.csv"));
    let anomalous: Vec<bool> = labels.iter().map(|r| r[0] == "1").collect();
    assert_eq!(anomalous.iter().filter(|&&a| a).count(), 270);

    // expected_scores.csv is exactly what `kpca project` gives on test_vectors.csv.
    let projected = kpca(&[
        "project",
        "--model",
        model.to_str().unwrap(),
        "--input",
        out.join("test_vectors.csv").to_str().unwrap(),
        "--anomaly-score",
    ]);
    let projected: Vec<Vec<String>> = projected
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(projected, scores);

    // The scores match the numpy f64 reference of the protocol, window by window.
    let (rh, reference) = csv_rows(&root().join("scripts/peers/demo_reference_scores.csv"));
    let col = |name: &str| rh.iter().position(|h| h == name).expect("reference column");
    let (c_split, c_case, c_start, c_anom, c_score) = (
        col("split"),
        col("case"),
        col("start"),
        col("is_anomaly"),
        col("score"),
    );
    let reference: Vec<&Vec<String>> = reference.iter().filter(|r| r[c_split] == "test").collect();
    assert_eq!(reference.len(), 360);
    let device: Vec<f64> = scores.iter().map(|r| r[4].parse().unwrap()).collect();
    for ((r, l), (&d, &a)) in reference
        .iter()
        .zip(&labels)
        .zip(device.iter().zip(&anomalous))
    {
        assert_eq!((&r[c_case], &r[c_start]), (&l[2], &l[3]), "window order");
        assert_eq!(r[c_anom] == "1", a);
        let want: f64 = r[c_score].parse().unwrap();
        assert!(
            (d - want).abs() <= REFERENCE_SCORE_TOL,
            "case {} start {}: device {d} vs reference {want}",
            r[c_case],
            r[c_start]
        );
    }
    // The AUC printed is the AUC of these scores.
    let auc = auc_pairs(&device, &anomalous);
    assert!(stdout.contains(&format!("ROC AUC:          {auc:.6}")));
}

/// The report names its directory and the firmware step with absolute paths
/// (the step used to be printed as `scripts/firmware-demo.sh`, relative to the
/// repository, whatever the directory the demo was run from).
fn next_step_is_an_absolute_command(stdout: &str, out: &Path) {
    let out = std::fs::canonicalize(out).expect("output dir");
    let wrote = format!("wrote into {}:", out.display());
    assert!(stdout.contains(&wrote), "{wrote:?} not in:\n{stdout}");
    let mut lines = stdout
        .lines()
        .skip_while(|l| !l.starts_with("next, run the model"));
    assert!(lines.next().is_some(), "no next step in:\n{stdout}");
    let command = lines.next().expect("the command").trim();
    let (script, dir) = command.split_once(' ').expect("script and directory");
    assert!(
        Path::new(script).is_absolute() && Path::new(script).is_file(),
        "{script}"
    );
    assert!(script.ends_with("scripts/firmware-demo.sh"), "{script}");
    assert_eq!(Path::new(dir), out);
    // When scripts/demo.sh runs the step itself, the report says so.
    let dir2 = tempfile::tempdir().expect("temp dir");
    let report = demo::run(dir2.path(), true).expect("the demo runs");
    assert!(!report.contains("next, run"), "{report}");
    assert!(
        report.contains("now the firmware step (scripts/demo.sh runs it):"),
        "{report}"
    );
}
