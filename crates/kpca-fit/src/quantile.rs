//! numpy's default (linear) quantile, of every value (the in-memory fit) or of
//! the largest values only (the streamed fit keeps just those).

/// numpy's default (linear) quantile of `values` at `q` in [0, 1]:
/// sorted v, position q (n - 1), linear interpolation between its neighbours.
pub fn quantile(values: &[f64], q: f64) -> Option<f64> {
    if values.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    quantile_from_tail(&v, v.len(), q)
}

/// numpy's linear quantile at `q` of `n` values from `tail`, their largest
/// values ascending, at least the [`tail_length`] largest: the streamed fit
/// keeps only those, the in-memory fit passes every value.
pub(crate) fn quantile_from_tail(tail: &[f64], n: usize, q: f64) -> Option<f64> {
    if n == 0 || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let pos = q * (n - 1) as f64;
    let lo = pos.floor() as usize;
    let frac = pos - lo as f64;
    let first = n.checked_sub(tail.len())?;
    let a = *tail.get(lo.checked_sub(first)?)?;
    // q = 1 lands on the last value, which has no right neighbour.
    let b = if lo + 1 < n {
        *tail.get(lo + 1 - first)?
    } else {
        a
    };
    Some(a + frac * (b - a))
}

/// How many of the largest of n values numpy's linear quantile at `q`
/// reads: those from sorted position floor(q (n - 1)) on.
pub(crate) fn tail_length(n: usize, q: f64) -> usize {
    let lo = (q * n.saturating_sub(1) as f64).floor() as usize;
    n.saturating_sub(lo).max(1)
}
