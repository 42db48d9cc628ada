//! Windows and their features (protocol steps 2 to 4): every recording is cut
//! into windows of 20 time steps (stride 10), and each window becomes 24
//! features, the mean, population standard deviation, minimum and maximum of
//! each of the six channels.

use super::recordings::{Recording, CHANNELS};

/// The class of normal operation (protocol step 2).
pub const NORMAL_CLASS: &str = "Walking";
/// Window length W (protocol step 3).
pub const WINDOW: usize = 20;
/// Window stride (protocol step 3).
pub const STRIDE: usize = 10;
/// Features per window: 4 statistics x 6 channels (protocol step 4).
pub const N_FEATURES: usize = 4 * CHANNELS.len();
/// The statistics, in feature order (protocol step 4).
const STATISTICS: [&str; 4] = ["mean", "std", "min", "max"];

/// One window's features and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
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

/// The names of the features, `mean_acc_x` to `max_gyr_z`, in feature order.
pub fn feature_names() -> Vec<String> {
    STATISTICS
        .iter()
        .flat_map(|stat| CHANNELS.iter().map(move |ch| format!("{stat}_{ch}")))
        .collect()
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
        for (i, w) in rec.series.windows(WINDOW).step_by(STRIDE).enumerate() {
            out.push(Window {
                case: rec.case,
                label: rec.label.clone(),
                start: i * STRIDE,
                features: window_features(w),
            });
        }
    }
    out
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
        let names = feature_names();
        assert_eq!(names.len(), N_FEATURES);
        assert_eq!(
            (names[0].as_str(), names[23].as_str()),
            ("mean_acc_x", "max_gyr_z")
        );
    }

    #[test]
    fn windows_start_every_stride_and_fit_inside() {
        let rec = Recording {
            split: "test".into(),
            case: 3,
            label: NORMAL_CLASS.into(),
            series: vec![[0.0; 6]; 45],
        };
        let w = windows(&[rec], "test");
        let starts: Vec<usize> = w.iter().map(|w| w.start).collect();
        assert_eq!(starts, [0, 10, 20]);
        assert!(w.iter().all(|w| w.case == 3 && !w.is_anomaly()));
    }
}
