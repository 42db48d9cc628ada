//! The streamed Nyström fit (`kpca_fit::stream::fit_nystrom`) against the
//! in-memory fit of the same rows: the same landmarks, eigenvalues, signs,
//! transform, threshold, explained variance and curve, for chunks of any size;
//! and every error the in-memory fit gives, plus those of a source that lies.

use kpca_fit::stream::{fit_nystrom, ChunkedRows, Pass, RowSource};
use kpca_fit::{Dataset, FitError, FittedKpca, KernelPca, KernelSpec, Method, Nystrom};
// max |a - b| / max |b|, NaN when any entry is NaN.
use kpca_testkit::rel_err;

/// Streamed against in-memory: relative to each quantity's scale. The chunked
/// sums round differently from the one-block sums; nothing else differs.
const STREAM_REL_TOL: f64 = 1e-10;

/// A deterministic mixture of three blobs, n x d, offset from the origin.
fn mixture(n: usize, d: usize, seed: u64) -> Vec<f64> {
    let mut next = kpca_testkit::uniform_stream(seed);
    (0..n)
        .flat_map(|i| {
            let centre = (i % 3) as f64 * 2.0;
            (0..d)
                .map(|j| {
                    5.0 + centre * if j % 2 == 0 { 1.0 } else { -0.5 } + next() * (1.0 + j as f64)
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every output that both fits have, compared (signs included: no flip).
fn assert_same_fit(streamed: &FittedKpca, memory: &FittedKpca, data: &Dataset<'_>, what: &str) {
    assert_eq!(streamed.method(), memory.method(), "{what}: landmarks");
    assert_eq!(streamed.n_train(), memory.n_train());
    let checks = [
        (
            "eigenvalues",
            rel_err(streamed.eigenvalues(), memory.eigenvalues()),
        ),
        (
            "explained variance ratio",
            rel_err(
                streamed.explained_variance_ratio(),
                memory.explained_variance_ratio(),
            ),
        ),
        (
            "curve",
            rel_err(
                streamed.reconstruction_error_curve(),
                memory.reconstruction_error_curve(),
            ),
        ),
        (
            "threshold",
            rel_err(&[streamed.threshold()], &[memory.threshold()]),
        ),
        (
            "transform",
            rel_err(
                &streamed.transform(data).unwrap(),
                &memory.transform(data).unwrap(),
            ),
        ),
        (
            "anomaly scores",
            rel_err(
                &streamed.anomaly_score(data).unwrap(),
                &memory.anomaly_score(data).unwrap(),
            ),
        ),
    ];
    for (name, err) in checks {
        assert!(err <= STREAM_REL_TOL, "{what}: {name} differs by {err:e}");
    }
    // The device model is built and checked the same way.
    let a = streamed.to_model().expect("streamed device model");
    let b = memory.to_model().expect("in-memory device model");
    let (va, vb) = (a.as_model_ref().unwrap(), b.as_model_ref().unwrap());
    assert_eq!(va.threshold(), vb.threshold(), "{what}: f32 threshold");
}

fn params(
    kernel: KernelSpec,
    k: usize,
    ny: Nystrom,
    standardize: bool,
) -> kpca_fit::ValidKernelPcaParams {
    KernelPca::params()
        .kernel(kernel)
        .n_components(k)
        .standardize(standardize)
        .nystrom(ny)
        .false_alarm_rate(0.05)
        .check()
        .expect("valid parameters")
}

#[test]
fn a_streamed_fit_is_the_in_memory_fit_for_every_chunk_size() {
    let (n, d) = (700, 5);
    let values = mixture(n, d, 3);
    let data = Dataset::new(&values[..], d).unwrap();
    let kernels = [
        KernelSpec::rbf(0.2),
        KernelSpec::laplacian(0.1),
        KernelSpec::poly(0.1, 2, 1.0),
        KernelSpec::linear(),
    ];
    for kernel in kernels {
        for standardize in [false, true] {
            let p = params(kernel, 4, Nystrom::random(60, 9), standardize);
            let memory = p.fit(&data).expect("in-memory fit");
            for chunk in [1, 7, 256, 5000] {
                let streamed =
                    fit_nystrom(&p, &mut ChunkedRows::new(&data, chunk)).expect("streamed fit");
                assert!(!streamed.rows_kept() && streamed.train_scores().is_empty());
                let what = format!("{:?} standardize {standardize} chunk {chunk}", kernel.kind);
                assert_same_fit(&streamed, &memory, &data, &what);
            }
        }
    }
}

#[test]
fn given_landmarks_and_pivoted_cholesky_pick_the_in_memory_landmarks() {
    let (n, d) = (2500, 3);
    let values = mixture(n, d, 11);
    let data = Dataset::new(&values[..], d).unwrap();
    let given: Vec<usize> = (0..40).map(|i| (i * 61 + 7) % n).rev().collect();
    for ny in [Nystrom::indices(given), Nystrom::rp_cholesky(30, 5)] {
        let p = params(KernelSpec::rbf(0.5), 3, ny.clone(), true);
        let memory = p.fit(&data).expect("in-memory fit");
        let streamed = fit_nystrom(&p, &mut ChunkedRows::new(&data, 333)).expect("streamed");
        assert_same_fit(&streamed, &memory, &data, &format!("{ny:?}"));
    }
}

#[test]
fn streamed_kmeans_pp_draws_distinct_rows_from_its_pool() {
    let values = mixture(3000, 4, 2);
    let data = Dataset::new(&values[..], 4).unwrap();
    let p = params(KernelSpec::rbf(0.3), 3, Nystrom::kmeans_pp(25, 1), false);
    let fit = fit_nystrom(&p, &mut ChunkedRows::new(&data, 400)).expect("streamed");
    let Method::Nystrom { landmarks, seed } = fit.method() else {
        panic!("a Nystrom fit");
    };
    let mut sorted = landmarks.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!((sorted.len(), *seed), (25, Some(1)));
    assert!(sorted.iter().all(|&i| i < 3000));
    // The same seed, the same landmarks.
    let again = fit_nystrom(&p, &mut ChunkedRows::new(&data, 77)).expect("streamed");
    assert_eq!(again.method(), fit.method());
}

#[test]
fn a_streamed_fit_refuses_what_the_in_memory_fit_refuses() {
    let d = 2;
    let p = |k: usize, m: usize, standardize: bool| {
        params(KernelSpec::rbf(1.0), k, Nystrom::random(m, 0), standardize)
    };
    let stream = |values: &[f64], p: &kpca_fit::ValidKernelPcaParams| {
        let data = Dataset::new(values, d).unwrap();
        fit_nystrom(p, &mut ChunkedRows::new(&data, 3)).unwrap_err()
    };
    let mut bad = mixture(20, d, 1);
    bad[2 * 13 + 1] = f64::NAN;
    assert_eq!(
        stream(&bad, &p(2, 5, false)),
        FitError::NonFiniteInput { row: 13, column: 1 }
    );
    assert_eq!(
        stream(&[1.0, 2.0, 1.0, 2.0, 1.0, 2.0], &p(2, 2, false)),
        FitError::ConstantData
    );
    assert!(matches!(
        stream(&[1.0, 2.0, 1.5, 2.0], &p(2, 2, false)),
        FitError::TooFewPoints { n_points: 2, .. }
    ));
    let constant_column = [1.0, 2.0, 1.5, 2.0, 3.0, 2.0, 0.0, 2.0];
    assert_eq!(
        stream(&constant_column, &p(1, 2, true)),
        FitError::ConstantColumn { column: 1 }
    );
    assert!(matches!(
        stream(&mixture(10, d, 1), &p(2, 11, false)),
        FitError::BadLandmarkCount { m: 11, .. }
    ));
    let full = KernelPca::params().n_components(2).check().unwrap();
    let data = Dataset::new(mixture(10, d, 1), d).unwrap();
    let e = fit_nystrom(&full, &mut ChunkedRows::new(&data, 3)).unwrap_err();
    assert_eq!(e, FitError::StreamNeedsNystrom);
}

/// A source that gives fewer rows after its first pass.
struct Shrinking {
    values: Vec<f64>,
    passes: usize,
}

impl RowSource for Shrinking {
    type Error = FitError;
    fn n_features(&self) -> usize {
        2
    }
    fn read_pass(
        &mut self,
        _pass: Pass,
        use_chunk: &mut dyn FnMut(&[f64]) -> Result<(), FitError>,
    ) -> Result<(), FitError> {
        self.passes += 1;
        let rows = if self.passes == 1 {
            self.values.len() / 2
        } else {
            self.values.len() / 2 - 1
        };
        use_chunk(&self.values[..rows * 2])
    }
}

#[test]
fn a_source_that_changes_between_passes_is_refused() {
    let values = mixture(50, 2, 4);
    let p = params(KernelSpec::rbf(1.0), 2, Nystrom::random(50, 0), false);
    let e = fit_nystrom(
        &p,
        &mut Shrinking {
            values: values.clone(),
            passes: 0,
        },
    )
    .unwrap_err();
    assert_eq!(
        e,
        FitError::SourceChanged {
            expected: 50,
            got: 49
        }
    );
    let p = params(KernelSpec::rbf(1.0), 2, Nystrom::random(10, 0), false);
    let e = fit_nystrom(&p, &mut Shrinking { values, passes: 0 }).unwrap_err();
    assert!(
        matches!(
            e,
            FitError::SourceChanged {
                expected: 50,
                got: 49
            }
        ),
        "{e:?}"
    );
}

#[test]
fn what_needs_the_training_scores_says_so_after_a_streamed_fit() {
    let values = mixture(100, 2, 8);
    let data = Dataset::new(&values[..], 2).unwrap();
    let p = params(KernelSpec::rbf(1.0), 2, Nystrom::random(20, 0), false);
    let mut fit = fit_nystrom(&p, &mut ChunkedRows::new(&data, 30)).expect("streamed");
    assert!(matches!(
        fit.set_false_alarm_rate(0.1),
        Err(FitError::RowsNotKept { .. })
    ));
    let targets = Dataset::new(vec![0.5; 100], 1).unwrap();
    assert!(matches!(
        fit.fit_regression(&targets),
        Err(FitError::RowsNotKept { .. })
    ));
    // The pre-image map of a Nystrom fit is learned on its landmarks: it works.
    fit.fit_inverse_transform(1.0).expect("pre-image map");
}

/// The stages as a cluster runs them: every pass on separate partitions,
/// each part through its flat array, merged in order.
#[test]
fn partitions_merged_through_their_arrays_give_the_in_memory_fit() {
    use kpca_fit::stream::{ColumnSurvey, ScoreSummary, StreamPlan};
    let (n, d) = (900, 4);
    let values = mixture(n, d, 21);
    let data = Dataset::new(&values[..], d).unwrap();
    let bounds = [0, 1, 350, 351, 900];
    let parts: Vec<Dataset<'_>> = bounds
        .windows(2)
        .map(|w| Dataset::new(&values[w[0] * d..w[1] * d], d).unwrap())
        .collect();
    for ny in [
        Nystrom::random(50, 3),
        Nystrom::rp_cholesky(40, 2),
        Nystrom::kmeans_pp(30, 4),
    ] {
        let p = params(KernelSpec::rbf(0.4), 3, ny.clone(), true);
        let mut survey = ColumnSurvey::new(d);
        for part in &parts {
            let mut s = ColumnSurvey::new(d);
            s.update(part).unwrap();
            survey
                .merge(&ColumnSurvey::from_array(&s.to_array()).unwrap())
                .unwrap();
        }
        let plan = StreamPlan::new(&p, &survey).unwrap();
        let rows: Vec<f64> = plan
            .rows_needed()
            .iter()
            .flat_map(|&i| data.row(i).unwrap().to_vec())
            .collect();
        let landmarks = plan.landmarks(&Dataset::new(rows, d).unwrap()).unwrap();
        let mut sums = landmarks.new_sums();
        for part in &parts {
            let mut s = landmarks.new_sums();
            landmarks.update(&mut s, part).unwrap();
            sums.merge_array(&s.sums_array()).unwrap();
        }
        let solution = landmarks.solve(sums).unwrap();
        let mut summary = solution.new_summary();
        for part in &parts {
            let mut s = solution.new_summary();
            solution.score(&mut s, part).unwrap();
            summary
                .merge(&ScoreSummary::from_array(&s.to_array()).unwrap())
                .unwrap();
        }
        let streamed = solution.finish(&summary).unwrap();
        let whole = fit_nystrom(&p, &mut ChunkedRows::new(&data, 64)).unwrap();
        assert_same_fit(&streamed, &whole, &data, &format!("parts {ny:?}"));
        if matches!(ny, Nystrom::KMeansPlusPlus { .. }) {
            continue;
        }
        let memory = p.fit(&data).unwrap();
        assert_same_fit(
            &streamed,
            &memory,
            &data,
            &format!("parts vs memory {ny:?}"),
        );
    }
    // Damaged arrays are refused, not misread.
    assert!(ColumnSurvey::from_array(&[2.0, 1.0]).is_err());
    assert!(ScoreSummary::from_array(&[1.0, 5.0, 2.0, 0.5, 1.0, 3.0, 1.0, 2.0, 3.0]).is_err());
}
