//! Property tests of the fit on hostile data and parameters: ragged
//! rows, empty data, a single row, huge, tiny and denormal magnitudes, constant
//! columns, duplicate rows, n < k, gamma <= 0, degree 0, m > n, for every kernel,
//! both solvers and Nyström.
//!
//! Properties: the fit never panics; parameters and data that the documentation
//! says are refused give an error; a fit that succeeds has finite eigenvalues,
//! scores and threshold; its device model either cannot be built (an error) or
//! loads through `ModelRef::from_bytes` and projects and scores every finite f32
//! input in the data's range (the training rows and points of their bounding box)
//! to finite numbers.
//!
//! The runner counts the outcomes and fails when too few cases reach a valid
//! model, so the properties cannot pass by erroring everywhere.

use kpca_core::ModelRef;
use kpca_fit::{Dataset, FitError, KernelId, KernelPca, KernelSpec, Method, Nystrom, Solver};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::cell::Cell;

/// Scales of a whole data set: ordinary, huge, tiny, f32-denormal, f64-denormal,
/// and past the f32 range.
const SCALES: [f64; 10] = [
    1.0, 1e30, 1e-30, 1e-40, 1e-310, 5e-324, 1e15, 1e-15, 1e200, 3.0e38,
];

/// Gammas: valid ones, and (less often) ones the fit must refuse. `None` is 1/d.
fn gamma() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        6 => prop::sample::select(&[None, Some(1.0), Some(0.3), Some(1e-30), Some(1e30), Some(f64::MIN_POSITIVE), Some(5e-324)][..]),
        1 => prop::sample::select(&[Some(0.0), Some(-0.0), Some(-1.0), Some(f64::NAN), Some(f64::INFINITY)][..]),
    ]
}

fn coef0() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => prop::sample::select(&[1.0, 0.0, -1.0, -0.5, 1e30][..]),
        1 => Just(f64::NAN),
    ]
}

/// One fit: data (row-major, n x d) and parameters.
#[derive(Clone, Debug)]
struct Case {
    n: usize,
    d: usize,
    values: Vec<f64>,
    kernel: KernelSpec,
    k: usize,
    solver: Solver,
    standardize: bool,
    nystrom: Option<Nystrom>,
}

/// Data: n x d values at one scale, with some columns made constant, some rows
/// duplicated and a few entries replaced by extremes (occasionally non-finite).
fn data() -> impl Strategy<Value = (usize, usize, Vec<f64>)> {
    (prop_oneof![1 => 1usize..=2, 5 => 3usize..=7], 1usize..=4)
        .prop_flat_map(|(n, d)| {
            (
                Just(n),
                Just(d),
                prop::collection::vec(-4i32..=4, n * d),
                prop::collection::vec(-1.0f64..1.0, n * d),
                prop_oneof![3 => Just(1.0), 4 => prop::sample::select(&SCALES[..])],
                prop::collection::vec(prop::bool::weighted(0.15), d),
                prop::collection::vec(0usize..n * 3, n),
                prop::collection::vec(
                    (0usize..n * d, prop_oneof![12 => 0usize..6, 1 => 6usize..8]),
                    0..3,
                ),
            )
        })
        .prop_map(|(n, d, ints, fracs, scale, constant, dup, specials)| {
            let mut v: Vec<f64> = ints
                .iter()
                .zip(&fracs)
                .map(|(&i, &f)| (f64::from(i) + f) * scale)
                .collect();
            // Constant columns.
            for (j, &c) in constant.iter().enumerate() {
                if c {
                    for i in 0..n {
                        v[i * d + j] = 0.5 * scale;
                    }
                }
            }
            // Duplicate rows: row i becomes a copy of row dup[i] (when dup[i] < i).
            for (i, &src) in dup.iter().enumerate() {
                if src < i && i % 2 == 1 {
                    let row: Vec<f64> = v[src * d..src * d + d].to_vec();
                    v[i * d..i * d + d].copy_from_slice(&row);
                }
            }
            for (at, which) in specials {
                v[at] = match which {
                    0 => f64::MAX / 4.0,
                    1 => -1e-320,
                    2 => -0.0,
                    3 => f32::MAX as f64,
                    4 => f32::MIN_POSITIVE as f64 / 8.0,
                    5 => 1e20,
                    6 => f64::NAN,
                    _ => f64::INFINITY,
                };
            }
            (n, d, v)
        })
}

fn kernel() -> impl Strategy<Value = KernelSpec> {
    (
        prop::sample::select(&KernelId::ALL[..]),
        gamma(),
        prop_oneof![8 => 1u32..=4, 1 => Just(0u32), 1 => 5u32..=18],
        coef0(),
    )
        .prop_map(|(kind, gamma, degree, coef0)| KernelSpec {
            kind,
            gamma,
            degree,
            coef0,
        })
}

fn case() -> impl Strategy<Value = Case> {
    (
        data(),
        kernel(),
        prop::bool::weighted(0.4),
        0usize..3,
        0usize..4,
        any::<u64>(),
    )
        .prop_flat_map(|((n, d, values), kernel, standardize, solver, ny, seed)| {
            (
                Just((n, d, values, kernel, standardize, solver, ny, seed)),
                // k from 0 to n + 1 (n < k included), weighted to small values.
                prop_oneof![6 => 1usize..=2, 1 => 0usize..=n + 1],
                // m: within k..=n (a fraction of the way), or anything from 0 to
                // n + 2 (m > n included).
                prop_oneof![4 => (0.0f64..1.0).prop_map(Ok), 1 => (0usize..=n + 2).prop_map(Err)],
                prop_oneof![
                    3 => Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
                    1 => prop::collection::vec(0usize..n + 2, 0..=n + 1),
                ],
            )
        })
        .prop_map(
            |((n, d, values, kernel, standardize, solver, ny, seed), k, m, idx)| {
                let m = match m {
                    Ok(t) => (k + (t * (n.saturating_sub(k) + 1) as f64) as usize).min(n),
                    Err(m) => m,
                };
                Case {
                    n,
                    d,
                    values,
                    kernel,
                    k,
                    solver: [Solver::Auto, Solver::Dense, Solver::Iterative][solver],
                    standardize,
                    nystrom: match ny {
                        0 | 1 => None,
                        2 => Some(Nystrom::random(m, seed)),
                        // A prefix of a shuffle (valid), or arbitrary indices.
                        _ => Some(Nystrom::indices(idx.into_iter().take(m.max(1)).collect())),
                    },
                }
            },
        )
}

/// Outcome counts of one run.
#[derive(Default)]
struct Counts {
    fit_err: Cell<usize>,
    export_err: Cell<usize>,
    valid: Cell<usize>,
    valid_nystrom: Cell<usize>,
    valid_extreme: Cell<usize>,
    valid_moderate: Cell<usize>,
}

fn bump(c: &Cell<usize>) {
    c.set(c.get() + 1);
}

/// What the documentation says must be refused, whatever the data's numbers.
fn must_fail(c: &Case) -> Option<&'static str> {
    let g = c.kernel.gamma;
    let uses = c.kernel.kind.uses();
    if c.k == 0 {
        return Some("k = 0");
    }
    if uses.gamma && g.is_some_and(|g| !(g.is_finite() && g > 0.0)) {
        return Some("gamma not finite and > 0");
    }
    if uses.degree && (c.kernel.degree == 0 || c.kernel.degree > 16) {
        return Some("degree outside 1..=16");
    }
    if uses.coef0 && !c.kernel.coef0.is_finite() {
        return Some("coef0 not finite");
    }
    if c.values.iter().any(|v| !v.is_finite()) {
        return Some("non-finite data");
    }
    if c.n < c.k + 1 {
        return Some("n < k + 1");
    }
    if c.values.chunks(c.d).all(|r| r == &c.values[..c.d]) {
        return Some("constant data");
    }
    if let Some(ny) = &c.nystrom {
        let m = ny.m();
        if m < c.k || m > c.n {
            return Some("m outside k..=n");
        }
        if let Nystrom::Indices(idx) = ny {
            let mut s = idx.clone();
            s.sort_unstable();
            s.dedup();
            if s.len() != idx.len() || idx.iter().any(|&i| i >= c.n) {
                return Some("landmark index repeated or out of range");
            }
        }
    }
    None
}

/// Whether the case is in the range where the f32 device must evaluate every
/// input of the data's range: every non-zero value between 1e-6 and 1e4 in
/// magnitude, gamma 1/d or between 0.01 and 10, |coef0| <= 1, degree <= 4.
/// Outside it, f32 arithmetic can overflow or underflow between the training
/// points where it did not at them; there only the stored points are required.
fn moderate(c: &Case) -> bool {
    let values = c
        .values
        .iter()
        .all(|v| *v == 0.0 || (1e-6..=1e4).contains(&v.abs()));
    let gamma =
        !c.kernel.kind.uses().gamma || c.kernel.gamma.is_none_or(|g| (0.01..=10.0).contains(&g));
    values && gamma && c.kernel.coef0.abs() <= 1.0 && c.kernel.degree <= 4
}

/// The data's bounding box: its centre, points between its corners and
/// alternating corners.
fn box_points(c: &Case) -> Vec<Vec<f64>> {
    let d = c.d;
    let mut lo = vec![f64::INFINITY; d];
    let mut hi = vec![f64::NEG_INFINITY; d];
    for row in c.values.chunks(d) {
        for j in 0..d {
            lo[j] = lo[j].min(row[j]);
            hi[j] = hi[j].max(row[j]);
        }
    }
    let mut out = Vec::new();
    for t in [0.0, 0.25, 0.5, 0.9, 1.0] {
        out.push((0..d).map(|j| lo[j] + t * (hi[j] - lo[j])).collect());
        out.push(
            (0..d)
                .map(|j| {
                    if (j % 2 == 0) == (t < 0.5) {
                        lo[j]
                    } else {
                        hi[j]
                    }
                })
                .collect(),
        );
    }
    out
}

fn check_case(c: &Case, counts: &Counts) -> Result<(), TestCaseError> {
    // The f32 check is the stricter: what passes it passes the fit's.
    prop_assert!(
        c.kernel.check_f32().is_err() || c.kernel.check().is_ok(),
        "{:?}",
        c.kernel
    );
    let data = Dataset::new(&c.values[..], c.d).expect("a whole number of rows");
    let mut params = KernelPca::params()
        .kernel(c.kernel)
        .n_components(c.k)
        .solver(c.solver)
        .standardize(c.standardize);
    if let Some(ny) = &c.nystrom {
        params = params.nystrom(ny.clone());
    }
    let fitted = match params.fit(&data) {
        Err(e) => {
            // Every error has a message (Display does not panic either).
            prop_assert!(!e.to_string().is_empty());
            bump(&counts.fit_err);
            return Ok(());
        }
        Ok(f) => f,
    };
    if let Some(why) = must_fail(c) {
        return Err(TestCaseError::fail(format!("fit succeeded although {why}")));
    }
    let k = fitted.n_components();
    prop_assert_eq!(k, c.k);
    prop_assert!(
        fitted
            .eigenvalues()
            .iter()
            .all(|v| v.is_finite() && *v > 0.0),
        "eigenvalues {:?}",
        fitted.eigenvalues()
    );
    let ratios = fitted.explained_variance_ratio();
    prop_assert!(
        ratios.iter().all(|v| *v > 0.0 && *v <= 1.0) && ratios.iter().sum::<f64>() <= 1.0 + 1e-9,
        "explained variance ratios {:?}",
        ratios
    );
    prop_assert_eq!(fitted.train_scores().len(), c.n * k);
    prop_assert!(fitted.train_scores().iter().all(|v| v.is_finite()));
    prop_assert!(fitted.train_anomaly_scores().iter().all(|v| v.is_finite()));
    prop_assert!(fitted.threshold().is_finite() && fitted.threshold() >= 0.0);
    match fitted.transform_and_score(&data) {
        Ok((y, e)) => {
            prop_assert!(y.iter().chain(&e).all(|v| v.is_finite()), "f64 transform");
        }
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "transform of the training data: {e}"
            )))
        }
    }

    // The device model: an error, or a blob that loads, projects and scores.
    let blob = match fitted.to_blob() {
        Err(e) => {
            prop_assert!(
                matches!(e, FitError::Device { .. }),
                "export error of an unexpected kind: {:?}",
                e
            );
            bump(&counts.export_err);
            return Ok(());
        }
        Ok(b) => b,
    };
    // The blob as a file holds it, loaded with the full check.
    let bytes = blob.as_bytes();
    let model = match ModelRef::from_bytes(bytes) {
        Ok(m) => m,
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "exported blob does not load: {e:?}"
            )))
        }
    };
    prop_assert_eq!(model.dim(), c.d);
    prop_assert_eq!(model.n_components(), k);
    // The stored points (every training row of a full fit, the landmarks of a
    // Nyström fit) always; every training row and the bounding box in the
    // moderate range.
    let rows: Vec<&[f64]> = c.values.chunks(c.d).collect();
    let mut inputs: Vec<Vec<f64>> = match fitted.method() {
        Method::Full => rows.iter().map(|r| r.to_vec()).collect(),
        Method::Nystrom { landmarks, .. } => landmarks.iter().map(|&i| rows[i].to_vec()).collect(),
    };
    // A linear or cosine model of more than k + 1 points is folded into its
    // linear map: k + 1 stored points.
    let stored = if model.is_linear_map() {
        k + 1
    } else {
        inputs.len()
    };
    prop_assert_eq!(stored, model.n_points());
    prop_assert_eq!(
        model.is_linear_map(),
        matches!(c.kernel.kind, KernelId::Linear | KernelId::Cosine) && k + 1 < inputs.len()
    );
    if moderate(c) {
        bump(&counts.valid_moderate);
        inputs.extend(rows.iter().map(|r| r.to_vec()));
        inputs.extend(box_points(c));
    }
    for x64 in inputs {
        let x: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
        prop_assert!(
            x.iter().all(|v| v.is_finite()),
            "stored point {:?} is not an f32 input",
            x64
        );
        let mut y = vec![0.0f32; k];
        match model.project_and_score(&x, &mut y) {
            Ok(e) => prop_assert!(
                e.is_finite() && y.iter().all(|v| v.is_finite()),
                "x {:?}: y {:?}, e {}",
                x,
                y,
                e
            ),
            Err(e) => {
                return Err(TestCaseError::fail(format!(
                    "valid model fails on x = {x:?} in the data's range: {e:?}"
                )))
            }
        }
        let mut y2 = vec![0.0f32; k];
        prop_assert!(model.project(&x, &mut y2).is_ok());
        prop_assert_eq!(&y, &y2);
        prop_assert!(model.anomaly_score(&x).is_ok_and(f32::is_finite));
    }
    bump(&counts.valid);
    if c.nystrom.is_some() {
        bump(&counts.valid_nystrom);
    }
    let mag = kpca_testkit::max_abs(&c.values);
    if !(1e-20..=1e20).contains(&mag) {
        bump(&counts.valid_extreme);
    }
    Ok(())
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 2000,
        ..Config::default()
    }
}

#[test]
fn fit_is_an_error_or_a_valid_model() {
    let counts = Counts::default();
    // KPCA_PROP_FIT_CASES=N runs more cases (a longer search); the thresholds
    // below are for the default.
    let cases = std::env::var("KPCA_PROP_FIT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000u32)
        .max(10_000);
    let mut runner = TestRunner::new(config(cases));
    let result = runner.run(&case(), |c| check_case(&c, &counts));
    if let Err(e) = result {
        panic!("{e}");
    }
    let (fe, ee, v) = (
        counts.fit_err.get(),
        counts.export_err.get(),
        counts.valid.get(),
    );
    eprintln!(
        "fit errors {fe}, export errors {ee}, valid models {v} (Nyström {}, extreme magnitudes {}, \
         moderate {})",
        counts.valid_nystrom.get(),
        counts.valid_extreme.get(),
        counts.valid_moderate.get()
    );
    // The cases must reach valid models, Nyström and extreme ones included.
    assert!(v >= 800, "only {v} valid models");
    assert!(counts.valid_nystrom.get() >= 350);
    assert!(counts.valid_extreme.get() >= 130);
    assert!(counts.valid_moderate.get() >= 200);
}

/// Ordinary data, every kernel, both solvers and Nyström: mostly valid models.
fn ordinary_case() -> impl Strategy<Value = Case> {
    (2usize..=9, 1usize..=4)
        .prop_flat_map(|(n, d)| {
            (
                Just(n),
                Just(d),
                prop::collection::vec(-3.0f64..3.0, n * d),
                prop::sample::select(&KernelId::ALL[..]),
                prop_oneof![Just(None), (0.01f64..3.0).prop_map(Some)],
                1u32..=5,
                -1.0f64..1.0,
                1usize..n,
                0usize..3,
                any::<bool>(),
                (0usize..=n, any::<u64>()),
            )
        })
        .prop_map(
            |(n, d, values, kind, gamma, degree, coef0, k, solver, standardize, (m, seed))| {
                let kernel = KernelSpec {
                    kind,
                    gamma,
                    degree,
                    coef0,
                };
                Case {
                    n,
                    d,
                    values,
                    kernel,
                    k,
                    solver: [Solver::Dense, Solver::Iterative, Solver::Dense][solver],
                    standardize,
                    nystrom: (solver == 2).then(|| Nystrom::random(m.max(k), seed)),
                }
            },
        )
}

#[test]
fn ordinary_data_gives_valid_models_for_every_kernel_and_solver() {
    let counts = Counts::default();
    let mut runner = TestRunner::new(config(600));
    let result = runner.run(&ordinary_case(), |c| check_case(&c, &counts));
    if let Err(e) = result {
        panic!("{e}");
    }
    let v = counts.valid.get();
    eprintln!(
        "fit errors {}, export errors {}, valid models {v}",
        counts.fit_err.get(),
        counts.export_err.get()
    );
    assert!(v >= 300, "only {v} valid models of 600");
}

/// Rows of different lengths and empty data are refused when the data set is
/// built, before any fit.
#[test]
fn ragged_and_empty_rows_are_refused() {
    let mut runner = TestRunner::new(config(300));
    let rows = prop::collection::vec(prop::collection::vec(-1e3f64..1e3, 0..4), 0..6);
    let result = runner.run(&rows, |rows| {
        let lens: Vec<usize> = rows.iter().map(Vec::len).collect();
        let well_formed = !lens.is_empty() && lens[0] > 0 && lens.iter().all(|&l| l == lens[0]);
        match Dataset::from_rows(rows.clone()) {
            Ok(ds) => {
                prop_assert!(well_formed, "accepted {:?}", lens);
                prop_assert_eq!(ds.n_rows(), rows.len());
                // A single row, or any other shape: the fit returns, never panics.
                let r = KernelPca::params()
                    .kernel(KernelSpec::rbf(None))
                    .n_components(1)
                    .fit(&ds);
                if rows.len() < 2 {
                    prop_assert!(
                        matches!(r, Err(FitError::TooFewPoints { .. })),
                        "single row: {:?}",
                        r.err()
                    );
                }
            }
            Err(e) => {
                prop_assert!(!well_formed, "refused {:?}: {}", lens, e);
                prop_assert!(
                    matches!(e, FitError::EmptyData | FitError::Ragged { .. }),
                    "error kind {:?}",
                    e
                );
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// ------------------------------------------------------ regressions found here

/// Found by `fit_is_an_error_or_a_valid_model`: a Nyström fit whose landmarks
/// leave out a point with a huge value had every kernel value against the
/// landmarks finite, but k(x, x) of that point overflowed, and the fit returned
/// Ok with infinite training anomaly scores (and threshold). Now NonFiniteKernel.
#[test]
fn nystrom_with_an_overflowing_self_kernel_outside_the_landmarks_is_an_error() {
    let values = [
        0.0,
        1e20,
        0.0,
        0.0,
        0.0,
        0.5,
        0.25,
        0.0,
        0.0,
        0.75,
        4.494_232_837_155_789e307,
        0.0,
    ];
    let data = Dataset::new(&values[..], 2).expect("6 x 2");
    for kernel in [KernelSpec::linear(), KernelSpec::poly(1.0, 2, 1.0)] {
        let r = KernelPca::params()
            .kernel(kernel)
            .n_components(1)
            .nystrom(Nystrom::indices(vec![0, 1, 2]))
            .fit(&data);
        assert!(
            matches!(r, Err(FitError::NonFiniteKernel)),
            "{kernel:?}: {:?}",
            r.map(|f| f.train_anomaly_scores().to_vec())
        );
    }
}

/// Found by `fit_is_an_error_or_a_valid_model`: the cosine kernel is scale
/// invariant, so the f64 fit succeeds on data of magnitude 5e-31, but the f32
/// device cannot evaluate it (‖x‖² underflows, `NonFiniteResult`): the exported
/// model failed on every training row. The same for a standardised model whose
/// inputs differ from the mean by more than the f32 range. Now the export is
/// refused.
#[test]
fn a_device_model_that_cannot_evaluate_its_training_points_is_refused() {
    let tiny = [
        5e-31, 0.0, 5e-31, 5e-31, 0.0, 5e-31, 5e-31, 5.2e-31, 5e-31, 5e-31, 0.0, 4e-31,
    ];
    // Column 0 has mean 1.5e38: x - mean = -4.5e38 for its last row.
    let huge = [3.0e38, 1.0, 3.0e38, 2.0, 3.0e38, 0.5, -3.0e38, 1.5];
    for (values, d, kernel, standardize) in [
        (&tiny[..], 3, KernelSpec::cosine(), false),
        (&huge[..], 2, KernelSpec::linear(), true),
    ] {
        let data = Dataset::new(values, d).expect("whole rows");
        let fitted = KernelPca::params()
            .kernel(kernel)
            .n_components(1)
            .standardize(standardize)
            .fit(&data)
            .expect("the f64 fit succeeds");
        assert!(
            matches!(
                fitted.to_blob(),
                Err(FitError::Device {
                    source: kpca_core::Error::NonFiniteResult,
                    ..
                })
            ),
            "{kernel:?}: {:?}",
            fitted.to_blob().map(|b| b.len())
        );
    }
}

/// Found by `fit_is_an_error_or_a_valid_model` (1 case in about 200 000): a
/// Laplacian kernel with gamma 5e-324 on two huge values is constant up to
/// rounding; the centred kernel matrix has eigenvalues of about ±8e-16 and a
/// trace of about 0, and the Lanczos fit divided its top eigenvalue by that
/// trace: explained variance ratio inf (the dense fit divides by the sum of
/// the positive eigenvalues). The denominator is now at least the kept
/// eigenvalues' sum. On this data the dense fit must succeed with ratios in
/// (0, 1]; the Lanczos solver now refuses the rounding-noise spectrum with
/// `NotConverged` (the bound on the trace itself is tested on the shared
/// post-processing, in the crate's unit tests).
#[test]
fn explained_variance_ratios_stay_finite_when_the_trace_vanishes() {
    let mut values = [0.0; 15];
    values[0] = 4.494_232_837_155_789e307;
    values[13] = 4.494_232_837_155_789e307;
    let data = Dataset::new(&values[..], 3).expect("5 x 3");
    for solver in [Solver::Dense, Solver::Iterative] {
        let fitted = KernelPca::params()
            .kernel(KernelSpec::laplacian(5e-324))
            .n_components(1)
            .solver(solver)
            .fit(&data);
        match (solver, fitted) {
            (Solver::Dense, Ok(f)) => {
                let r = f.explained_variance_ratio();
                assert!(
                    r.iter().all(|v| *v > 0.0 && *v <= 1.0),
                    "{solver:?}: ratios {r:?}"
                );
            }
            (
                Solver::Iterative,
                Err(FitError::NotConverged {
                    solver: "lanczos", ..
                }),
            ) => {}
            (solver, other) => panic!(
                "{solver:?}: unexpected outcome {:?}",
                other.map(|f| f.explained_variance_ratio().to_vec())
            ),
        }
    }
}

/// Found by `fit_is_an_error_or_a_valid_model` with the ratio check above: a
/// poly kernel of degree 5 with gamma 1e30 on values near 4e15 has kernel
/// values near 1e305; the eigenvalues were finite but their sum overflowed, and
/// the explained variance ratio came out 0. The sums are now scaled by the
/// largest eigenvalue. The dense full fit must succeed with ratios in (0, 1];
/// the Lanczos solver and the eigendecompositions of the Nyström fit (which
/// ignores the solver) do not converge on these magnitudes, and must say so.
#[test]
fn explained_variance_ratios_survive_an_overflowing_eigenvalue_sum() {
    let values = [
        1.677e14, -2.507e15, -3.705e15, -8.763e12, -1.074e15, -9.671e14, -1.386e15, 3.744e15,
        -4.910e15, 4.159e13, -1.293e15, -1.374e15, 3.926e15, 3.272e15, -4.042e15, 3.000e15,
        7.644e14, -3.833e15,
    ];
    let data = Dataset::new(&values[..], 3).expect("6 x 3");
    for solver in [Solver::Dense, Solver::Iterative] {
        for nystrom in [None, Some(Nystrom::indices(vec![0, 1, 2, 3, 4, 5]))] {
            let mut params = KernelPca::params()
                .kernel(KernelSpec::poly(1e30, 5, -0.5))
                .n_components(1)
                .solver(solver);
            let is_nystrom = nystrom.is_some();
            if let Some(ny) = nystrom {
                params = params.nystrom(ny);
            }
            match (solver, is_nystrom, params.fit(&data)) {
                (Solver::Dense, false, Ok(f)) => {
                    let r = f.explained_variance_ratio();
                    assert!(
                        r.iter().all(|v| *v > 0.0 && *v <= 1.0),
                        "{solver:?}: ratios {r:?}"
                    );
                }
                (
                    Solver::Iterative,
                    false,
                    Err(FitError::NotConverged {
                        solver: "lanczos", ..
                    }),
                )
                | (_, true, Err(FitError::NotConverged { .. })) => {}
                (solver, is_nystrom, other) => panic!(
                    "{solver:?} (Nyström {is_nystrom}): unexpected outcome {:?}",
                    other.map(|f| f.explained_variance_ratio().to_vec())
                ),
            }
        }
    }
}
