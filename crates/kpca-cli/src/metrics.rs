//! Anomaly-detection metrics: ROC AUC (Mann-Whitney), alarm counts at a
//! threshold, and the largest difference between two score lists.

/// ROC AUC of `scores` against 0/1 `labels` (true = anomalous, the positive
/// class), computed as the Mann-Whitney statistic: the fraction of
/// (normal, anomalous) pairs in which the anomalous one scores higher, ties
/// counting one half. Equals `sklearn.metrics.roc_auc_score`. `None` when one of
/// the classes is empty or the lengths differ. O(n log n): ranks with ties
/// averaged.
pub fn roc_auc(scores: &[f64], labels: &[bool]) -> Option<f64> {
    if scores.len() != labels.len() || scores.iter().any(|s| s.is_nan()) {
        return None;
    }
    let n_pos = labels.iter().filter(|&&l| l).count();
    let n_neg = labels.len() - n_pos;
    if n_pos == 0 || n_neg == 0 {
        return None;
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&i, &j| scores[i].total_cmp(&scores[j]));
    // Sum of the (1-based, tie-averaged) ranks of the positives.
    let mut rank_sum = 0.0f64;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && scores[order[end]] == scores[order[start]] {
            end += 1;
        }
        let avg_rank = (start + 1 + end) as f64 / 2.0;
        let pos_in_group = order[start..end].iter().filter(|&&i| labels[i]).count();
        rank_sum += avg_rank * pos_in_group as f64;
        start = end;
    }
    let n_pos_f = n_pos as f64;
    let u = rank_sum - n_pos_f * (n_pos_f + 1.0) / 2.0;
    Some(u / (n_pos_f * n_neg as f64))
}

/// Alarms at a threshold (an alarm when score > threshold), counted among the
/// normal and the anomalous rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlarmCounts {
    /// Alarms among normal rows.
    pub false_alarms: usize,
    /// Normal rows.
    pub normal: usize,
    /// Alarms among anomalous rows.
    pub detections: usize,
    /// Anomalous rows.
    pub anomalous: usize,
}

impl AlarmCounts {
    /// Counts alarms (strict `>`) of `scores` against 0/1 `anomalous` labels.
    pub fn count(scores: &[f32], anomalous: &[bool], threshold: f32) -> AlarmCounts {
        let mut r = AlarmCounts {
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

    /// False alarms / normal rows (0 when there are none).
    pub fn false_alarm_rate(&self) -> f64 {
        self.false_alarms as f64 / self.normal.max(1) as f64
    }

    /// Detections / anomalous rows (0 when there are none).
    pub fn detection_rate(&self) -> f64 {
        self.detections as f64 / self.anomalous.max(1) as f64
    }
}

/// The largest `|a[i] - b[i]|` (0 for empty lists); NaN when any difference is
/// NaN, so a NaN score is never hidden by the others.
pub fn max_abs_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, |m, d| if d > m || d.is_nan() { d } else { m })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The O(n^2) definition, for checking the ranked version.
    fn auc_pairs(scores: &[f64], labels: &[bool]) -> f64 {
        let mut wins = 0.0;
        let mut pairs = 0.0;
        for (i, &si) in scores.iter().enumerate() {
            for (j, &sj) in scores.iter().enumerate() {
                if labels[i] && !labels[j] {
                    pairs += 1.0;
                    if si > sj {
                        wins += 1.0;
                    } else if si == sj {
                        wins += 0.5;
                    }
                }
            }
        }
        wins / pairs
    }

    #[test]
    fn auc_matches_pairwise_definition_with_ties() {
        let scores = [0.1, 0.4, 0.35, 0.8, 0.4, 0.4, 0.2, 0.9, 0.1];
        let labels = [false, true, false, true, false, true, false, true, true];
        let got = roc_auc(&scores, &labels).unwrap();
        assert!((got - auc_pairs(&scores, &labels)).abs() < 1e-15);
        // sklearn.metrics.roc_auc_score([0,0,1,1], [0.1,0.4,0.35,0.8]) = 0.75
        let got = roc_auc(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true]).unwrap();
        assert!((got - 0.75).abs() < 1e-15);
        assert_eq!(roc_auc(&[1.0, 1.0], &[true, false]), Some(0.5));
        assert_eq!(roc_auc(&[1.0], &[true]), None);
    }

    #[test]
    fn alarms_count_strictly_above() {
        let r = AlarmCounts::count(&[0.5, 1.0, 2.0, 0.1], &[false, true, true, false], 1.0);
        assert_eq!(
            (r.false_alarms, r.normal, r.detections, r.anomalous),
            (0, 2, 1, 2)
        );
        assert_eq!(r.detection_rate(), 0.5);
        assert_eq!(r.false_alarm_rate(), 0.0);
    }

    #[test]
    fn max_abs_difference_propagates_nan() {
        assert_eq!(max_abs_difference(&[1.0, -2.0], &[1.5, 1.0]), 3.0);
        assert_eq!(max_abs_difference(&[], &[]), 0.0);
        assert!(max_abs_difference(&[f64::NAN, 5.0], &[0.0, 0.0]).is_nan());
        assert!(max_abs_difference(&[5.0, f64::NAN], &[0.0, 0.0]).is_nan());
    }
}
