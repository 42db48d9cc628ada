//! One test per error kind of the fit: the right variant, a helpful message, no panic.

mod support;

use kpca_fit::{
    export, Dataset, FitError, FitWarning, KernelId, KernelPca, KernelSpec, Nystrom, Solver,
};
use support::*;

/// 60 points on a noisy curve in 3-D (no constant column, no repeated rows).
fn curve(n: usize) -> Dataset<'static> {
    let rows = (0..n)
        .map(|i| {
            let t = i as f64 * 0.1;
            vec![t.cos(), t.sin(), 0.3 * (2.0 * t).sin() + 0.01 * i as f64]
        })
        .collect();
    Dataset::from_rows(rows).expect("dataset")
}

fn err_of<T: std::fmt::Debug>(r: Result<T, FitError>) -> (FitError, String) {
    let e = r.expect_err("an error");
    let msg = e.to_string();
    (e, msg)
}

#[test]
fn empty_and_ragged_input() {
    let (e, _) = err_of(Dataset::new(Vec::<f64>::new(), 2));
    assert_eq!(e, FitError::EmptyData);
    let (e, _) = err_of(Dataset::new(vec![1.0, 2.0], 0));
    assert_eq!(e, FitError::EmptyData);
    let (e, _) = err_of(Dataset::from_rows(vec![]));
    assert_eq!(e, FitError::EmptyData);
    let (e, msg) = err_of(Dataset::from_rows(vec![vec![1.0, 2.0], vec![3.0]]));
    assert_eq!(
        e,
        FitError::Ragged {
            row: 1,
            len: 1,
            expected: 2
        }
    );
    assert!(msg.contains("row 1 has 1 values"), "{msg}");
    let (e, _) = err_of(Dataset::new(vec![1.0, 2.0, 3.0], 2));
    assert!(matches!(e, FitError::Ragged { expected: 2, .. }));
}

#[test]
fn non_finite_input() {
    let mut values = curve(20).values().to_vec();
    values[3 * 4 + 2] = f64::NAN;
    let data = Dataset::new(values, 3).expect("dataset");
    let (e, msg) = err_of(KernelPca::params().n_components(2).fit(&data));
    assert_eq!(e, FitError::NonFiniteInput { row: 4, column: 2 });
    assert!(msg.contains("row 4, column 2"), "{msg}");
    // In transform too.
    let fitted = KernelPca::params()
        .n_components(2)
        .fit(&curve(20))
        .expect("fit");
    let bad = Dataset::new(vec![1.0, f64::INFINITY, 0.0], 3).expect("dataset");
    assert_eq!(
        err_of(fitted.transform(&bad)).0,
        FitError::NonFiniteInput { row: 0, column: 1 }
    );
}

#[test]
fn constant_data_and_constant_column() {
    let same = Dataset::from_rows(vec![vec![1.0, 2.0]; 10]).expect("dataset");
    let (e, msg) = err_of(
        KernelPca::params()
            .kernel(KernelSpec::rbf(1.0))
            .n_components(1)
            .fit(&same),
    );
    assert_eq!(e, FitError::ConstantData);
    assert!(msg.contains("constant data"), "{msg}");
    let rows = (0..10).map(|i| vec![i as f64, 5.0, -(i as f64)]).collect();
    let data = Dataset::from_rows(rows).expect("dataset");
    let (e, msg) = err_of(
        KernelPca::params()
            .kernel(KernelSpec::rbf(1.0))
            .n_components(1)
            .standardize(true)
            .fit(&data),
    );
    assert_eq!(e, FitError::ConstantColumn { column: 1 });
    assert!(msg.contains("constant column 1"), "{msg}");
    // Without standardisation a constant column is fine.
    assert!(KernelPca::params()
        .kernel(KernelSpec::rbf(1.0))
        .n_components(1)
        .fit(&data)
        .is_ok());
}

#[test]
fn component_counts() {
    let (e, _) = err_of(KernelPca::params().n_components(0).check());
    assert_eq!(e, FitError::ZeroComponents);
    let (e, msg) = err_of(
        KernelPca::params()
            .kernel(KernelSpec::rbf(1.0))
            .n_components(3)
            .fit(&curve(3)),
    );
    assert_eq!(
        e,
        FitError::TooFewPoints {
            n_points: 3,
            n_components: 3
        }
    );
    assert!(msg.contains("at least 4 training points"), "{msg}");
}

#[test]
fn more_components_than_positive_eigenvalues() {
    // Linear kernel on 5 features: rank 5.
    let fx = load("full_linear_blobs.json");
    let data = dataset(&fx["x_train"]);
    for solver in [Solver::Dense, Solver::Iterative] {
        let (e, msg) = err_of(
            KernelPca::params()
                .kernel(KernelSpec::linear())
                .n_components(6)
                .solver(solver)
                .fit(&data),
        );
        match e {
            FitError::TooManyComponents {
                requested: 6,
                positive: 5,
                ..
            } => {}
            other => panic!("{solver:?}: {other:?}"),
        }
        assert!(msg.contains("only 5 positive eigenvalues"), "{msg}");
        assert!(msg.contains("n_components <= 5"), "{msg}");
    }
}

#[test]
fn kernel_parameters() {
    for g in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let (e, msg) = err_of(KernelPca::params().kernel(KernelSpec::rbf(g)).check());
        assert!(matches!(e, FitError::BadGamma(_)), "{e:?}");
        assert!(msg.contains("gamma must be finite and > 0"), "{msg}");
    }
    let (e, _) = err_of(
        KernelPca::params()
            .kernel(KernelSpec::sigmoid(0.1, f64::NAN))
            .check(),
    );
    assert!(matches!(e, FitError::BadCoef0(_)));
    for deg in [0, 17] {
        let (e, msg) = err_of(
            KernelPca::params()
                .kernel(KernelSpec::poly(1.0, deg, 1.0))
                .check(),
        );
        assert_eq!(e, FitError::BadDegree(deg));
        assert!(msg.contains("degree must be in 1..=16"), "{msg}");
    }
    // The f64 fit takes a gamma the device's f32 cannot hold; check_f32 says so.
    let tiny = KernelSpec::rbf(1e-50);
    assert!(tiny.check().is_ok());
    assert_eq!(tiny.check_f32(), Err(FitError::BadGamma(1e-50)));
    let big = KernelSpec::poly(0.5, 2, -1e39);
    assert_eq!(big.check_f32(), Err(FitError::BadCoef0(-1e39)));
    assert!(KernelSpec::rbf(None).check_f32().is_ok());
    assert!(KernelSpec::linear().with_gamma(1e-50).check_f32().is_ok());
    // Parameters a kernel does not use are not checked.
    assert!(KernelPca::params()
        .kernel(KernelSpec::linear().with_gamma(-1.0))
        .check()
        .is_ok());
}

#[test]
fn landmark_count_and_indices() {
    let data = curve(30);
    let base = KernelPca::params()
        .kernel(KernelSpec::rbf(1.0))
        .n_components(3);
    let (e, msg) = err_of(base.clone().nystrom(Nystrom::random(31, 0)).fit(&data));
    assert_eq!(
        e,
        FitError::BadLandmarkCount {
            m: 31,
            n_points: Some(30),
            n_components: Some(3)
        }
    );
    assert!(
        msg.contains("m = 31 landmarks with n = 30 points and 3 components"),
        "{msg}"
    );
    // Checked before the data: no made-up number of points in the message.
    let (e, msg) = err_of(base.clone().nystrom(Nystrom::random(2, 0)).check());
    assert!(matches!(
        e,
        FitError::BadLandmarkCount {
            m: 2,
            n_points: None,
            ..
        }
    ));
    assert!(!msg.contains("n = 0"), "{msg}");
    let (e, msg) = err_of(
        base.clone()
            .nystrom(Nystrom::indices(vec![0, 5, 30, 7]))
            .fit(&data),
    );
    assert_eq!(
        e,
        FitError::BadLandmarkIndex {
            index: 30,
            n_points: 30,
            duplicate: false
        }
    );
    assert!(msg.contains("out of range"), "{msg}");
    let (e, msg) = err_of(base.nystrom(Nystrom::indices(vec![1, 4, 4, 9])).check());
    assert!(matches!(
        e,
        FitError::BadLandmarkIndex {
            index: 4,
            duplicate: true,
            ..
        }
    ));
    assert!(msg.contains("given twice"), "{msg}");
}

#[test]
fn singular_landmarks() {
    // Linear kernel, landmarks at the origin: K_mm = 0.
    let mut rows: Vec<Vec<f64>> = (0..20)
        .map(|i| vec![i as f64, (i * i) as f64 * 0.1])
        .collect();
    rows[3] = vec![0.0, 0.0];
    rows[7] = vec![0.0, 0.0];
    let data = Dataset::from_rows(rows).expect("dataset");
    let (e, msg) = err_of(
        KernelPca::params()
            .kernel(KernelSpec::linear())
            .n_components(1)
            .nystrom(Nystrom::indices(vec![3, 7]))
            .fit(&data),
    );
    assert_eq!(e, FitError::SingularLandmarks);
    assert!(msg.contains("pseudo-inverse"), "{msg}");
}

#[test]
fn options_out_of_range() {
    for rate in [0.0, 1.0, -0.1, f64::NAN] {
        let (e, msg) = err_of(KernelPca::params().false_alarm_rate(rate).check());
        assert!(matches!(
            e,
            FitError::BadOption {
                name: "false_alarm_rate",
                ..
            }
        ));
        assert!(msg.contains("false_alarm_rate"), "{msg}");
    }
    let (e, _) = err_of(KernelPca::params().tol(0.0).check());
    assert!(matches!(e, FitError::BadOption { name: "tol", .. }));
    let (e, _) = err_of(KernelPca::params().max_iter(0).check());
    assert!(matches!(
        e,
        FitError::BadOption {
            name: "max_iter",
            ..
        }
    ));
    let (e, _) = err_of(KernelPca::params().pinv_rtol(-1.0).check());
    assert!(matches!(
        e,
        FitError::BadOption {
            name: "pinv_rtol",
            ..
        }
    ));
}

#[test]
fn non_finite_kernel_values() {
    let rows = (0..10).map(|i| vec![1e30 * (i + 1) as f64, 1.0]).collect();
    let data = Dataset::from_rows(rows).expect("dataset");
    let (e, msg) = err_of(
        KernelPca::params()
            .kernel(KernelSpec::poly(1.0, 16, 1.0))
            .n_components(1)
            .fit(&data),
    );
    assert_eq!(e, FitError::NonFiniteKernel);
    assert!(msg.contains("standardise"), "{msg}");
}

#[test]
fn feature_mismatch_in_transform() {
    let fitted = KernelPca::params()
        .n_components(2)
        .fit(&curve(20))
        .expect("fit");
    let two = Dataset::new(vec![1.0, 2.0], 2).expect("dataset");
    let (e, msg) = err_of(fitted.transform(&two));
    assert_eq!(
        e,
        FitError::FeatureMismatch {
            expected: 3,
            got: 2
        }
    );
    assert!(msg.contains("fitted on 3 features"), "{msg}");
    assert!(fitted.anomaly_score(&two).is_err());
}

#[test]
fn iterative_solver_not_converging() {
    let (e, msg) = err_of(
        KernelPca::params()
            .kernel(KernelSpec::rbf(1.0))
            .n_components(2)
            .solver(Solver::Iterative)
            .tol(1e-30)
            .max_iter(2)
            .fit(&curve(120)),
    );
    assert!(
        matches!(
            e,
            FitError::NotConverged {
                solver: "lanczos",
                iterations: 2,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(msg.contains("did not converge"), "{msg}");
}

#[test]
fn device_model_limits() {
    // More components than the device format holds.
    let k = kpca_core::MAX_COMPONENTS + 1;
    let fitted = KernelPca::params()
        .kernel(KernelSpec::rbf(1.0))
        .n_components(k)
        .fit(&curve(60))
        .expect("f64 fit has no limit on k");
    let (e, msg) = err_of(fitted.to_model());
    assert!(
        matches!(
            e,
            FitError::Device {
                source: kpca_core::Error::DimensionTooLarge,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(msg.contains("device model"), "{msg}");
    assert!(std::error::Error::source(&e).is_some());
}

#[test]
fn bad_export_names() {
    let fitted = KernelPca::params()
        .n_components(2)
        .fit(&curve(20))
        .expect("fit");
    let blob = fitted.to_blob().expect("blob");
    let info = fitted.export_info();
    let long = "a".repeat(export::MAX_NAME_LEN + 1);
    for name in ["", "2bad", "a-b", "int", "__x", "_Cap", "é", long.as_str()] {
        let (e, msg) = err_of(export::c_source(&blob, name, &info));
        assert!(matches!(e, FitError::BadName { .. }), "{name}: {e:?}");
        assert!(msg.contains("invalid name"), "{msg}");
    }
    for name in ["fn", "self", "1x"] {
        assert!(matches!(
            export::rust_source(&blob, name),
            Err(FitError::BadName { .. })
        ));
    }
    // A corrupted blob is rejected: it never becomes a ModelBlob, the only
    // thing the exports take.
    let mut bad = blob.as_bytes().to_vec();
    bad[70] ^= 1;
    assert_eq!(
        kpca_fit::ModelBlob::from_bytes(&bad).err(),
        Some(kpca_core::Error::CrcMismatch)
    );
}

#[test]
fn indefinite_kernel_warns_and_drops_negative_eigenvalues() {
    let fx = load("full_sigmoid_case.json");
    let fitted = KernelPca::params()
        .kernel(kernel_of(&fx))
        .n_components(3)
        .solver(Solver::Dense)
        .fit(&dataset(&fx["x_train"]))
        .expect("fit");
    let w = fitted
        .warnings()
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let n_neg = fx["n_negative_eigenvalues"].as_u64().expect("count");
    assert!(
        matches!(
            fitted.warnings(),
            [FitWarning::IndefiniteKernel { kernel: KernelId::Sigmoid, negative, total: 100, .. }]
                if *negative as u64 == n_neg
        ),
        "{:?}",
        fitted.warnings()
    );
    assert!(
        w.contains(&format!("{n_neg} of the 100 eigenvalues")),
        "{w}"
    );
    assert!(w.contains("indefinite"), "{w}");
    assert!(fitted.eigenvalues().iter().all(|&v| v > 0.0));
    let all = fitted.all_eigenvalues().expect("dense");
    assert!(all.iter().filter(|&&v| v < 0.0).count() as u64 >= n_neg);
    // Asking for more components than positive eigenvalues says how many there are.
    let n_pos = fx["n_positive_eigenvalues"].as_u64().expect("count") as usize;
    let (e, _) = err_of(
        KernelPca::params()
            .kernel(kernel_of(&fx))
            .n_components(n_pos + 1)
            .fit(&dataset(&fx["x_train"])),
    );
    assert!(
        matches!(e, FitError::TooManyComponents { positive, .. } if positive == n_pos),
        "{e:?}"
    );
    // A positive-definite kernel gives no warning.
    let fx = load("full_circles_rbf.json");
    let ok = KernelPca::params()
        .kernel(kernel_of(&fx))
        .n_components(4)
        .fit(&dataset(&fx["x_train"]))
        .expect("fit");
    assert!(ok.warnings().is_empty(), "{:?}", ok.warnings());
}

#[test]
fn too_many_points_for_full_kernel_pca() {
    let n = kpca_fit::MAX_FULL_POINTS + 1;
    let values: Vec<f64> = (0..n).map(|i| (i % 97) as f64).collect();
    let data = Dataset::new(values, 1).expect("dataset");
    let (e, msg) = err_of(
        KernelPca::params()
            .kernel(KernelSpec::rbf(1.0))
            .n_components(1)
            .fit(&data),
    );
    assert!(matches!(e, FitError::TooManyPoints { .. }), "{e:?}");
    assert!(msg.contains("use Nyström"), "{msg}");
}

#[test]
fn indefinite_kernel_in_nystrom_warns() {
    let fx = load("full_sigmoid_case.json");
    let fitted = KernelPca::params()
        .kernel(kernel_of(&fx))
        .n_components(2)
        .nystrom(Nystrom::random(60, 4))
        .fit(&dataset(&fx["x_train"]))
        .expect("fit");
    assert!(
        matches!(
            fitted.warnings(),
            [FitWarning::IndefiniteLandmarks {
                kernel: KernelId::Sigmoid,
                ..
            }]
        ),
        "{:?}",
        fitted.warnings()
    );
    let w = fitted
        .warnings()
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(w.contains("indefinite"), "{w}");
    assert!(fitted.eigenvalues().iter().all(|&v| v > 0.0));
}
