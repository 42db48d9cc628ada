//! The Nyström fit as mergeable sums (`NystromSums`): any split of the rows,
//! updated in chunks of any size and merged in any order, gives the one-pass
//! result; one update over all rows gives the library's own Nyström fit (to
//! the rounding of its parallel sums).

use kpca_fit::{Dataset, FitError, KernelPca, KernelSpec, Nystrom, NystromSums};
use kpca_testkit::{max_of, nan_min, rel_err};

/// Eigenvalues (relative to each), scores (relative to each column's largest
/// magnitude, up to the column's sign) and anomaly scores (relative to their
/// largest) of a split against one pass.
const SPLIT_REL_TOL: f64 = 1e-10;

/// A deterministic mixture of three Gaussian-like blobs, n x d.
fn mixture(n: usize, d: usize, seed: u64) -> Vec<f64> {
    let mut next = kpca_testkit::uniform_stream(seed);
    (0..n)
        .flat_map(|i| {
            let centre = (i % 3) as f64 * 2.0;
            (0..d)
                .map(|j| centre * if j % 2 == 0 { 1.0 } else { -0.5 } + next())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn rows(values: &[f64], d: usize) -> Dataset<'static> {
    Dataset::new(values.to_vec(), d).expect("dataset")
}

/// Largest relative difference of two score matrices, each column compared
/// up to its sign; NaN when any entry of either is NaN.
fn score_err(a: &[f64], b: &[f64], k: usize) -> f64 {
    let col = |v: &[f64], l: usize| -> Vec<f64> { v.iter().skip(l).step_by(k).copied().collect() };
    max_of((0..k).map(|l| {
        let (x, y) = (col(a, l), col(b, l));
        let flipped: Vec<f64> = x.iter().map(|v| -v).collect();
        nan_min(rel_err(&x, &y), rel_err(&flipped, &y))
    }))
}

#[test]
fn any_split_of_the_rows_gives_the_one_pass_result() {
    let (n, d, k) = (5000, 5, 4);
    let x = mixture(n, d, 3);
    let landmarks: Vec<f64> = x.chunks(d).step_by(50).flatten().copied().collect();
    let kernel = KernelSpec::rbf(0.3);
    let lm = rows(&landmarks, d);
    let test = rows(&mixture(200, d, 9), d);

    let mut one = NystromSums::new(&kernel, &lm).expect("sums");
    one.update(&rows(&x, d)).expect("update");
    let reference = one.finish(k).expect("finish");
    let (ref_scores, ref_anomaly) = reference.transform_and_score(&test).expect("score");

    // Parts of uneven sizes (a single row, a part past the block size), each
    // updated in chunks, merged in reverse order.
    let cuts = [0, 1, 8, 700, 2900, 4999, 5000];
    let parts: Vec<NystromSums> = cuts
        .windows(2)
        .map(|w| {
            let mut s = NystromSums::new(&kernel, &lm).expect("sums");
            for chunk in x[w[0] * d..w[1] * d].chunks(d * 333) {
                s.update(&rows(chunk, d)).expect("update");
            }
            s
        })
        .collect();
    let mut merged = parts.last().expect("a part").clone();
    for p in parts.iter().rev().skip(1) {
        merged.merge(p).expect("merge");
    }
    assert_eq!(merged.n_rows(), n);
    let split = merged.finish(k).expect("finish");
    let eig = rel_err(split.eigenvalues(), reference.eigenvalues());
    let (scores, anomaly) = split.transform_and_score(&test).expect("score");
    let sc = score_err(&scores, &ref_scores, k);
    let an = rel_err(&anomaly, &ref_anomaly);
    assert!(eig <= SPLIT_REL_TOL, "eigenvalues {eig:e}");
    assert!(sc <= SPLIT_REL_TOL, "scores {sc:e}");
    assert!(an <= SPLIT_REL_TOL, "anomaly scores {an:e}");
}

#[test]
fn one_update_is_the_librarys_nystrom_fit() {
    let (n, d, k) = (3000, 4, 3);
    let x = mixture(n, d, 5);
    let idx: Vec<usize> = (0..n).step_by(37).collect();
    let landmarks: Vec<f64> = idx
        .iter()
        .flat_map(|&i| x[i * d..(i + 1) * d].to_vec())
        .collect();
    let kernel = KernelSpec::rbf(0.5);
    let fitted = KernelPca::params()
        .kernel(kernel)
        .n_components(k)
        .nystrom(Nystrom::Indices(idx))
        .fit(&rows(&x, d))
        .expect("fit");
    let mut sums = NystromSums::new(&kernel, &rows(&landmarks, d)).expect("sums");
    sums.update(&rows(&x, d)).expect("update");
    let solution = sums.finish(k).expect("finish");
    // The same code; parallel sums may split differently from run to run.
    assert!(rel_err(solution.eigenvalues(), fitted.eigenvalues()) <= 1e-12);
    let test = rows(&mixture(100, d, 11), d);
    let (scores, anomaly) = solution.transform_and_score(&test).expect("score");
    assert!(score_err(&scores, &fitted.transform(&test).expect("transform"), k) <= 1e-12);
    assert!(rel_err(&anomaly, &fitted.anomaly_score(&test).expect("scores")) <= 1e-12);
}

#[test]
fn sums_refuse_what_does_not_add_up() {
    let d = 3;
    let x = mixture(60, d, 1);
    let lm = rows(&x[..10 * d], d);
    let other_lm = rows(&x[d..11 * d], d);
    let kernel = KernelSpec::rbf(0.5);
    let mut a = NystromSums::new(&kernel, &lm).expect("sums");
    assert_eq!(a.finish(2).err(), Some(FitError::EmptyData));
    let b = NystromSums::new(&kernel, &other_lm).expect("sums");
    assert_eq!(a.merge(&b).err(), Some(FitError::SumsMismatch));
    let c = NystromSums::new(&KernelSpec::rbf(0.25), &lm).expect("sums");
    assert_eq!(a.merge(&c).err(), Some(FitError::SumsMismatch));
    let wrong = rows(&x[..8], 4);
    assert!(matches!(
        a.update(&wrong),
        Err(FitError::FeatureMismatch {
            expected: 3,
            got: 4
        })
    ));
    let mut bad = x.clone();
    bad[5] = f64::NAN;
    assert!(matches!(
        a.update(&rows(&bad, d)),
        Err(FitError::NonFiniteInput { .. })
    ));
    assert_eq!(a.n_rows(), 0, "a failed update adds nothing");
    a.update(&rows(&x, d)).expect("update");
    assert_eq!(a.finish(0).err(), Some(FitError::ZeroComponents));
    assert!(a.finish(2).is_ok());
}
