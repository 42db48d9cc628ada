//! Parts arrays: the flat f64 arrays that carry a partial result (the sums of
//! a Nyström fit, a column survey, a score summary) between workers to be
//! merged, each starting with its counts.

/// The count stored at `a[i]` of a parts array: a whole number in [0, 1e15),
/// or `None`.
pub(crate) fn count_at(a: &[f64], i: usize) -> Option<usize> {
    match a.get(i) {
        Some(&x) if x >= 0.0 && x.fract() == 0.0 && x < 1e15 => Some(x as usize),
        _ => None,
    }
}
