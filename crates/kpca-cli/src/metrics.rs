//! Anomaly-detection metrics: ROC AUC (Mann-Whitney).

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
}
