//! The anomaly threshold from scores of normal vectors: numpy's linear
//! quantile at 1 - rate, and its recalibration in a writable blob without a
//! refit.

use crate::error::Error;
use crate::format::rewrite_threshold;
use crate::model::ModelRef;

/// Checks a false-alarm rate: finite and strictly between 0 and 1.
pub(crate) fn check_rate(rate: f32) -> Result<(), Error> {
    if rate > 0.0 && rate < 1.0 {
        Ok(())
    } else {
        Err(Error::BadFalseAlarmRate)
    }
}

/// numpy's default (linear) quantile at `q` of `values`, which it sorts in
/// place: position q (n - 1) in the sorted values, linear interpolation
/// between its neighbours. `None` for no values.
pub(crate) fn quantile(values: &mut [f32], q: f32) -> Option<f32> {
    let last = values.len().checked_sub(1)?;
    heap_sort(values);
    // Position q (n - 1) as a whole part and a fraction, exactly for any n
    // (an f32 product would drift from numpy's f64 one for large n): q in
    // [0, 1] is scaled to a 24-bit integer numerator Q, so Q (n - 1) / 2^24
    // splits by integer division.
    let scale = 1u64 << 24;
    let numerator = (q.clamp(0.0, 1.0) * scale as f32) as u64 * last as u64;
    let lo = ((numerator / scale) as usize).min(last);
    let frac = (numerator % scale) as f32 / scale as f32;
    let a = values.get(lo).copied()?;
    let b = values.get(lo + 1).copied().unwrap_or(a);
    Some(a + frac * (b - a))
}

/// Sorts ascending (IEEE total order) in place, in O(n log n), with no
/// recursion and no allocation.
fn heap_sort(v: &mut [f32]) {
    let n = v.len();
    for start in (0..n / 2).rev() {
        crate::codegen::keep_rolled();
        sift_down(v, start, n);
    }
    for end in (1..n).rev() {
        crate::codegen::keep_rolled();
        swap(v, 0, end);
        sift_down(v, 0, end);
    }
}

/// Restores the max-heap property of `v[..end]` below `root`.
fn sift_down(v: &mut [f32], mut root: usize, end: usize) {
    let get = |v: &[f32], i: usize| v.get(i).copied().unwrap_or(0.0);
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && get(v, child).total_cmp(&get(v, child + 1)).is_lt() {
            child += 1;
        }
        if get(v, root).total_cmp(&get(v, child)).is_ge() {
            return;
        }
        swap(v, root, child);
        root = child;
    }
}

/// Swaps two elements (nothing when either index is out of range).
fn swap(v: &mut [f32], i: usize, j: usize) {
    if i < v.len() && j < v.len() {
        v.swap(i, j);
    }
}

/// The threshold for `rate` from the anomaly scores in `scores` (sorted in
/// place): their (1 - rate) quantile, or 0 (unset) when that is not > 0.
pub(crate) fn threshold_of(scores: &mut [f32], rate: f32) -> f32 {
    match quantile(scores, 1.0 - rate) {
        Some(q) if q > 0.0 && q.is_finite() => q,
        _ => 0.0,
    }
}

/// Sets a new anomaly threshold in a writable model blob without refitting:
/// the (1 - `false_alarm_rate`) quantile of the anomaly scores of the
/// row-major vectors `normals` (each of the model's dimension d), for a site
/// where "normal" has drifted. Writes the threshold into the header and
/// updates the CRC-32; returns the threshold. A loaded view of the old blob
/// (a C `kpca_model`) keeps the old threshold: load it again.
///
/// `scratch` needs one float per vector. On error the blob is unchanged.
///
/// Errors: the loader's for `blob`; [`Error::BadFalseAlarmRate`];
/// [`Error::BatchLength`] when `normals` is not whole rows;
/// [`Error::TooFewRows`] for no vector; [`Error::WorkspaceTooSmall`];
/// the projection's for a vector ([`Error::NonFiniteInput`],
/// [`Error::NonFiniteResult`]); [`Error::ThresholdUnset`] when the quantile is
/// not > 0 (the vectors reconstruct exactly).
pub fn recalibrate(
    blob: &mut [u8],
    normals: &[f32],
    false_alarm_rate: f32,
    scratch: &mut [f32],
) -> Result<f32, Error> {
    let threshold = threshold_from(
        &ModelRef::from_bytes(blob)?,
        normals,
        false_alarm_rate,
        scratch,
    )?;
    rewrite_threshold(blob, threshold);
    Ok(threshold)
}

/// The threshold of `model` for `false_alarm_rate` from the row-major
/// `normals`, their scores in `scratch` (the checks of [`recalibrate`]).
pub(crate) fn threshold_from(
    model: &ModelRef<'_>,
    normals: &[f32],
    false_alarm_rate: f32,
    scratch: &mut [f32],
) -> Result<f32, Error> {
    check_rate(false_alarm_rate)?;
    let d = model.dim();
    if !normals.len().is_multiple_of(d) {
        return Err(Error::BatchLength);
    }
    let n = normals.len() / d.max(1);
    if n == 0 {
        return Err(Error::TooFewRows);
    }
    let scores = scratch.get_mut(..n).ok_or(Error::WorkspaceTooSmall)?;
    model.anomaly_score_batch(normals, scores)?;
    match threshold_of(scores, false_alarm_rate) {
        0.0 => Err(Error::ThresholdUnset),
        t => Ok(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// numpy.quantile(v, q) for v = 0, 1, ..., 9 shuffled, by its definition.
    #[test]
    fn quantile_interpolates_like_numpy() {
        let mut v: Vec<f32> = [7.0, 2.0, 9.0, 0.0, 4.0, 1.0, 8.0, 3.0, 6.0, 5.0].to_vec();
        let near = |got: Option<f32>, want: f32| got.is_some_and(|g| (g - want).abs() <= 1e-6);
        assert!(near(quantile(&mut v.clone(), 0.95), 8.55));
        assert!(near(quantile(&mut v.clone(), 0.5), 4.5));
        assert_eq!(quantile(&mut v.clone(), 1.0), Some(9.0));
        assert_eq!(quantile(&mut v, 0.0), Some(0.0));
        assert_eq!(quantile(&mut [], 0.5), None);
        assert_eq!(quantile(&mut [3.0], 0.9), Some(3.0));
    }

    #[test]
    fn heap_sort_sorts_every_permutation_of_a_small_set() {
        let base = [3.0f32, -1.0, 2.5, 2.5, 0.0, -7.0];
        let mut sorted = base;
        sorted.sort_by(f32::total_cmp);
        for seed in 0..720u32 {
            let mut v = base;
            // A permutation per seed (Lehmer code).
            let mut s = seed;
            for i in (1..v.len()).rev() {
                let j = (s % (i as u32 + 1)) as usize;
                s /= i as u32 + 1;
                v.swap(i, j);
            }
            heap_sort(&mut v);
            assert_eq!(v, sorted, "seed {seed}");
        }
    }

    #[test]
    fn rates_outside_the_open_unit_interval_are_refused() {
        for r in [0.0f32, 1.0, -0.1, 1.5, f32::NAN, f32::INFINITY] {
            assert_eq!(check_rate(r), Err(Error::BadFalseAlarmRate), "{r}");
        }
        assert_eq!(check_rate(0.05), Ok(()));
    }
}
