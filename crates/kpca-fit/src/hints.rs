//! Hints about a fitted model that is likely useless (never errors): the
//! columns' scales are far apart without standardisation, the kept variance is
//! tiny, or the kept eigenvalues are all nearly equal. Each function returns
//! the hint's text, or `None` when there is nothing to say; [`fit_hints`]
//! gives all of them for a fit and its training rows.
//!
//! The command line (`kpca fit`, which adds a flash-size hint) and the Python
//! binding (as `kpca.KpcaHint` warnings) show the same hints; [`Spelling`]
//! names the options the way each caller's user types them.

use crate::{FittedKpca, KernelId};

/// Kept variance below this share (of the fit's total) gets a hint.
pub const LOW_VARIANCE: f64 = 0.05;
/// Kept eigenvalues whose smallest is at least this share of the largest are
/// "nearly equal" (the components are then not determined by the data).
pub const EQUAL_EIGENVALUES: f64 = 0.99;
/// Column standard deviations further apart than this factor, without
/// standardisation, get a hint.
pub const SCALE_RATIO: f64 = 1000.0;
/// Row pairs sampled for the median heuristic of gamma.
pub const MEDIAN_PAIRS: usize = 2000;

/// How the hints name the options they suggest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spelling {
    /// The option that standardises the columns (`--standardize`).
    pub standardize: &'static str,
    /// The kernel's gamma (`--gamma`).
    pub gamma: &'static str,
    /// The number of components (`--components`).
    pub components: &'static str,
}

impl Spelling {
    /// The command line's flags.
    pub const CLI: Spelling = Spelling {
        standardize: "--standardize",
        gamma: "--gamma",
        components: "--components",
    };
    /// The Python estimators' parameters.
    pub const PYTHON: Spelling = Spelling {
        standardize: "standardize=True",
        gamma: "gamma",
        components: "n_components",
    };
}

/// "1 component", "2 components".
fn count(n: usize, singular: &str) -> String {
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {singular}s")
    }
}

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
    /// The facts of a fitted kernel: `values` are the training rows (n x d,
    /// row-major) as given to the fit; they are standardised as the fit did
    /// before the median heuristic.
    pub fn of(fitted: &FittedKpca, values: &[f64]) -> KernelFacts {
        let spec = fitted.kernel();
        let d = fitted.n_features();
        let l1 = match spec.kind {
            KernelId::Rbf => Some(false),
            KernelId::Laplacian => Some(true),
            _ => None,
        };
        let median_gamma = l1.and_then(|l1| match fitted.standardization() {
            Some((mean, std)) => {
                let z: Vec<f64> = values
                    .chunks_exact(d.max(1))
                    .flat_map(|r| {
                        r.iter()
                            .zip(mean.iter().zip(std))
                            .map(|(v, (m, s))| (v - m) / s)
                    })
                    .collect();
                median_heuristic_gamma(&z, d, l1)
            }
            None => median_heuristic_gamma(values, d, l1),
        });
        KernelFacts {
            name: spec.kind.name(),
            gamma: spec.gamma,
            median_gamma,
        }
    }

    /// "a smaller --gamma (now G; the median heuristic gives M)" (without the
    /// current value unless `now`), or `None` without gamma.
    fn smaller_gamma(&self, now: bool, spelling: &Spelling) -> Option<String> {
        let g = self.gamma?;
        let mut notes = Vec::new();
        if now {
            notes.push(format!("now {}", short(g)));
        }
        if let Some(m) = self.median_gamma.filter(|&m| m < g) {
            notes.push(format!("the median heuristic gives {}", short(m)));
        }
        Some(if notes.is_empty() {
            format!("a smaller {}", spelling.gamma)
        } else {
            format!("a smaller {} ({})", spelling.gamma, notes.join("; "))
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

/// The mean and standard deviation (ddof = 0, as the fit's standardisation)
/// of each column of `values` (n x d, row-major), in two passes.
pub fn column_stats(values: &[f64], d: usize) -> (Vec<f64>, Vec<f64>) {
    let rows = || values.chunks_exact(d.max(1));
    let n = rows().len().max(1) as f64;
    let mut mean = vec![0.0; d];
    for row in rows() {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v / n;
        }
    }
    let mut var = vec![0.0; d];
    for row in rows() {
        for ((s, v), m) in var.iter_mut().zip(row).zip(&mean) {
            *s += (v - m) * (v - m) / n;
        }
    }
    (mean, var.into_iter().map(f64::sqrt).collect())
}

/// The column scale spread: (ratio, widest column, narrowest column) of the
/// non-constant columns' standard deviations `std`; `None` with fewer than two.
pub fn scale_spread(std: &[f64]) -> Option<(f64, usize, usize)> {
    let live = || std.iter().enumerate().filter(|(_, &s)| s > 0.0);
    let (wide, &hi) = live().max_by(|a, b| a.1.total_cmp(b.1))?;
    let (narrow, &lo) = live().min_by(|a, b| a.1.total_cmp(b.1))?;
    (wide != narrow).then_some((hi / lo, wide, narrow))
}

/// The hint about column scales far apart (over [`SCALE_RATIO`]) without
/// standardisation: `std` are the columns' standard deviations, `column`
/// names column c (0-based) in the message.
pub fn scales_hint(
    std: &[f64],
    standardize: bool,
    column: impl Fn(usize) -> String,
    spelling: &Spelling,
) -> Option<String> {
    if standardize {
        return None;
    }
    let (ratio, wide, narrow) = scale_spread(std)?;
    (ratio > SCALE_RATIO).then(|| {
        format!(
            "column scales differ by a factor of {} (standard deviation {} in {}, {} in {}): \
             without {s} the widest columns dominate the kernel; try {s}",
            short(ratio),
            short(std[wide]),
            column(wide),
            short(std[narrow]),
            column(narrow),
            s = spelling.standardize,
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
    spelling: &Spelling,
) -> Option<String> {
    let kept: f64 = ratios.iter().sum();
    if kept.is_nan() || kept >= LOW_VARIANCE {
        return None;
    }
    let mut tries = Vec::new();
    if let Some(ratio) = spread.filter(|&r| r > 10.0) {
        tries.push(format!(
            "{} (column scales differ by a factor of {})",
            spelling.standardize,
            short(ratio)
        ));
    }
    tries.extend(kernel.smaller_gamma(true, spelling));
    if tries.is_empty() {
        tries.push(format!("more {}", spelling.components));
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
    spelling: &Spelling,
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
    let tail = match kernel.smaller_gamma(false, spelling) {
        Some(g) => format!(
            "with {} {} each row is similar almost only to itself; try {g}",
            spelling.gamma,
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

/// The hints about a fit, in order: the column scales, then nearly equal
/// eigenvalues or else a low kept variance. `values` are the training rows
/// (n x d, row-major) as given to the fit, `std` their columns' standard
/// deviations ([`column_stats`]), `column` names column c (0-based).
pub fn fit_hints(
    fitted: &FittedKpca,
    values: &[f64],
    std: &[f64],
    column: impl Fn(usize) -> String,
    spelling: &Spelling,
) -> Vec<String> {
    let standardized = fitted.standardization().is_some();
    let kernel = KernelFacts::of(fitted, values);
    let spread = (!standardized)
        .then(|| scale_spread(std).map(|s| s.0))
        .flatten();
    let mut out: Vec<String> = Vec::new();
    out.extend(scales_hint(std, standardized, column, spelling));
    let kept = fitted.eigenvalues();
    match equal_eigenvalues_hint(kept, fitted.all_eigenvalues(), &kernel, spelling) {
        Some(h) => out.push(h),
        None => out.extend(low_variance_hint(
            fitted.explained_variance_ratio(),
            &kernel,
            spread,
            spelling,
        )),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLI: Spelling = Spelling::CLI;

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
        let kernel = rbf(1.0 / 13.0, Some(2e-5));
        let hint =
            low_variance_hint(&[0.012, 0.006], &kernel, Some(2600.0), &CLI).expect("1.8% is low");
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
        let hint = low_variance_hint(&[0.03], &linear, None, &CLI).expect("3% is low");
        assert!(
            hint.starts_with("the 1 component keeps only 3.0% of the variance"),
            "{hint}"
        );
        assert!(hint.ends_with("try more --components"), "{hint}");
        let hint = low_variance_hint(&[0.03], &linear, None, &Spelling::PYTHON).unwrap();
        assert!(hint.ends_with("try more n_components"), "{hint}");
        assert_eq!(low_variance_hint(&[0.04, 0.02], &linear, None, &CLI), None);
    }

    #[test]
    fn equal_eigenvalues_are_flagged_with_a_smaller_gamma() {
        let kernel = rbf(1e6, Some(0.3));
        let hint =
            equal_eigenvalues_hint(&[1.0, 0.9999, 0.9995], None, &kernel, &CLI).expect("equal");
        assert!(
            hint.contains("the 3 kept eigenvalues are nearly equal (within 0.05% of 1)"),
            "{hint}"
        );
        assert!(hint.contains("with --gamma 1e6 each row is similar almost only to itself"));
        assert!(hint.contains("the median heuristic gives 0.3"), "{hint}");
        assert_eq!(
            equal_eigenvalues_hint(&[1.0, 0.9], None, &kernel, &CLI),
            None
        );
        // One component: the next eigenvalue decides, when it is known.
        assert!(equal_eigenvalues_hint(&[1.0], Some(&[1.0, 1.0, 0.0]), &kernel, &CLI).is_some());
        assert_eq!(equal_eigenvalues_hint(&[1.0], None, &kernel, &CLI), None);
    }

    #[test]
    fn scales_far_apart_are_flagged_only_without_standardization() {
        let values = [0.1, 1000.0, 0.2, 3000.0, 0.3, 2000.0];
        let (_, std) = column_stats(&values, 2);
        let (ratio, wide, narrow) = scale_spread(&std).unwrap();
        assert!((ratio - 10_000.0).abs() < 1e-6, "{ratio}");
        assert_eq!((wide, narrow), (1, 0));
        let name = |c: usize| format!("feature {c}");
        let hint = scales_hint(&std, false, name, &Spelling::PYTHON).expect("10000x");
        assert!(hint.contains("differ by a factor of 10000 "), "{hint}");
        assert!(hint.contains("in feature 1, "), "{hint}");
        assert!(hint.ends_with("try standardize=True"), "{hint}");
        assert_eq!(scales_hint(&std, true, name, &CLI), None);
    }
}
