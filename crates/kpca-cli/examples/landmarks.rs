//! Nyström landmarks compared (README, "Nyström landmarks"): on the bundled
//! BasicMotions recordings, every Walking window of the training split at
//! stride 1 (810 windows of 24 features; the demo's protocol otherwise:
//! standardised input, RBF gamma = 1/24, k = 4) is fitted by full kernel PCA
//! and by Nyström kernel PCA with m landmarks chosen uniformly, by k-means++
//! and by randomly pivoted Cholesky, five seeds each. Reported, as the mean
//! over the seeds: the largest relative error of the 4 eigenvalues against
//! the full fit's, the largest error of the test windows' scores (each column
//! relative to its largest full-fit magnitude, up to its sign), and the ROC
//! AUC of the anomaly scores on the 360 test windows (stride 10) next to the
//! full fit's.
//!
//! ```text
//! cargo run --release -p kpca-cli --example landmarks
//! ```

#[path = "demo/recordings.rs"]
#[allow(dead_code)]
mod recordings;
#[path = "demo/windows.rs"]
#[allow(dead_code)]
mod windows;

use kpca_cli::metrics::roc_auc;
use kpca_fit::{Dataset, FittedKpca, KernelPca, KernelSpec, Nystrom};
use recordings::{read_recordings, DATA, DATA_NAME};
use windows::{window_features, windows, NORMAL_CLASS, N_FEATURES, WINDOW};

const K: usize = 4;

/// A landmark method: its name and how it makes m landmarks from a seed.
type Method = (&'static str, fn(usize, u64) -> Nystrom);
const SEEDS: u64 = 5;

fn fit(train: &Dataset<'_>, ny: Option<Nystrom>) -> FittedKpca {
    let mut p = KernelPca::params()
        .kernel(KernelSpec::rbf(1.0 / N_FEATURES as f64))
        .n_components(K)
        .standardize(true);
    if let Some(ny) = ny {
        p = p.nystrom(ny);
    }
    p.fit(train).expect("fit")
}

/// Largest |a - b| of each column relative to b's largest magnitude, up to
/// the column's sign.
fn score_err(a: &[f64], b: &[f64]) -> f64 {
    (0..K)
        .map(|l| {
            let col = |v: &[f64]| v.iter().skip(l).step_by(K).copied().collect::<Vec<_>>();
            let (x, y) = (col(a), col(b));
            let scale = y.iter().fold(0.0f64, |m, v| nan_max(m, v.abs()));
            let err = |s: f64| {
                x.iter()
                    .zip(&y)
                    .map(|(p, q)| (p - s * q).abs())
                    .fold(0.0, nan_max)
            };
            nan_min(err(1.0), err(-1.0)) / scale
        })
        .fold(0.0, nan_max)
}

fn main() {
    let recs = read_recordings(DATA.as_bytes(), DATA_NAME).expect("recordings");
    let train: Vec<f64> = recs
        .iter()
        .filter(|r| r.split == "train" && r.label == NORMAL_CLASS)
        .flat_map(|r| {
            r.series
                .windows(WINDOW)
                .flat_map(window_features)
                .collect::<Vec<_>>()
        })
        .collect();
    let test_windows = windows(&recs, "test");
    let test: Vec<f64> = test_windows.iter().flat_map(|w| w.features).collect();
    let labels: Vec<bool> = test_windows.iter().map(|w| w.is_anomaly()).collect();
    let train = Dataset::new(train, N_FEATURES).expect("train");
    let test = Dataset::new(test, N_FEATURES).expect("test");
    let full = fit(&train, None);
    let full_scores = full.transform(&test).expect("transform");
    let full_auc = roc_auc(&full.anomaly_score(&test).expect("scores"), &labels).expect("auc");
    println!(
        "{} training windows, {} test windows; full fit: ROC AUC {full_auc:.4}\n",
        train.n_rows(),
        test.n_rows()
    );
    println!("| landmarks | m | eigenvalue error | score error | ROC AUC (full {full_auc:.4}) |");
    println!("|---|--:|--:|--:|--:|");
    let methods: [Method; 3] = [
        ("uniform", Nystrom::random),
        ("k-means++", Nystrom::kmeans_pp),
        ("pivoted Cholesky", Nystrom::rp_cholesky),
    ];
    for m in [20, 50, 100, 200] {
        for (name, make) in &methods {
            let (mut eig, mut sc, mut auc) = (0.0, 0.0, 0.0);
            for seed in 0..SEEDS {
                let f = fit(&train, Some(make(m, seed)));
                eig += f
                    .eigenvalues()
                    .iter()
                    .zip(full.eigenvalues())
                    .map(|(a, b)| (a - b).abs() / b)
                    .fold(0.0, nan_max);
                sc += score_err(&f.transform(&test).expect("transform"), &full_scores);
                auc += roc_auc(&f.anomaly_score(&test).expect("scores"), &labels).expect("auc");
            }
            let n = SEEDS as f64;
            println!(
                "| {name} | {m} | {:.3} | {:.3} | {:.4} |",
                eig / n,
                sc / n,
                auc / n
            );
        }
    }
}

/// max(a, b) that keeps a NaN from either side (f64::max would drop it).
fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// min(a, b) that keeps a NaN from either side.
fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}
