//! The model and its scores (protocol steps 5 to 10): a full RBF kernel PCA fit
//! on the normal training windows, the device's f32 scores of every test window
//! (through `kpca_cli::projection`, the code of `kpca project`), and what they
//! give: alarms at the threshold, the ROC AUC overall and per anomaly class,
//! and the f64 fit's scores for comparison.

use super::windows::{feature_names, Window, N_FEATURES};
use kpca_cli::error::{fit_error, CliError, CliResult};
use kpca_cli::metrics::{max_abs_difference, roc_auc, AlarmCounts};
use kpca_cli::model_file::ModelFile;
use kpca_cli::projection::project_rows;
use kpca_cli::table::{RowOrigin, Table};
use kpca_fit::{Dataset, FittedKpca, KernelPca, KernelSpec, Solver};
use std::time::{Duration, Instant};

/// Components kept (protocol step 7).
pub const N_COMPONENTS: usize = 4;
/// False-alarm rate of the threshold: the 99th percentile of the training scores
/// (protocol step 9).
pub const FALSE_ALARM_RATE: f64 = 0.01;
/// Name of the model: the C identifier prefix and the file names.
pub const MODEL_NAME: &str = "demo_model";

/// The fitted model and its device blob.
pub struct DemoModel {
    /// The f64 fit.
    pub fitted: FittedKpca,
    /// The device model blob, 4-byte aligned.
    pub file: ModelFile,
    /// How long the fit took.
    pub fit_time: Duration,
}

/// Fits the demo model (protocol steps 5 to 9) on the normal training windows.
pub fn fit_demo(train: &[Window]) -> CliResult<DemoModel> {
    let fit_start = Instant::now();
    let values: Vec<f64> = train.iter().flat_map(|w| w.features).collect();
    let data = Dataset::new(values, N_FEATURES).map_err(|e| fit_error(e, "training windows"))?;
    let fitted = KernelPca::params()
        .kernel(KernelSpec::rbf(1.0 / N_FEATURES as f64))
        .n_components(N_COMPONENTS)
        .standardize(true)
        .solver(Solver::Dense)
        .false_alarm_rate(FALSE_ALARM_RATE)
        .check()
        .and_then(|p| p.fit(&data))
        .map_err(|e| fit_error(e, "training windows"))?;
    let fit_time = fit_start.elapsed();
    let blob = fitted
        .to_blob()
        .map_err(|e| CliError::input(format!("cannot build the device model: {e}")))?;
    let file = ModelFile::from_blob(blob, format!("{MODEL_NAME}.kpca"));
    Ok(DemoModel {
        fitted,
        file,
        fit_time,
    })
}

/// The test windows' device scores and what they give.
pub struct Scores {
    /// The test feature vectors as the firmware receives them (f32), one row per
    /// window: the rows of test_vectors.csv.
    pub vectors: Table<f32>,
    /// Components per row.
    pub k: usize,
    /// The f32 coordinates, rows x k.
    pub coords: Vec<f32>,
    /// The f32 anomaly scores.
    pub scores: Vec<f32>,
    /// Alarms at the threshold.
    pub alarms: AlarmCounts,
    /// ROC AUC of the device scores.
    pub auc: f64,
    /// ROC AUC of the f64 fit's scores.
    pub auc64: f64,
    /// Largest |f32 device - f64 fit| score difference.
    pub max_diff: f64,
    /// (class, ROC AUC of the normal windows against that class) per anomaly class.
    pub per_class: Vec<(String, f64)>,
}

/// Scores every test window with the device model (step 10) and the f64 fit.
pub fn score_test(model: &DemoModel, test: &[Window], labels: &[bool]) -> CliResult<Scores> {
    let device = model.file.model();
    let vectors = test_vectors(test);
    let (coords, scores) = project_rows(device, &vectors)?;
    let threshold = device.threshold();
    let scores64: Vec<f64> = scores.iter().map(|&s| f64::from(s)).collect();
    let auc = roc_auc(&scores64, labels)
        .ok_or_else(|| CliError::input("cannot compute the ROC AUC (NaN score)"))?;
    // The same in f64 through the fit, to show the device loses nothing.
    let test_values: Vec<f64> = test.iter().flat_map(|w| w.features).collect();
    let exact = Dataset::new(test_values, N_FEATURES)
        .and_then(|d| model.fitted.anomaly_score(&d))
        .map_err(|e| fit_error(e, "test windows"))?;
    Ok(Scores {
        vectors,
        k: device.n_components(),
        alarms: AlarmCounts::count(&scores, labels, threshold),
        auc,
        auc64: roc_auc(&exact, labels).unwrap_or(f64::NAN),
        max_diff: max_abs_difference(&exact, &scores64),
        per_class: per_class_auc(test, &scores64),
        coords,
        scores,
    })
}

/// The test windows' features rounded to f32, as the rows of test_vectors.csv
/// (a header line, then one line per window).
fn test_vectors(test: &[Window]) -> Table<f32> {
    Table {
        values: test
            .iter()
            .flat_map(|w| w.features.map(|v| v as f32))
            .collect(),
        n_cols: N_FEATURES,
        header: Some(feature_names()),
        origins: (0..test.len())
            .map(|i| RowOrigin::Line(i as u64 + 2))
            .collect(),
        one_d: false,
        name: "test_vectors.csv".into(),
    }
}

/// The ROC AUC of the normal windows against each anomaly class, by class name.
fn per_class_auc(test: &[Window], scores: &[f64]) -> Vec<(String, f64)> {
    let mut classes: Vec<&str> = test
        .iter()
        .filter(|w| w.is_anomaly())
        .map(|w| w.label.as_str())
        .collect();
    classes.sort_unstable();
    classes.dedup();
    classes
        .iter()
        .filter_map(|&c| {
            let (s, l): (Vec<f64>, Vec<bool>) = test
                .iter()
                .zip(scores)
                .filter(|(w, _)| !w.is_anomaly() || w.label == c)
                .map(|(w, &s)| (s, w.is_anomaly()))
                .unzip();
            roc_auc(&s, &l).map(|a| (c.to_string(), a))
        })
        .collect()
}
