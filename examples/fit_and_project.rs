//! The host half of a kpca project: fit a detector on sensor data, write the
//! model blob that goes into the firmware, and check that the device code
//! (the `no_std_detector` library next to this file, over `kpca`) gives the
//! fit's results.
//!
//! ```sh
//! cargo run --release -p kpca-examples --example fit_and_project [OUT_DIR]
//! ```
//!
//! 1. reads `data/basicmotions.csv` (smartwatch accelerometer and gyroscope,
//!    six channels sampled every 0.1 s, four activities; data/README.md);
//! 2. fits Nyström kernel PCA (RBF, standardised inputs, 64 landmarks,
//!    4 components) on the training samples of one activity, Walking, with
//!    `kpca::fit`; the threshold flags 5% of the training samples;
//! 3. writes the device model blob to `OUT_DIR/walking.kpca` (default
//!    `$CARGO_TARGET_DIR/examples-out`, else `target/examples-out` at the
//!    repository root) and prints its size;
//! 4. reads the file back into a `kpca::fit::ModelBlob` (aligned, validated once)
//!    and projects one test sample, next to the f64 fit's result;
//! 5. copies the blob into a fixed-capacity `kpca::OwnedModel<6, 64, 4>`, runs
//!    the debounced detector of `no_std_detector` over every test recording and
//!    prints, per activity, the share of anomalous samples and how many
//!    recordings raised the alarm.
//!
//! Exits with an error when the device's f32 results differ from the fit's f64
//! results by more than 1e-4 of their scale.

use kpca::fit::{Dataset, KernelPca, KernelSpec, ModelBlob, Nystrom};
use no_std_detector::{copy_to_ram, Detector};
use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};

/// The six sensor channels.
const D: usize = 6;
/// Landmarks of the Nyström fit: the stored points of the device model.
const M: usize = 64;
/// Components.
const K: usize = 4;
/// Anomalous samples in a row that raise the alarm (1 s at 10 Hz).
const RUN: u32 = 10;
/// The activity the detector learns as normal.
const NORMAL: &str = "Walking";

/// One recording of the data set: its split, activity and samples.
struct Recording {
    split: String,
    label: String,
    samples: Vec<[f64; D]>,
}

fn read_recordings(path: &Path) -> Result<Vec<Recording>, Box<dyn Error>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut by_case: BTreeMap<(String, u32), Recording> = BTreeMap::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        // case,split,label,t,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z
        let fields: Vec<&str> = line.split(',').collect();
        let [case, split, label, _t, values @ ..] = fields.as_slice() else {
            return Err(format!("{}:{}: too few columns", path.display(), n + 1).into());
        };
        let mut x = [0.0; D];
        if values.len() != D {
            return Err(format!("{}:{}: expected {D} values", path.display(), n + 1).into());
        }
        for (xi, v) in x.iter_mut().zip(values) {
            *xi = v.parse()?;
        }
        by_case
            .entry((split.to_string(), case.parse()?))
            .or_insert_with(|| Recording {
                split: split.to_string(),
                label: label.to_string(),
                samples: Vec::new(),
            })
            .samples
            .push(x);
    }
    Ok(by_case.into_values().collect())
}

fn main() -> Result<(), Box<dyn Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("examples/ has no parent")?
        .to_path_buf();
    let out_dir = match (
        std::env::args_os().nth(1),
        std::env::var_os("CARGO_TARGET_DIR"),
    ) {
        (Some(dir), _) => PathBuf::from(dir),
        (None, Some(target)) => PathBuf::from(target).join("examples-out"),
        (None, None) => root.join("target/examples-out"),
    };

    // 1. The data.
    let recordings = read_recordings(&root.join("data/basicmotions.csv"))?;
    let train: Vec<f64> = recordings
        .iter()
        .filter(|r| r.split == "train" && r.label == NORMAL)
        .flat_map(|r| r.samples.iter().flatten().copied())
        .collect();
    let train = Dataset::new(train, D)?;
    println!(
        "data: {} recordings; fitting on the {} training samples of {NORMAL}",
        recordings.len(),
        train.n_rows()
    );

    // 2. The fit (f64, on the host).
    let fitted = KernelPca::params()
        .kernel(KernelSpec::rbf(None))
        .n_components(K)
        .standardize(true)
        .nystrom(Nystrom::random(M, 7))
        .false_alarm_rate(0.05)
        .fit(&train)?;
    println!(
        "fit: Nyström kernel PCA, rbf, {M} landmarks, {K} components, explained variance {:.3?}, threshold {:.4}",
        fitted.explained_variance_ratio(),
        fitted.threshold()
    );

    // 3. The blob the firmware embeds.
    let blob = fitted.to_blob()?;
    std::fs::create_dir_all(&out_dir)?;
    let blob_path = out_dir.join("walking.kpca");
    std::fs::write(&blob_path, blob.as_bytes())?;
    println!("model: {} bytes -> {}", blob.len(), blob_path.display());

    // 4. Read it back (one copy to 4-byte-aligned memory, which the loader
    // needs, and the core's full check, as the device's load does) and
    // project one test sample. On a device the blob is a 4-aligned `static`
    // instead (`no_std_detector::Aligned`).
    let stored = ModelBlob::read(&blob_path)?;
    let view = stored.model();
    let test = recordings
        .iter()
        .find(|r| r.split == "test" && r.label == NORMAL)
        .ok_or("no test recording")?;
    let x64 = test.samples[50];
    let x: [f32; D] = x64.map(|v| v as f32);
    let mut y = [0.0f32; K];
    let score = view.project_and_score(&x, &mut y)?;
    let one = Dataset::new(&x64[..], D)?;
    let y64 = fitted.transform(&one)?;
    let e64 = fitted.anomaly_score(&one)?[0];
    println!("sample {x:?}");
    println!("  device (f32): coordinates {y:.5?}, score {score:.5}");
    println!("  fit    (f64): coordinates {y64:.5?}, score {e64:.5}");

    // 5. The no_std detector over every test recording, with the model copied
    //    into a fixed-capacity owned model (as a device that received the blob
    //    into a buffer would).
    let (worst, scale) = run_detector(&fitted, stored.as_bytes(), &recordings)?;
    let rel = worst / nan_max(scale, f64::MIN_POSITIVE);
    println!("\ndevice (f32) vs fit (f64) scores over the test data: largest difference {rel:.2e} of their scale");
    // Written so that a NaN difference fails too.
    if rel.is_nan() || rel > 1e-4 {
        return Err(format!("the device's scores differ from the fit's by {rel:e}").into());
    }
    Ok(())
}

/// Runs the debounced `no_std_detector` over every test recording, from the
/// blob copied into a fixed-capacity owned model, and prints the share of
/// anomalous samples and the alarms per activity. Returns the largest
/// difference between the device's and the fit's scores, and the scores' scale.
fn run_detector(
    fitted: &kpca::fit::FittedKpca,
    blob: &[u8],
    recordings: &[Recording],
) -> Result<(f64, f64), Box<dyn Error>> {
    let mut y = [0.0f32; K];
    let owned: kpca::OwnedModel<D, M, K> = copy_to_ram(blob)?;
    let owned_view = owned.as_model_ref()?;
    let mut worst = 0.0f64;
    let mut scale = 0.0f64;
    println!("\ndetector (alarm after {RUN} anomalous samples in a row), test recordings:");
    println!("  activity   anomalous samples   recordings with an alarm");
    let mut per_label: BTreeMap<&str, (usize, usize, usize, usize)> = BTreeMap::new();
    for r in recordings.iter().filter(|r| r.split == "test") {
        let mut detector = Detector::new(owned_view, RUN)?;
        let xs: Vec<f64> = r.samples.iter().flatten().copied().collect();
        let fit_scores = fitted.anomaly_score(&Dataset::new(&xs[..], D)?)?;
        let mut alarm = false;
        let entry = per_label.entry(&r.label).or_default();
        for (sample, fit_score) in r.samples.iter().zip(fit_scores) {
            let x = sample.map(|v| v as f32);
            let s = detector.update(&x, &mut y)?;
            worst = nan_max(worst, (s.score as f64 - fit_score).abs());
            scale = nan_max(scale, fit_score.abs());
            entry.0 += usize::from(s.anomalous);
            entry.1 += 1;
            alarm |= s.alarm;
        }
        entry.2 += usize::from(alarm);
        entry.3 += 1;
    }
    for (label, (anomalous, samples, alarms, n)) in &per_label {
        println!(
            "  {label:<10} {:>5.1}% of {samples:<5}      {alarms} of {n}",
            100.0 * *anomalous as f64 / *samples as f64
        );
    }
    Ok((worst, scale))
}

/// max(a, b) that keeps a NaN from either side (f64::max would drop it).
fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}
