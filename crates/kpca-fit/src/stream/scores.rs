//! The last pass of a streamed fit: what the training scores decide without
//! being kept. scikit-learn's sign rule needs each score column's entry of
//! largest absolute value, the threshold the upper tail of the anomaly
//! scores, the reconstruction-error curve the mean self term.

use crate::decomposition::LargestEntries;
use crate::error::FitError;
use crate::quantile::{quantile_from_tail, tail_length};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::vec;
use std::vec::Vec;

/// An f64 ordered by `total_cmp`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ordered(f64);

impl Eq for Ordered {}
impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The `keep` largest of the values seen (a min-heap of them).
#[derive(Clone, Debug)]
pub(crate) struct TopValues {
    keep: usize,
    heap: BinaryHeap<Reverse<Ordered>>,
}

impl TopValues {
    /// Keeps the `keep` largest values.
    pub fn new(keep: usize) -> Self {
        TopValues {
            keep,
            heap: BinaryHeap::with_capacity(keep.min(1 << 20)),
        }
    }

    /// Offers one value.
    pub fn push(&mut self, v: f64) {
        if self.heap.len() < self.keep {
            self.heap.push(Reverse(Ordered(v)));
        } else if let Some(mut low) = self.heap.peek_mut() {
            if Ordered(v) > low.0 {
                *low = Reverse(Ordered(v));
            }
        }
    }

    /// The kept values, ascending.
    pub fn ascending(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self.heap.iter().map(|r| r.0 .0).collect();
        v.sort_by(f64::total_cmp);
        v
    }
}

/// The score pass's summary over some rows, in order: per score column the
/// entry of largest magnitude (for scikit-learn's sign rule), the sum of the
/// self terms (for the curve) and the largest anomaly scores (for numpy's
/// quantile). Parts merge in the rows' order ([`ScoreSummary::merge`]) and
/// cross process boundaries as a flat array ([`ScoreSummary::to_array`]).
#[derive(Clone, Debug)]
pub struct ScoreSummary {
    k: usize,
    n: usize,
    /// For the sign rule.
    largest: LargestEntries,
    self_sum: f64,
    tail: TopValues,
}

impl ScoreSummary {
    /// For k components over `n_total` rows, with the threshold at quantile
    /// `q` of the anomaly scores.
    pub(crate) fn new(k: usize, n_total: usize, q: f64) -> Self {
        ScoreSummary {
            k,
            n: 0,
            largest: LargestEntries::new(k),
            self_sum: 0.0,
            tail: TopValues::new(tail_length(n_total, q)),
        }
    }

    /// Adds rows: their scores (rows x k, row-major, signs as solved) and
    /// their self terms k(x, x) - 2 c'k_x + s. [`FitError::NonFiniteKernel`]
    /// for a score that is not finite.
    pub(crate) fn update(&mut self, scores: &[f64], self_terms: &[f64]) -> Result<(), FitError> {
        let k = self.k.max(1);
        for (y, &e0) in scores.chunks_exact(k).zip(self_terms) {
            self.largest.update(y);
            let sum_sq: f64 = y.iter().map(|v| v * v).sum();
            let e = e0 - sum_sq;
            if !(e.is_finite() && e0.is_finite() && sum_sq.is_finite()) {
                return Err(FitError::NonFiniteKernel);
            }
            self.self_sum += e0;
            self.tail.push(e);
        }
        self.n += self_terms.len();
        Ok(())
    }

    /// Rows summarised.
    pub fn n_rows(&self) -> usize {
        self.n
    }

    /// Adds the summary of the rows that follow these
    /// ([`FitError::SumsMismatch`] for another k or tail length): on a tie
    /// of magnitudes the earlier rows' sign stays, as in one pass.
    pub fn merge(&mut self, later: &ScoreSummary) -> Result<(), FitError> {
        if later.k != self.k || later.tail.keep != self.tail.keep {
            return Err(FitError::SumsMismatch);
        }
        self.largest.merge(&later.largest);
        self.self_sum += later.self_sum;
        self.n += later.n;
        for v in later.tail.ascending() {
            self.tail.push(v);
        }
        Ok(())
    }

    /// The summary as one f64 array: k, n, the tail length, then per column
    /// magnitude and sign, the self-term sum and the tail values.
    pub fn to_array(&self) -> Vec<f64> {
        let mut out = vec![self.k as f64, self.n as f64, self.tail.keep as f64];
        for b in &self.largest.best {
            out.extend_from_slice(&[b.0, b.1]);
        }
        out.push(self.self_sum);
        out.extend(self.tail.ascending());
        out
    }

    /// The summary of [`ScoreSummary::to_array`] ([`FitError::BadParts`]
    /// for an array that is not one).
    pub fn from_array(a: &[f64]) -> Result<Self, FitError> {
        let bad = FitError::BadParts {
            what: "score summary",
        };
        let count = |i: usize| crate::parts::count_at(a, i).ok_or_else(|| bad.clone());
        let (k, n, keep) = (count(0)?, count(1)?, count(2)?);
        let head = 3 + 2 * k + 1;
        let tail = a.get(head..).ok_or_else(|| bad.clone())?;
        if tail.len() > keep || tail.len() > n || a.iter().any(|v| !v.is_finite()) {
            return Err(bad);
        }
        let best = a[3..3 + 2 * k]
            .chunks_exact(2)
            .map(|p| (p[0], p[1]))
            .collect();
        let mut top = TopValues::new(keep);
        tail.iter().for_each(|&v| top.push(v));
        Ok(ScoreSummary {
            k,
            n,
            largest: LargestEntries { best },
            self_sum: a[head - 1],
            tail: top,
        })
    }

    /// The factor (+1 or -1) of each score column under scikit-learn's sign
    /// rule (see `decomposition::sign_rule`).
    pub(crate) fn signs(&self) -> Vec<f64> {
        self.largest.signs()
    }

    /// The mean self term (the mean anomaly score with no component kept).
    pub(crate) fn mean_self_term(&self) -> f64 {
        self.self_sum / self.n as f64
    }

    /// numpy's linear quantile at `q` of the anomaly scores (the q given to
    /// [`ScoreSummary::new`], over the n_total rows it was given).
    pub(crate) fn quantile(&self, q: f64) -> Option<f64> {
        quantile_from_tail(&self.tail.ascending(), self.n, q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantile::quantile;

    #[test]
    fn the_tail_gives_numpys_quantile_exactly() {
        let values: Vec<f64> = (0..997).map(|i| ((i * 7919) % 997) as f64 * 0.37).collect();
        for q in [0.0, 0.01, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0] {
            let mut top = TopValues::new(tail_length(values.len(), q));
            values.iter().for_each(|&v| top.push(v));
            let got = quantile_from_tail(&top.ascending(), values.len(), q);
            assert_eq!(got, quantile(&values, q), "q = {q}");
        }
        // One value, and a tail shorter than needed (refused, not misread).
        assert_eq!(quantile_from_tail(&[3.0], 1, 0.99), Some(3.0));
        assert_eq!(quantile_from_tail(&[3.0], 10, 0.5), None);
    }

    #[test]
    fn the_summary_keeps_the_sign_of_each_columns_first_largest_entry() {
        let mut s = ScoreSummary::new(2, 4, 0.5);
        s.update(&[0.5, -1.0, -2.0, 0.1], &[9.0, 9.0])
            .expect("finite");
        s.update(&[2.0, 1.0, 0.0, 0.0], &[9.0, 9.0])
            .expect("finite");
        assert_eq!(s.signs(), [-1.0, -1.0]);
        assert_eq!(s.mean_self_term(), 9.0);
        let e = [9.0 - 1.25, 9.0 - 4.01, 9.0 - 5.0, 9.0];
        assert_eq!(s.quantile(0.5), quantile(&e, 0.5));
        let err = s.update(&[f64::NAN, 0.0], &[1.0]).unwrap_err();
        assert_eq!(err, FitError::NonFiniteKernel);
    }
}
