//! `kpca demo`: anomaly detection on the bundled BasicMotions recordings,
//! following the DEMO PROTOCOL of `data/README.md` exactly.
//!
//! Windows of 20 steps (stride 10) of the 6-channel recordings become 24
//! features (mean, population std, min, max per channel); a full RBF kernel PCA
//! (gamma = 1/24, k = 4, standardised input) is fitted on the Walking windows of
//! the training split; the threshold is the 99th percentile of the training
//! scores; every test window is scored by the device model (f32, the core's code
//! path) and the ROC AUC, false-alarm rate and detection rate are reported.

use crate::cmd_export::{export_blob, ExportFormat};
use crate::error::{fit_error, CliError, CliResult};
use crate::metrics::roc_auc;
use crate::model_file::ModelFile;
use crate::model_summary::info_from_model;
use crate::output::{ensure_dir, float_text, write_file, Sink};
use crate::plot::{two_panel_svg, Figure, Group};
use clap::Args;
use kpca_fit::{Dataset, FittedKpca, KernelPca, KernelSpec, Solver};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The class of normal operation (protocol step 2).
pub const NORMAL_CLASS: &str = "Walking";
/// Channels, in feature order (protocol step 1).
pub const CHANNELS: [&str; 6] = ["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"];
/// Window length W (protocol step 3).
pub const WINDOW: usize = 20;
/// Window stride (protocol step 3).
pub const STRIDE: usize = 10;
/// Features per window: 4 statistics x 6 channels (protocol step 4).
pub const N_FEATURES: usize = 4 * CHANNELS.len();
/// Components kept (protocol step 7).
pub const N_COMPONENTS: usize = 4;
/// False-alarm rate of the threshold: the 99th percentile of the training scores
/// (protocol step 9).
pub const FALSE_ALARM_RATE: f64 = 0.01;

/// Arguments of `kpca demo`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Follows the DEMO PROTOCOL of data/README.md: windows of 20 steps \
    (stride 10), 24 features per window (mean, std, min, max of each of the 6 channels), \
    normal class Walking, train on the 90 Walking windows of the training split, test on all \
    360 windows of the test split, standardised input, RBF kernel with gamma = 1/24, k = 4, \
    threshold = 99th percentile of the training scores (1% false alarms on the training \
    data). Scores are the device model's f32 scores.\n\n\
    Writes into the output directory: NAME.kpca (model blob), NAME.h and NAME.c (C export), \
    demo.svg (test windows on the first two components, coloured normal/anomalous, and the \
    scree plot), test_vectors.csv (the 360 test feature vectors), expected_scores.csv (their \
    f32 coordinates and anomaly scores), test_labels.csv (0 normal, 1 anomalous).\n\n\
    Example:\n  kpca demo --output-dir demo-out"
)]
pub struct DemoArgs {
    /// The BasicMotions CSV (data/README.md describes it).
    #[arg(long, value_name = "FILE", default_value = "data/basicmotions.csv")]
    pub data: PathBuf,
    /// Directory for the outputs (created if missing).
    #[arg(long, value_name = "DIR", default_value = "demo-out")]
    pub output_dir: PathBuf,
    /// Name of the exported model (C identifier prefix and file names).
    #[arg(long, value_name = "NAME", default_value = "demo_model")]
    pub name: String,
}

/// One recording: split, case index, label and its 6-channel series.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// `train` or `test`.
    pub split: String,
    /// 0-based case index within the split.
    pub case: usize,
    /// Class name.
    pub label: String,
    /// series[t][channel].
    pub series: Vec<[f64; 6]>,
}

/// One window's features and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// Split of its recording.
    pub split: String,
    /// Case index of its recording.
    pub case: usize,
    /// Class name of its recording.
    pub label: String,
    /// First time step t0.
    pub start: usize,
    /// The 24 features.
    pub features: [f64; N_FEATURES],
}

impl Window {
    /// Whether the window is anomalous (not the normal class).
    pub fn is_anomaly(&self) -> bool {
        self.label != NORMAL_CLASS
    }
}

/// A case's label and its values by time step.
type CaseSteps = (String, BTreeMap<usize, [f64; 6]>);

/// Reads the BasicMotions CSV into recordings, ordered by split (as in the file),
/// then case, with each series ordered by t. Checks that every case has the
/// time steps 0..T-1 exactly once and one label.
pub fn read_recordings(path: &Path) -> CliResult<Vec<Recording>> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        CliError::input(format!(
            "{name}: cannot read: {e} (run from the repository root, or pass --data)"
        ))
    })?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(&bytes[..]);
    let headers = reader
        .headers()
        .map_err(|e| CliError::input(format!("{name}: cannot read the header line: {e}")))?
        .clone();
    let col = |wanted: &str| -> CliResult<usize> {
        headers.iter().position(|h| h == wanted).ok_or_else(|| {
            CliError::input(format!(
                "{name}: line 1: no column {wanted:?} (expected the columns case, split, label, \
                 t, {})",
                CHANNELS.join(", ")
            ))
        })
    };
    let (c_case, c_split, c_label, c_t) = (col("case")?, col("split")?, col("label")?, col("t")?);
    let c_ch: Vec<usize> = CHANNELS.iter().map(|c| col(c)).collect::<CliResult<_>>()?;
    // (split order, case) -> (label, t -> values)
    let mut split_order: Vec<String> = Vec::new();
    let mut cases: BTreeMap<(usize, usize), CaseSteps> = BTreeMap::new();
    for result in reader.records() {
        let record =
            result.map_err(|e| CliError::input(format!("{name}: cannot parse CSV: {e}")))?;
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        let field = |c: usize| record.get(c).unwrap_or("");
        let at = |c: usize| {
            format!(
                "{name}: line {line}, column {} ({})",
                c + 1,
                headers.get(c).unwrap_or("")
            )
        };
        let int = |c: usize| -> CliResult<usize> {
            field(c).parse::<usize>().map_err(|_| {
                CliError::input(format!(
                    "{}: expected an integer >= 0, found {:?}",
                    at(c),
                    field(c)
                ))
            })
        };
        let case = int(c_case)?;
        let t = int(c_t)?;
        let split = field(c_split).to_string();
        let label = field(c_label).to_string();
        let mut values = [0.0f64; 6];
        for (v, &c) in values.iter_mut().zip(&c_ch) {
            let parsed = field(c).parse::<f64>().map_err(|_| {
                CliError::input(format!(
                    "{}: expected a number, found {:?}",
                    at(c),
                    field(c)
                ))
            })?;
            if !parsed.is_finite() {
                return Err(CliError::input(format!(
                    "{}: {:?} is not a finite number",
                    at(c),
                    field(c)
                )));
            }
            *v = parsed;
        }
        let split_index = match split_order.iter().position(|s| *s == split) {
            Some(i) => i,
            None => {
                split_order.push(split.clone());
                split_order.len() - 1
            }
        };
        let entry = cases
            .entry((split_index, case))
            .or_insert_with(|| (label.clone(), BTreeMap::new()));
        if entry.0 != label {
            return Err(CliError::input(format!(
                "{}: label {label:?} differs from {:?} earlier in {split} case {case}",
                at(c_label),
                entry.0
            )));
        }
        if entry.1.insert(t, values).is_some() {
            return Err(CliError::input(format!(
                "{}: time step {t} of {split} case {case} appears twice",
                at(c_t)
            )));
        }
    }
    if cases.is_empty() {
        return Err(CliError::input(format!("{name}: no data rows")));
    }
    let mut out = Vec::with_capacity(cases.len());
    for ((split_index, case), (label, steps)) in cases {
        let split = split_order.get(split_index).cloned().unwrap_or_default();
        let n = steps.len();
        if steps.keys().copied().ne(0..n) {
            return Err(CliError::input(format!(
                "{name}: {split} case {case}: time steps are not 0..{} without gaps",
                n.saturating_sub(1)
            )));
        }
        out.push(Recording {
            split,
            case,
            label,
            series: steps.into_values().collect(),
        });
    }
    Ok(out)
}

/// The 24 features of one window (protocol step 4): for stat in (mean, std with
/// ddof = 0, min, max), for each channel: `features[stat * 6 + channel]`.
pub fn window_features(window: &[[f64; 6]]) -> [f64; N_FEATURES] {
    let n = window.len() as f64;
    let mut f = [0.0f64; N_FEATURES];
    for ch in 0..CHANNELS.len() {
        let values = window.iter().map(|row| row[ch]);
        let mean = values.clone().sum::<f64>() / n;
        let var = values.clone().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        let min = values.clone().fold(f64::INFINITY, f64::min);
        let max = values.fold(f64::NEG_INFINITY, f64::max);
        f[ch] = mean;
        f[6 + ch] = var.sqrt();
        f[12 + ch] = min;
        f[18 + ch] = max;
    }
    f
}

/// Every window of every recording of `split`, by case then start (protocol step 3).
pub fn windows(recordings: &[Recording], split: &str) -> Vec<Window> {
    let mut out = Vec::new();
    for rec in recordings.iter().filter(|r| r.split == split) {
        let mut start = 0;
        while start + WINDOW <= rec.series.len() {
            if let Some(w) = rec.series.get(start..start + WINDOW) {
                out.push(Window {
                    split: rec.split.clone(),
                    case: rec.case,
                    label: rec.label.clone(),
                    start,
                    features: window_features(w),
                });
            }
            start += STRIDE;
        }
    }
    out
}

/// Fits the demo model (protocol steps 5 to 9) on the normal training windows.
pub fn fit_demo(train: &[Window]) -> CliResult<FittedKpca> {
    let values: Vec<f64> = train.iter().flat_map(|w| w.features).collect();
    let data = Dataset::new(values, N_FEATURES).map_err(|e| fit_error(e, "training windows"))?;
    KernelPca::params()
        .kernel(KernelSpec::rbf(1.0 / N_FEATURES as f64))
        .n_components(N_COMPONENTS)
        .standardize(true)
        .solver(Solver::Dense)
        .false_alarm_rate(FALSE_ALARM_RATE)
        .check()
        .and_then(|p| p.fit(&data))
        .map_err(|e| fit_error(e, "training windows"))
}

/// Detection statistics of scores against a threshold (alarm when score > threshold).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    /// Alarms among normal windows.
    pub false_alarms: usize,
    /// Normal windows.
    pub normal: usize,
    /// Alarms among anomalous windows.
    pub detections: usize,
    /// Anomalous windows.
    pub anomalous: usize,
}

impl Rates {
    /// Counts alarms (strict `>`).
    pub fn count(scores: &[f32], anomalous: &[bool], threshold: f32) -> Rates {
        let mut r = Rates {
            false_alarms: 0,
            normal: 0,
            detections: 0,
            anomalous: 0,
        };
        for (&s, &a) in scores.iter().zip(anomalous) {
            let alarm = s > threshold;
            if a {
                r.anomalous += 1;
                r.detections += usize::from(alarm);
            } else {
                r.normal += 1;
                r.false_alarms += usize::from(alarm);
            }
        }
        r
    }
    /// False alarms / normal windows.
    pub fn false_alarm_rate(&self) -> f64 {
        self.false_alarms as f64 / self.normal.max(1) as f64
    }
    /// Detections / anomalous windows.
    pub fn detection_rate(&self) -> f64 {
        self.detections as f64 / self.anomalous.max(1) as f64
    }
}

/// The peers' AUCs from `scripts/peers/demo_peers.json`, if that file is there.
fn peer_aucs(data: &Path) -> Vec<(String, f64)> {
    let root = data
        .parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| Path::new("."));
    let path = root.join("scripts/peers/demo_peers.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
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
    out
}

/// Runs `kpca demo`.
pub fn run(args: &DemoArgs) -> CliResult<()> {
    let start = Instant::now();
    let recordings = read_recordings(&args.data)?;
    let train: Vec<Window> = windows(&recordings, "train")
        .into_iter()
        .filter(|w| !w.is_anomaly())
        .collect();
    let test = windows(&recordings, "test");
    let labels: Vec<bool> = test.iter().map(Window::is_anomaly).collect();
    let n_anomalous = labels.iter().filter(|&&a| a).count();
    if train.len() <= N_COMPONENTS || n_anomalous == 0 || n_anomalous == test.len() {
        return Err(CliError::input(format!(
            "{}: {} normal training windows and {} test windows ({n_anomalous} anomalous): \
             not enough for the demo",
            args.data.display(),
            train.len(),
            test.len()
        )));
    }
    println!(
        "data: {} ({} recordings); windows of {WINDOW} steps, stride {STRIDE}, {N_FEATURES} \
         features each",
        args.data.display(),
        recordings.len()
    );
    println!(
        "train: {} {NORMAL_CLASS} windows (normal operation); test: {} windows ({} normal, \
         {n_anomalous} anomalous)",
        train.len(),
        test.len(),
        test.len() - n_anomalous
    );

    let fit_start = Instant::now();
    let fitted = fit_demo(&train)?;
    let fit_time = fit_start.elapsed();
    let blob = fitted
        .to_blob()
        .map_err(|e| CliError::input(format!("cannot build the device model: {e}")))?;
    let file = ModelFile::from_bytes(&blob, format!("{}.kpca", args.name));
    let model = file.model()?;
    let ev: Vec<String> = fitted
        .eigenvalues()
        .iter()
        .map(|v| format!("{v:.4}"))
        .collect();
    let ratio: f64 = fitted.explained_variance_ratio().iter().sum();
    println!(
        "model: full kernel PCA, rbf (gamma = 1/{N_FEATURES}), k = {N_COMPONENTS}, standardised; \
         eigenvalues {} ({:.1}% of the variance); {} bytes; fit {:.1} ms",
        ev.join(" "),
        100.0 * ratio,
        blob.len(),
        fit_time.as_secs_f64() * 1e3
    );

    // The device's f32 scores (features rounded to f32, as the firmware receives them).
    let k = model.n_components();
    let mut vectors: Vec<f32> = Vec::with_capacity(test.len() * N_FEATURES);
    let mut coords = vec![0.0f32; test.len() * k];
    let mut scores = Vec::with_capacity(test.len());
    for (w, y) in test.iter().zip(coords.chunks_exact_mut(k)) {
        let x: Vec<f32> = w.features.iter().map(|&v| v as f32).collect();
        let e = model.project_and_score(&x, y).map_err(|e| {
            CliError::input(format!(
                "test case {} window {}: cannot project: {e}",
                w.case, w.start
            ))
        })?;
        vectors.extend_from_slice(&x);
        scores.push(e);
    }
    let threshold = model.threshold();
    let rates = Rates::count(&scores, &labels, threshold);
    let scores64: Vec<f64> = scores.iter().map(|&s| f64::from(s)).collect();
    let auc = roc_auc(&scores64, &labels)
        .ok_or_else(|| CliError::input("cannot compute the ROC AUC (NaN score)"))?;
    // The same in f64 through the fit, to show the device loses nothing.
    let test_values: Vec<f64> = test.iter().flat_map(|w| w.features).collect();
    let exact = Dataset::new(test_values, N_FEATURES)
        .and_then(|d| fitted.anomaly_score(&d))
        .map_err(|e| fit_error(e, "test windows"))?;
    let max_diff = exact
        .iter()
        .zip(&scores64)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f64, f64::max);
    let auc64 = roc_auc(&exact, &labels).unwrap_or(f64::NAN);

    println!(
        "threshold: {} (99th percentile of the {} training scores)",
        float_text(threshold),
        train.len()
    );
    println!("results on the held-out test windows (device model, f32):");
    println!("  ROC AUC:          {auc:.6}");
    println!(
        "  false-alarm rate: {}/{} = {:.4}",
        rates.false_alarms,
        rates.normal,
        rates.false_alarm_rate()
    );
    println!(
        "  detection rate:   {}/{} = {:.4}",
        rates.detections,
        rates.anomalous,
        rates.detection_rate()
    );
    println!(
        "  f64 fit scores: ROC AUC {auc64:.6}; largest |f32 device - f64| score difference {max_diff:.2e}"
    );
    let mut classes: Vec<&str> = test
        .iter()
        .filter(|w| w.is_anomaly())
        .map(|w| w.label.as_str())
        .collect();
    classes.sort_unstable();
    classes.dedup();
    let per_class: Vec<String> = classes
        .iter()
        .filter_map(|&c| {
            let (s, l): (Vec<f64>, Vec<bool>) = test
                .iter()
                .zip(&scores64)
                .filter(|(w, _)| !w.is_anomaly() || w.label == c)
                .map(|(w, &s)| (s, w.is_anomaly()))
                .unzip();
            roc_auc(&s, &l).map(|a| format!("{c} {a:.4}"))
        })
        .collect();
    println!(
        "  AUC per anomaly class ({NORMAL_CLASS} vs X): {}",
        per_class.join(", ")
    );
    let peers = peer_aucs(&args.data);
    if !peers.is_empty() {
        let text: Vec<String> = peers.iter().map(|(n, v)| format!("{n} {v:.6}")).collect();
        println!(
            "  peers (scripts/peers/demo_peers.json): {}",
            text.join(", ")
        );
    }

    // Outputs.
    let dir = ensure_dir(&args.output_dir)?;
    let model_path = dir.join(format!("{}.kpca", args.name));
    write_file(&model_path, &blob)?;
    let info = info_from_model(&model, "kpca demo (data/README.md DEMO PROTOCOL)");
    let exported = export_blob(&blob, &info, ExportFormat::C, &args.name, &dir)?;
    let mut sink = Sink::create(&dir.join("test_vectors.csv"))?;
    let mut header: Vec<String> = Vec::new();
    for stat in ["mean", "std", "min", "max"] {
        for ch in CHANNELS {
            header.push(format!("{stat}_{ch}"));
        }
    }
    sink.text_row(&header)?;
    for row in vectors.chunks_exact(N_FEATURES) {
        sink.float_row(row)?;
    }
    sink.finish()?;
    let mut sink = Sink::create(&dir.join("expected_scores.csv"))?;
    let mut header: Vec<String> = (1..=k).map(|l| format!("y{l}")).collect();
    header.push("anomaly_score".into());
    sink.text_row(&header)?;
    for (y, &e) in coords.chunks_exact(k).zip(&scores) {
        let mut row = y.to_vec();
        row.push(e);
        sink.float_row(&row)?;
    }
    sink.finish()?;
    let mut sink = Sink::create(&dir.join("test_labels.csv"))?;
    sink.text_row(&["is_anomaly", "label", "case", "start"])?;
    for w in &test {
        sink.text_row(&[
            if w.is_anomaly() { "1" } else { "0" }.to_string(),
            w.label.clone(),
            w.case.to_string(),
            w.start.to_string(),
        ])?;
    }
    sink.finish()?;
    let mut normal = Group {
        name: format!("normal ({NORMAL_CLASS})"),
        points: Vec::new(),
    };
    let mut anomalous = Group {
        name: "anomalous (other activities)".into(),
        points: Vec::new(),
    };
    for (y, &a) in coords.chunks_exact(k).zip(&labels) {
        let p = (
            f64::from(y.first().copied().unwrap_or(0.0)),
            f64::from(y.get(1).copied().unwrap_or(0.0)),
        );
        if a {
            anomalous.points.push(p);
        } else {
            normal.points.push(p);
        }
    }
    let ratios = fitted.explained_variance_ratio().to_vec();
    let fig = Figure {
        scatter_title: "BasicMotions test windows, first two components",
        axes: ("component 1", "component 2"),
        groups: &[normal, anomalous],
        scree_title: "explained variance (of the centred kernel matrix)",
        scree_y: "share of variance",
        ratios: &ratios,
    };
    let svg_path = dir.join("demo.svg");
    write_file(&svg_path, two_panel_svg(&fig)?.as_bytes())?;

    println!("wrote into {}:", dir.display());
    println!("  {}  (model blob)", model_path.display());
    for p in &exported {
        println!("  {}  (C export)", p.display());
    }
    println!("  {}  (scatter and scree)", svg_path.display());
    println!(
        "  {}, {}, {}  (firmware test data)",
        dir.join("test_vectors.csv").display(),
        dir.join("expected_scores.csv").display(),
        dir.join("test_labels.csv").display()
    );
    println!("time: {:.2} s", start.elapsed().as_secs_f64());
    println!();
    println!("next, run the model on the emulated Cortex-M4F firmware:");
    println!("  scripts/firmware-demo.sh {}", dir.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_follow_the_protocol_layout() {
        let window: Vec<[f64; 6]> = (0..WINDOW)
            .map(|t| {
                let v = t as f64;
                [v, -v, 1.0, 2.0 * v, 0.0, v * v]
            })
            .collect();
        let f = window_features(&window);
        // mean of 0..19 = 9.5, population std = sqrt((20^2 - 1) / 12)
        assert_eq!(f[0], 9.5);
        assert!((f[6] - ((400.0f64 - 1.0) / 12.0).sqrt()).abs() < 1e-12);
        assert_eq!(f[2], 1.0);
        assert_eq!(f[8], 0.0);
        assert_eq!((f[12], f[18]), (0.0, 19.0));
        assert_eq!((f[13], f[19]), (-19.0, 0.0));
        assert_eq!(f[23], 361.0);
    }

    #[test]
    fn rates_count_strictly_above() {
        let r = Rates::count(&[0.5, 1.0, 2.0, 0.1], &[false, true, true, false], 1.0);
        assert_eq!(
            (r.false_alarms, r.normal, r.detections, r.anomalous),
            (0, 2, 1, 2)
        );
        assert_eq!(r.detection_rate(), 0.5);
    }
}
