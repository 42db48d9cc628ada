//! One-line hints about a model that is likely useless, shown on standard
//! error after the report (never fatal; `--quiet` drops them): the kept
//! variance is tiny, the kept eigenvalues are all nearly equal, the columns'
//! scales are far apart without `--standardize`, or the model is larger than a
//! typical microcontroller's flash. Each function returns the hint's text, or
//! `None` when there is nothing to say. All but the flash hint are
//! [`kpca_fit::hints`]'s (shared with the Python binding), spelt with the
//! command's flags ([`Spelling::CLI`]).

use crate::error::count;
use crate::fit_checks::{column_text, ColumnStats};
use crate::table::Table;
use kpca_core::format::blob_len_for;
use kpca_core::MAX_POINTS;
pub use kpca_fit::hints::{
    equal_eigenvalues_hint, low_variance_hint, median_heuristic_gamma, scale_spread, short,
    KernelFacts, Spelling, EQUAL_EIGENVALUES, LOW_VARIANCE, MEDIAN_PAIRS, SCALE_RATIO,
};

/// A typical microcontroller's flash, for the model-size hint: 256 KiB.
pub const FLASH_BYTES: usize = 256 * 1024;

/// A byte count in KiB or MiB, one decimal.
pub fn size_text(bytes: usize) -> String {
    let b = bytes as f64;
    let (v, unit) = if b >= 1024.0 * 1024.0 {
        (b / (1024.0 * 1024.0), "MiB")
    } else {
        (b / 1024.0, "KiB")
    };
    if v.fract() == 0.0 {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// The hint about column scales far apart (over [`SCALE_RATIO`]) without
/// `--standardize`, naming the table's columns.
pub fn scales_hint(table: &Table<f64>, stats: &ColumnStats, standardize: bool) -> Option<String> {
    kpca_fit::hints::scales_hint(
        &stats.std,
        standardize,
        |c| column_text(table, c),
        &Spelling::CLI,
    )
}

/// The largest number of stored points m whose blob (d features, k
/// components) fits in `limit` bytes; 0 when not even one does.
pub fn max_points_within(limit: usize, d: usize, k: usize, standardized: bool) -> usize {
    let fits = |m: usize| blob_len_for(d, m, k, standardized).is_some_and(|l| l <= limit);
    let (mut lo, mut hi) = (0usize, MAX_POINTS);
    if fits(hi) {
        return hi;
    }
    // fits(lo) holds (or lo = 0), fits(hi) does not.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The model's shape, for the flash-size hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelShape {
    /// Blob length in bytes.
    pub blob_len: usize,
    /// Input dimension d.
    pub dim: usize,
    /// Stored points m.
    pub n_points: usize,
    /// Components k.
    pub n_components: usize,
    /// Whether inputs are standardised.
    pub standardized: bool,
    /// Whether the stored points are Nyström landmarks (rather than every
    /// training row), when known.
    pub nystrom: Option<bool>,
}

impl ModelShape {
    /// The shape of a loaded model (whether its points are landmarks is not
    /// stored).
    pub fn of(model: &kpca_core::ModelRef<'_>) -> ModelShape {
        ModelShape {
            blob_len: model.blob_len(),
            dim: model.dim(),
            n_points: model.n_points(),
            n_components: model.n_components(),
            standardized: model.is_standardized(),
            nystrom: None,
        }
    }
}

/// The hint about a model larger than [`FLASH_BYTES`], with the number of
/// landmarks that would fit.
pub fn flash_hint(shape: &ModelShape) -> Option<String> {
    if shape.blob_len <= FLASH_BYTES {
        return None;
    }
    let k = shape.n_components;
    let fit = max_points_within(FLASH_BYTES, shape.dim, k, shape.standardized);
    let head = format!(
        "the model takes {} ({} bytes, {} stored points of {} features), more than the {} of \
         flash of a typical microcontroller",
        size_text(shape.blob_len),
        shape.blob_len,
        shape.n_points,
        shape.dim,
        size_text(FLASH_BYTES)
    );
    if fit < k {
        return Some(format!(
            "{head}: even {} would not fit; fewer input features are needed",
            count(k, "landmark")
        ));
    }
    let how = match shape.nystrom {
        Some(true) => format!("a smaller --nystrom (at most {fit})"),
        Some(false) => format!("--nystrom {fit} (or fewer landmarks)"),
        None => format!("a fit with --nystrom {fit} (or fewer landmarks)"),
    };
    Some(format!(
        "{head}: {how} keeps it within {}",
        size_text(FLASH_BYTES)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_short() {
        assert_eq!(size_text(300 * 1024), "300 KiB");
        assert_eq!(size_text(281_492), "274.9 KiB");
        assert_eq!(size_text(3 * 1024 * 1024 + 512 * 1024), "3.5 MiB");
    }

    #[test]
    fn scales_far_apart_are_flagged_only_without_standardize() {
        let table =
            crate::table::parse_table::<f64>(b"small,big\n0.1,1000\n0.2,3000\n0.3,2000\n", "t")
                .unwrap();
        let stats = ColumnStats::of(&table);
        let (ratio, wide, narrow) = scale_spread(&stats.std).unwrap();
        assert!((ratio - 10_000.0).abs() < 1e-6, "{ratio}");
        assert_eq!((wide, narrow), (1, 0));
        let hint = scales_hint(&table, &stats, false).expect("10000x");
        assert!(hint.contains("differ by a factor of 10000 "), "{hint}");
        assert!(hint.contains("in column 2 (\"big\")"), "{hint}");
        assert!(hint.contains("in column 1 (\"small\")"), "{hint}");
        assert_eq!(scales_hint(&table, &stats, true), None);
    }

    #[test]
    fn the_largest_model_within_the_flash_is_found() {
        // Blob = header + CRC + 4 (m d + 2 m + m k + 2 k) bytes, unstandardised.
        let (d, k) = (1000, 3);
        let fixed = kpca_core::format::HEADER_LEN + 4 + 4 * 2 * k;
        let per_point = 4 * (d + 2 + k);
        let expected = (FLASH_BYTES - fixed) / per_point;
        assert_eq!(max_points_within(FLASH_BYTES, d, k, false), expected);
        assert_eq!(max_points_within(10, d, k, false), 0);
        let shape = ModelShape {
            blob_len: blob_len_for(d, 70, k, false).unwrap(),
            dim: d,
            n_points: 70,
            n_components: k,
            standardized: false,
            nystrom: Some(false),
        };
        let hint = flash_hint(&shape).expect("70 x 1000 floats is over 256 KiB");
        assert!(
            hint.contains(&format!("--nystrom {expected} (or fewer landmarks)")),
            "{hint}"
        );
        assert!(hint.contains("more than the 256 KiB"), "{hint}");
        let small = ModelShape {
            blob_len: 1000,
            ..shape
        };
        assert_eq!(flash_hint(&small), None);
    }
}
