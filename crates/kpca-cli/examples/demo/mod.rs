//! The demo's steps, following the DEMO PROTOCOL of `data/README.md` exactly:
//! read the recordings ([`recordings`]), cut them into windows of 24 features
//! ([`windows`]), fit a full RBF kernel PCA (gamma = 1/24, k = 4, standardised
//! input) on the Walking windows of the training split with the threshold at
//! the 99th percentile of the training scores, score every test window with the
//! device model ([`scoring`]), and write the model, its C export and the
//! firmware test data ([`outputs`]). [`run`] does all of it and returns the
//! report that the example prints.

mod outputs;
mod recordings;
mod scoring;
mod windows;

use kpca_cli::error::{CliError, CliResult};
use kpca_cli::output::float_text;
use outputs::{write_outputs, Written};
use recordings::{read_recordings, DATA, DATA_NAME};
use scoring::{fit_demo, score_test, DemoModel, Scores, N_COMPONENTS};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use windows::{windows, Window, NORMAL_CLASS, N_FEATURES, STRIDE, WINDOW};

/// The peers' numbers (scripts/peers/demo_peers.py writes them), built into the
/// program.
const PEERS_JSON: &str = include_str!("../../../../scripts/peers/demo_peers.json");
/// Where the peers' numbers come from, for the report.
const PEERS_NAME: &str = "scripts/peers/demo_peers.json";
/// The firmware step of the demo, from the repository root.
const FIRMWARE_SCRIPT: &str = "scripts/firmware-demo.sh";

/// The windows of the protocol: the normal training windows and every test
/// window with its label.
struct DemoData {
    /// Number of recordings read.
    recordings: usize,
    /// The normal windows of the training split.
    train: Vec<Window>,
    /// Every window of the test split.
    test: Vec<Window>,
    /// Whether each test window is anomalous.
    labels: Vec<bool>,
}

/// Runs the demo, writing its files into `output_dir`; returns the report,
/// which ends with the firmware step: announced as what the caller runs next
/// when `caller_runs_firmware` (scripts/demo.sh), else as the command to run.
pub fn run(output_dir: &Path, caller_runs_firmware: bool) -> CliResult<String> {
    let start = Instant::now();
    let data = read_windows()?;
    let model = fit_demo(&data.train)?;
    let scores = score_test(&model, &data.test, &data.labels)?;
    let peers = peer_aucs()?;
    let written = write_outputs(output_dir, &model, &scores, &data.test, &data.train)?;
    let mut report = setup_report(&data, &model)?;
    report.extend(results_report(&scores, &peers));
    report.extend(written_report(&written, start.elapsed()));
    report.extend(next_step_report(&written.dir, caller_runs_firmware));
    Ok(report.iter().map(|line| format!("{line}\n")).collect())
}

/// Reads the built-in recordings and cuts them into windows (protocol steps 1
/// to 4), checking that there is enough of each class.
fn read_windows() -> CliResult<DemoData> {
    let recordings = read_recordings(DATA.as_bytes(), DATA_NAME)?;
    let train: Vec<Window> = windows(&recordings, "train")
        .into_iter()
        .filter(|w| !w.is_anomaly())
        .collect();
    let test = windows(&recordings, "test");
    let labels: Vec<bool> = test.iter().map(Window::is_anomaly).collect();
    let n_anomalous = labels.iter().filter(|&&a| a).count();
    if train.len() <= N_COMPONENTS || n_anomalous == 0 || n_anomalous == test.len() {
        return Err(CliError::input(format!(
            "{DATA_NAME}: {} normal training windows and {} test windows ({n_anomalous} \
             anomalous): not enough for the demo",
            train.len(),
            test.len()
        )));
    }
    Ok(DemoData {
        recordings: recordings.len(),
        train,
        test,
        labels,
    })
}

/// The peers' ROC AUCs as recorded (not computed by this run).
struct Peers {
    /// The ROC AUCs (and the context baselines'), by name.
    aucs: Vec<(String, f64)>,
    /// The libraries that computed them ("scikit-learn 1.9.1, PyOD 3.6.7").
    versions: String,
}

/// The peers' ROC AUCs recorded in scripts/peers/demo_peers.json.
fn peer_aucs() -> CliResult<Peers> {
    let json: serde_json::Value = serde_json::from_str(PEERS_JSON)
        .map_err(|e| CliError::input(format!("{PEERS_NAME}: not valid JSON: {e}")))?;
    let version = |name: &str| {
        json.pointer(&format!("/versions/{name}"))
            .and_then(|v| v.as_str())
            .map_or_else(
                || format!("{name} (version not recorded)"),
                |v| format!("{name} {v}"),
            )
    };
    let versions = format!("{}, {}", version("scikit-learn"), version("pyod"));
    let mut out = Vec::new();
    for key in ["roc_auc", "roc_auc_context_baselines"] {
        if let Some(map) = json.get(key).and_then(|v| v.as_object()) {
            for (name, v) in map {
                if let Some(x) = v.as_f64() {
                    out.push((name.clone(), x));
                }
            }
        }
    }
    Ok(Peers {
        aucs: out,
        versions,
    })
}

/// The report's lines on the data and the model.
fn setup_report(data: &DemoData, model: &DemoModel) -> CliResult<Vec<String>> {
    let n_anomalous = data.labels.iter().filter(|&&a| a).count();
    let ev: Vec<String> = model
        .fitted
        .eigenvalues()
        .iter()
        .map(|v| format!("{v:.4}"))
        .collect();
    let ratio: f64 = model.fitted.explained_variance_ratio().iter().sum();
    let device = model.file.model();
    Ok(vec![
        format!(
            "data: {DATA_NAME} ({} recordings); windows of {WINDOW} steps, stride {STRIDE}, \
             {N_FEATURES} features each",
            data.recordings
        ),
        format!(
            "train: {} {NORMAL_CLASS} windows (normal operation); test: {} windows ({} normal, \
             {n_anomalous} anomalous)",
            data.train.len(),
            data.test.len(),
            data.test.len() - n_anomalous
        ),
        format!(
            "model: full kernel PCA, rbf (gamma = 1/{N_FEATURES}), k = {N_COMPONENTS}, \
             standardised; eigenvalues {} ({:.1}% of the variance); {} bytes; fit {:.1} ms",
            ev.join(" "),
            100.0 * ratio,
            model.file.bytes().len(),
            model.fit_time.as_secs_f64() * 1e3
        ),
        format!(
            "threshold: {} (99th percentile of the {} training scores)",
            float_text(device.threshold()),
            data.train.len()
        ),
    ])
}

/// The report's lines on the test results and the peers.
fn results_report(scores: &Scores, peers: &Peers) -> Vec<String> {
    let a = &scores.alarms;
    let per_class: Vec<String> = scores
        .per_class
        .iter()
        .map(|(c, auc)| format!("{c} {auc:.4}"))
        .collect();
    let mut lines = vec![
        "results on the held-out test windows (device model, f32):".to_string(),
        format!("  ROC AUC:          {:.6}", scores.auc),
        format!(
            "  false-alarm rate: {}/{} = {:.4}",
            a.false_alarms,
            a.normal,
            a.false_alarm_rate()
        ),
        format!(
            "  detection rate:   {}/{} = {:.4}",
            a.detections,
            a.anomalous,
            a.detection_rate()
        ),
        format!(
            "  f64 fit scores: ROC AUC {:.6}; largest |f32 device - f64| score difference {:.2e}",
            scores.auc64, scores.max_diff
        ),
        format!(
            "  AUC per anomaly class ({NORMAL_CLASS} vs X): {}",
            per_class.join(", ")
        ),
    ];
    if !peers.aucs.is_empty() {
        let text: Vec<String> = peers
            .aucs
            .iter()
            .map(|(n, v)| format!("{n} {v:.6}"))
            .collect();
        lines.push(format!(
            "  peers, as recorded in {PEERS_NAME} (scripts/peers/demo_peers.py with {}; \
             not computed by this run): {}",
            peers.versions,
            text.join(", ")
        ));
    }
    lines
}

/// The report's lines on the files written and the time taken.
fn written_report(written: &Written, elapsed: Duration) -> Vec<String> {
    let mut lines = vec![
        format!("wrote into {}:", written.dir.display()),
        format!("  {}  (model blob)", written.model.display()),
    ];
    for p in &written.exported {
        lines.push(format!("  {}  (C export)", p.display()));
    }
    let [vectors, expected, labels] = &written.firmware_data;
    lines.extend([
        format!(
            "  {}  (scatter, scree and anomaly view)",
            written.svg.display()
        ),
        format!(
            "  {}, {}, {}  (firmware test data)",
            vectors.display(),
            expected.display(),
            labels.display()
        ),
        format!(
            "  {}  (training windows, for the on-device fit)",
            written.train_vectors.display()
        ),
        format!(
            "time: {:.2} s (the demo itself, not its build)",
            elapsed.as_secs_f64()
        ),
    ]);
    lines
}

/// The firmware step, `scripts/firmware-demo.sh`, as an absolute path (the
/// repository this program was built from).
fn firmware_script() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(FIRMWARE_SCRIPT);
    std::fs::canonicalize(&path).unwrap_or(path)
}

/// The report's last lines: the firmware step on `dir` (absolute), either
/// announced as run next by the caller (`scripts/demo.sh` runs it) or as the
/// command to run, with absolute paths so that it works from any directory.
fn next_step_report(dir: &Path, caller_runs_it: bool) -> Vec<String> {
    let command = format!("{} {}", firmware_script().display(), dir.display());
    if caller_runs_it {
        vec![
            String::new(),
            "now the firmware step (scripts/demo.sh runs it):".to_string(),
            format!("  {command}"),
        ]
    } else {
        vec![
            String::new(),
            "next, run the model on the emulated Cortex-M4F firmware:".to_string(),
            format!("  {command}"),
        ]
    }
}
