//! One-line hints about a model that is likely useless, shown on standard
//! error after the report (never fatal; `--quiet` drops them): the kept
//! variance is tiny, the kept eigenvalues are all nearly equal, the columns'
//! scales are far apart without `--standardize`, or the model is larger than a
//! typical microcontroller's flash. Each function returns the hint's text, or
//! `None` when there is nothing to say.

use crate::error::count;
use crate::fit_checks::{column_text, ColumnStats};
use crate::table::Table;
use kpca_core::format::blob_len_for;
use kpca_core::MAX_POINTS;

/// Kept variance below this share (of the fit's total) gets a hint.
pub const LOW_VARIANCE: f64 = 0.05;
/// Kept eigenvalues whose smallest is at least this share of the largest are
/// "nearly equal" (the components are then not determined by the data).
pub const EQUAL_EIGENVALUES: f64 = 0.99;
/// Column standard deviations further apart than this factor, without
/// `--standardize`, get a hint.
pub const SCALE_RATIO: f64 = 1000.0;
/// A typical microcontroller's flash, for the model-size hint: 256 KiB.
pub const FLASH_BYTES: usize = 256 * 1024;
/// Row pairs sampled for the median heuristic of gamma.
pub const MEDIAN_PAIRS: usize = 2000;

/// A number in a short readable form: 4 significant digits, in e-notation
/// outside 1e-3..1e5.
pub fn short(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-3..1e5).contains(&a) {
        let digits = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
        let text = format!("{v:.digits$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    } else {
        let text = format!("{v:.3e}");
        match text.split_once('e') {
            Some((mantissa, exp)) if mantissa.contains('.') => {
                let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
                format!("{mantissa}e{exp}")
            }
            _ => text,
        }
    }
}

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

/// What the fit's kernel is, for the hints: its name and gamma (resolved) when
/// it has one, and whether gamma is a length scale (rbf, laplacian), for
/// which the median heuristic gives a typical value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelFacts {
    /// scikit-learn's name.
    pub name: &'static str,
    /// gamma as fitted, for the kernels that have one.
    pub gamma: Option<f64>,
    /// 1 / the median squared (rbf) or L1 (laplacian) distance between rows,
    /// when the kernel is one of those two.
    pub median_gamma: Option<f64>,
}

impl KernelFacts {
    /// "a smaller --gamma (now G; the median heuristic gives M)" (without the
    /// current value unless `now`), or `None` without gamma.
    fn smaller_gamma(&self, now: bool) -> Option<String> {
        let g = self.gamma?;
        let mut notes = Vec::new();
        if now {
            notes.push(format!("now {}", short(g)));
        }
        if let Some(m) = self.median_gamma.filter(|&m| m < g) {
            notes.push(format!("the median heuristic gives {}", short(m)));
        }
        Some(if notes.is_empty() {
            "a smaller --gamma".to_string()
        } else {
            format!("a smaller --gamma ({})", notes.join("; "))
        })
    }
}

/// The median heuristic for the gamma of an rbf (`l1` false: 1 / median
/// squared Euclidean distance) or laplacian (`l1` true: 1 / median L1
/// distance) kernel between distinct rows: over every pair when there are at
/// most [`MEDIAN_PAIRS`], else over that many pairs spread over the rows
/// (deterministic). Pairs at distance 0 (duplicate rows) are left out.
/// `values` are n x d row-major, as the kernel sees them. `None` when no pair
/// is left.
pub fn median_heuristic_gamma(values: &[f64], d: usize, l1: bool) -> Option<f64> {
    let rows: Vec<&[f64]> = values.chunks_exact(d.max(1)).collect();
    let n = rows.len();
    if n < 2 {
        return None;
    }
    let distance = |a: &[f64], b: &[f64]| -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, z)| if l1 { (x - z).abs() } else { (x - z) * (x - z) })
            .sum()
    };
    let all_pairs = n * (n - 1) / 2;
    let pairs: Vec<(usize, usize)> = if all_pairs <= MEDIAN_PAIRS {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect()
    } else {
        // Row i with a partner a varying stride away, so that every row is used.
        (0..MEDIAN_PAIRS)
            .map(|p| {
                let i = p % n;
                (i, (i + 1 + (p / n + p.wrapping_mul(7919)) % (n - 1)) % n)
            })
            .collect()
    };
    let mut dist: Vec<f64> = pairs
        .iter()
        .filter_map(|&(i, j)| Some(distance(rows.get(i)?, rows.get(j)?)))
        .filter(|&dd| dd > 0.0)
        .collect();
    if dist.is_empty() {
        return None;
    }
    dist.sort_by(f64::total_cmp);
    let mid = dist.len() / 2;
    let median = if dist.len().is_multiple_of(2) {
        (dist[mid - 1] + dist[mid]) / 2.0
    } else {
        dist[mid]
    };
    Some(1.0 / median)
}

/// The column scale spread: (ratio, widest column, narrowest column) of the
/// non-constant columns' standard deviations; `None` with fewer than two.
pub fn scale_spread(stats: &ColumnStats) -> Option<(f64, usize, usize)> {
    let live = || stats.std.iter().enumerate().filter(|(_, &s)| s > 0.0);
    let (wide, &hi) = live().max_by(|a, b| a.1.total_cmp(b.1))?;
    let (narrow, &lo) = live().min_by(|a, b| a.1.total_cmp(b.1))?;
    (wide != narrow).then_some((hi / lo, wide, narrow))
}

/// The hint about column scales far apart (over [`SCALE_RATIO`]) without
/// `--standardize`.
pub fn scales_hint(table: &Table<f64>, stats: &ColumnStats, standardize: bool) -> Option<String> {
    if standardize {
        return None;
    }
    let (ratio, wide, narrow) = scale_spread(stats)?;
    (ratio > SCALE_RATIO).then(|| {
        format!(
            "column scales differ by a factor of {} (standard deviation {} in {}, {} in {}): \
             without --standardize the widest columns dominate the kernel; try --standardize",
            short(ratio),
            short(stats.std[wide]),
            column_text(table, wide),
            short(stats.std[narrow]),
            column_text(table, narrow)
        )
    })
}

/// The hint about a kept variance below [`LOW_VARIANCE`]: `ratios` are the
/// fit's explained-variance ratios, `spread` the column scale ratio when the
/// data was not standardised.
pub fn low_variance_hint(
    ratios: &[f64],
    kernel: &KernelFacts,
    spread: Option<f64>,
) -> Option<String> {
    let kept: f64 = ratios.iter().sum();
    if kept.is_nan() || kept >= LOW_VARIANCE {
        return None;
    }
    let mut tries = Vec::new();
    if let Some(ratio) = spread.filter(|&r| r > 10.0) {
        tries.push(format!(
            "--standardize (column scales differ by a factor of {})",
            short(ratio)
        ));
    }
    tries.extend(kernel.smaller_gamma(true));
    if tries.is_empty() {
        tries.push("more --components".into());
    }
    let verb = if ratios.len() == 1 { "keeps" } else { "keep" };
    Some(format!(
        "the {} {verb} only {:.1}% of the variance: try {}",
        count(ratios.len(), "component"),
        100.0 * kept,
        tries.join(" or ")
    ))
}

/// The hint about nearly equal eigenvalues (the smallest kept at least
/// [`EQUAL_EIGENVALUES`] of the largest; with one component, the next
/// eigenvalue when the solver computed it): the components are then not
/// determined by the data; with a large gamma every row is similar only to
/// itself.
pub fn equal_eigenvalues_hint(
    kept: &[f64],
    all: Option<&[f64]>,
    kernel: &KernelFacts,
) -> Option<String> {
    let largest = *kept.first()?;
    let (smallest, what) = if kept.len() >= 2 {
        (
            *kept.last()?,
            format!("the {} kept eigenvalues", kept.len()),
        )
    } else {
        (*all?.get(1)?, "the first two eigenvalues".to_string())
    };
    if !(largest > 0.0 && smallest >= EQUAL_EIGENVALUES * largest) {
        return None;
    }
    let tail = match kernel.smaller_gamma(false) {
        Some(g) => format!(
            "with --gamma {} each row is similar almost only to itself; try {g}",
            short(kernel.gamma.unwrap_or(0.0))
        ),
        None => format!(
            "the data has no dominant direction in the {} kernel's feature space",
            kernel.name
        ),
    };
    let spread = 100.0 * (1.0 - smallest / largest);
    let within = format!("{:.2}%", spread.max(0.01));
    Some(format!(
        "{what} are nearly equal (within {within} of {}), so the components are not \
         determined by the data: {tail}",
        short(largest)
    ))
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

    fn rbf(gamma: f64, median: Option<f64>) -> KernelFacts {
        KernelFacts {
            name: "rbf",
            gamma: Some(gamma),
            median_gamma: median,
        }
    }

    #[test]
    fn short_numbers_keep_four_significant_digits() {
        assert_eq!(short(0.076923), "0.07692");
        assert_eq!(short(314.2), "314.2");
        assert_eq!(short(2.0), "2");
        assert_eq!(short(1e6), "1e6");
        assert_eq!(short(2.5e-5), "2.5e-5");
        assert_eq!(short(1.149e-5), "1.149e-5");
        assert_eq!(size_text(300 * 1024), "300 KiB");
        assert_eq!(size_text(281_492), "274.9 KiB");
        assert_eq!(size_text(3 * 1024 * 1024 + 512 * 1024), "3.5 MiB");
    }

    #[test]
    fn the_median_heuristic_is_one_over_the_median_distance() {
        // Points 0, 1, 3 on a line: squared distances 1, 4, 9 (median 4), L1 1, 2, 3.
        let values = [0.0, 1.0, 3.0];
        assert_eq!(median_heuristic_gamma(&values, 1, false), Some(0.25));
        assert_eq!(median_heuristic_gamma(&values, 1, true), Some(0.5));
        assert_eq!(median_heuristic_gamma(&[2.0, 2.0], 1, false), None);
        // Many rows: sampled pairs, still of distinct rows and about the median.
        let many: Vec<f64> = (0..500).map(f64::from).collect();
        let g = median_heuristic_gamma(&many, 1, true).unwrap();
        // L1 distances of uniformly spread points: median about n (1 - 1/sqrt(2)).
        assert!((1.0 / g - 146.0).abs() < 40.0, "{}", 1.0 / g);
    }

    #[test]
    fn low_variance_suggests_standardize_and_a_smaller_gamma() {
        let hint = low_variance_hint(&[0.012, 0.006], &rbf(1.0 / 13.0, Some(2e-5)), Some(2600.0))
            .expect("1.8% is low");
        assert!(
            hint.starts_with("the 2 components keep only 1.8% of the variance"),
            "{hint}"
        );
        assert!(hint.contains("--standardize (column scales differ by a factor of 2600)"));
        assert!(hint.contains("a smaller --gamma (now 0.07692; the median heuristic gives 2e-5)"));
        let linear = KernelFacts {
            name: "linear",
            gamma: None,
            median_gamma: None,
        };
        let hint = low_variance_hint(&[0.03], &linear, None).expect("3% is low");
        assert!(
            hint.starts_with("the 1 component keeps only 3.0% of the variance"),
            "{hint}"
        );
        assert!(hint.ends_with("try more --components"), "{hint}");
        assert_eq!(low_variance_hint(&[0.04, 0.02], &linear, None), None);
    }

    #[test]
    fn equal_eigenvalues_are_flagged_with_a_smaller_gamma() {
        let kernel = rbf(1e6, Some(0.3));
        let hint = equal_eigenvalues_hint(&[1.0, 0.9999, 0.9995], None, &kernel).expect("equal");
        assert!(
            hint.contains("the 3 kept eigenvalues are nearly equal (within 0.05% of 1)"),
            "{hint}"
        );
        assert!(hint.contains("with --gamma 1e6 each row is similar almost only to itself"));
        assert!(hint.contains("the median heuristic gives 0.3"), "{hint}");
        assert_eq!(equal_eigenvalues_hint(&[1.0, 0.9], None, &kernel), None);
        // One component: the next eigenvalue decides, when it is known.
        assert!(equal_eigenvalues_hint(&[1.0], Some(&[1.0, 1.0, 0.0]), &kernel).is_some());
        assert_eq!(equal_eigenvalues_hint(&[1.0], None, &kernel), None);
    }

    #[test]
    fn scales_far_apart_are_flagged_only_without_standardize() {
        let table =
            crate::table::parse_table::<f64>(b"small,big\n0.1,1000\n0.2,3000\n0.3,2000\n", "t")
                .unwrap();
        let stats = ColumnStats::of(&table);
        let (ratio, wide, narrow) = scale_spread(&stats).unwrap();
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
