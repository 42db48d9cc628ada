//! The files the demo writes: the model blob, its C export (as `kpca export
//! --format c` writes it), the figure (scatter, scree and anomaly view), and
//! the firmware test data (test vectors, their expected f32 scores, their
//! labels).

use super::scoring::{DemoModel, Scores, MODEL_NAME};
use super::windows::{Window, NORMAL_CLASS};
use kpca_cli::cmd_export::{export_blob, ExportFormat};
use kpca_cli::error::CliResult;
use kpca_cli::model_summary::info_from_model;
use kpca_cli::output::{ensure_dir, write_file, Sink};
use kpca_cli::plot::{figure_svg, AnomalyView, Figure, Group};
use std::path::{Path, PathBuf};

/// The source named in the generated C files' comment block.
const EXPORT_SOURCE: &str = "kpca demo (data/README.md DEMO PROTOCOL)";

/// The paths written.
pub struct Written {
    /// The output directory (absolute when it could be resolved).
    pub dir: PathBuf,
    /// The model blob.
    pub model: PathBuf,
    /// The C export (header and source).
    pub exported: Vec<PathBuf>,
    /// The figure.
    pub svg: PathBuf,
    /// test_vectors.csv, expected_scores.csv, test_labels.csv.
    pub firmware_data: [PathBuf; 3],
    /// train_vectors.csv: the training windows, for the on-device fit.
    pub train_vectors: PathBuf,
}

/// Writes every output into `output_dir` (created if missing).
pub fn write_outputs(
    output_dir: &Path,
    model: &DemoModel,
    scores: &Scores,
    test: &[Window],
    train: &[Window],
) -> CliResult<Written> {
    let dir = ensure_dir(output_dir)?;
    // Absolute, so that the report names the files wherever it is read.
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let blob = model.file.blob();
    let model_path = dir.join(format!("{MODEL_NAME}.kpca"));
    write_file(&model_path, blob.as_bytes())?;
    let info = info_from_model(model.file.model(), EXPORT_SOURCE);
    let exported = export_blob(blob, &info, ExportFormat::C, MODEL_NAME, &dir)?;
    let firmware_data =
        ["test_vectors.csv", "expected_scores.csv", "test_labels.csv"].map(|f| dir.join(f));
    let [vectors, expected, labels] = &firmware_data;
    write_vectors(vectors, scores)?;
    write_expected_scores(expected, scores)?;
    write_labels(labels, test)?;
    let train_vectors = dir.join("train_vectors.csv");
    write_windows(&train_vectors, train)?;
    let svg = dir.join("demo.svg");
    write_figure(&svg, model, scores, test)?;
    Ok(Written {
        dir,
        model: model_path,
        exported,
        svg,
        firmware_data,
        train_vectors,
    })
}

/// train_vectors.csv: the feature names, then the f32 features of each
/// training window (what the on-device fit learns from,
/// scripts/firmware-learn.sh).
fn write_windows(path: &Path, windows: &[Window]) -> CliResult<()> {
    let mut sink = Sink::create(path)?;
    sink.text_row(&super::windows::feature_names())?;
    for w in windows {
        let row: Vec<f32> = w.features.iter().map(|&v| v as f32).collect();
        sink.float_row(&row)?;
    }
    sink.finish()
}

/// test_vectors.csv: the feature names, then the f32 features of each window.
fn write_vectors(path: &Path, scores: &Scores) -> CliResult<()> {
    let mut sink = Sink::create(path)?;
    sink.text_row(scores.vectors.header.as_deref().unwrap_or(&[]))?;
    for row in scores.vectors.rows() {
        sink.float_row(row)?;
    }
    sink.finish()
}

/// expected_scores.csv: y1..yk and the anomaly score of each window, as
/// `kpca project --anomaly-score --header` writes them.
fn write_expected_scores(path: &Path, scores: &Scores) -> CliResult<()> {
    let mut sink = Sink::create(path)?;
    let mut header: Vec<String> = (1..=scores.k).map(|l| format!("y{l}")).collect();
    header.push("anomaly_score".into());
    sink.text_row(&header)?;
    for (y, &e) in scores.coords.chunks_exact(scores.k).zip(&scores.scores) {
        let mut row = y.to_vec();
        row.push(e);
        sink.float_row(&row)?;
    }
    sink.finish()
}

/// test_labels.csv: 1 for an anomalous window, its class, case and start.
fn write_labels(path: &Path, test: &[Window]) -> CliResult<()> {
    let mut sink = Sink::create(path)?;
    sink.text_row(&["is_anomaly", "label", "case", "start"])?;
    for w in test {
        sink.text_row(&[
            if w.is_anomaly() { "1" } else { "0" }.to_string(),
            w.label.clone(),
            w.case.to_string(),
            w.start.to_string(),
        ])?;
    }
    sink.finish()
}

/// The test windows as (row number from 1, anomaly score), normal and
/// anomalous, in the groups of the scatter.
fn score_groups(scores: &Scores, test: &[Window]) -> [Group; 2] {
    let mut normal = Vec::new();
    let mut anomalous = Vec::new();
    for (i, (&e, w)) in scores.scores.iter().zip(test).enumerate() {
        let p = ((i + 1) as f64, f64::from(e));
        if w.is_anomaly() {
            anomalous.push(p);
        } else {
            normal.push(p);
        }
    }
    group_names(normal, anomalous)
}

/// The demo's two groups, with their legend names.
fn group_names(normal: Vec<(f64, f64)>, anomalous: Vec<(f64, f64)>) -> [Group; 2] {
    [
        Group {
            name: format!("normal ({NORMAL_CLASS})"),
            points: normal,
        },
        Group {
            name: "anomalous (other activities)".into(),
            points: anomalous,
        },
    ]
}

/// demo.svg: the test windows on the first two components, normal and
/// anomalous, the scree plot of the fit, and every test window's anomaly score
/// against the threshold.
fn write_figure(path: &Path, model: &DemoModel, scores: &Scores, test: &[Window]) -> CliResult<()> {
    let mut normal = Vec::new();
    let mut anomalous = Vec::new();
    for (y, w) in scores.coords.chunks_exact(scores.k).zip(test) {
        let p = (
            f64::from(y.first().copied().unwrap_or(0.0)),
            f64::from(y.get(1).copied().unwrap_or(0.0)),
        );
        if w.is_anomaly() {
            anomalous.push(p);
        } else {
            normal.push(p);
        }
    }
    let groups = group_names(normal, anomalous);
    let by_row = score_groups(scores, test);
    let threshold = model.fitted.threshold();
    let above = scores
        .scores
        .iter()
        .filter(|&&e| f64::from(e) > threshold)
        .count();
    let anomaly_title = format!(
        "test windows' anomaly scores: {above} of {} above the threshold",
        scores.scores.len()
    );
    let fig = Figure {
        scatter_title: "BasicMotions test windows, first two components",
        axes: ("component 1", "component 2"),
        groups: &groups,
        scree_title: "explained variance (of the centred kernel matrix)",
        scree_y: "share of the fit's total variance",
        ratios: model.fitted.explained_variance_ratio(),
        scree_note: None,
        anomaly: Some(AnomalyView {
            title: &anomaly_title,
            groups: &by_row,
            threshold: (threshold > 0.0).then_some(threshold),
        }),
    };
    write_file(path, figure_svg(&fig)?.as_bytes())
}
