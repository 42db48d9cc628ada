//! Internal consistency of the fit: reconstruction-error curve, threshold,
//! standardisation, the linear kernel as PCA, the solver policy and restarts.

mod support;

use kpca_fit::{
    quantile, Dataset, KernelPca, KernelSpec, Nystrom, ResolvedSolver, SeededRng, Solver,
    SolverReport,
};
use rand_core::SeedableRng;
use support::*;

/// Identities that hold in exact arithmetic, checked in f64 relative to their scale.
const IDENTITY_REL_TOL: f64 = 1e-10;

fn uniform_cloud(n: usize, d: usize, seed: u64) -> Dataset<'static> {
    let mut rng = SeededRng::seed_from_u64(seed);
    let values: Vec<f64> = (0..n * d)
        .map(|_| {
            (rand_core::Rng::next_u64(&mut rng) >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect();
    Dataset::new(values, d).expect("dataset")
}

#[test]
fn reconstruction_curve_is_the_mean_training_score_for_each_q() {
    let fx = load("full_sensor_rbf.json");
    let x = dataset(&fx["x_train"]);
    for nystrom in [None, Some(Nystrom::random(64, 3))] {
        let mut base = KernelPca::params().kernel(kernel_of(&fx));
        if let Some(ny) = nystrom.clone() {
            base = base.nystrom(ny);
        }
        let k = 6;
        let full = base.clone().n_components(k).fit(&x).expect("fit");
        let curve = full.reconstruction_error_curve().to_vec();
        assert_eq!(curve.len(), k);
        assert!(
            curve.windows(2).all(|w| w[1] <= w[0]),
            "curve decreases: {curve:?}"
        );
        for q in 1..=k {
            let f = base.clone().n_components(q).fit(&x).expect("fit");
            let mean = f.train_anomaly_scores().iter().sum::<f64>() / f.n_train() as f64;
            let err = (mean - curve[q - 1]).abs() / curve[0];
            assert!(
                err <= IDENTITY_REL_TOL,
                "{nystrom:?} q = {q}: {mean} vs {}",
                curve[q - 1]
            );
        }
    }
}

#[test]
fn explained_variance_ratio_is_share_of_positive_eigenvalues() {
    let fx = load("full_sensor_rbf.json");
    let f = KernelPca::params()
        .kernel(kernel_of(&fx))
        .n_components(8)
        .fit(&dataset(&fx["x_train"]))
        .expect("fit");
    let total: f64 = f
        .all_eigenvalues()
        .expect("dense")
        .iter()
        .filter(|&&v| v > 0.0)
        .sum();
    for (r, mu) in f.explained_variance_ratio().iter().zip(f.eigenvalues()) {
        assert!((r - mu / total).abs() <= IDENTITY_REL_TOL);
    }
    let sum: f64 = f.explained_variance_ratio().iter().sum();
    assert!(sum > 0.0 && sum < 1.0);
}

/// Both fits report eigenvalues in one convention (mu, scikit-learn's
/// `eigenvalues_`: the score column's sum of squares) and the device model
/// records the method, n and the total variance, so eigenvalue / total is the
/// fit's explained-variance ratio in f32.
#[test]
fn both_fits_share_one_eigenvalue_convention_and_the_blob_records_the_total() {
    let fx = load("full_sensor_rbf.json");
    let x = dataset(&fx["x_train"]);
    let k = 4;
    for nystrom in [None, Some(Nystrom::random(64, 3))] {
        let mut params = KernelPca::params().kernel(kernel_of(&fx)).n_components(k);
        if let Some(ny) = nystrom.clone() {
            params = params.nystrom(ny);
        }
        let f = params.fit(&x).expect("fit");
        let n = f.n_train();
        for l in 0..k {
            let sum_sq: f64 = f
                .train_scores()
                .iter()
                .skip(l)
                .step_by(k)
                .map(|v| v * v)
                .sum();
            let mu = f.eigenvalues()[l];
            assert!(
                (sum_sq - mu).abs() <= IDENTITY_REL_TOL * mu,
                "{nystrom:?} l = {l}"
            );
            assert!((f.score_variances()[l] - mu / n as f64).abs() <= IDENTITY_REL_TOL * mu);
            let ratio = mu / f.total_variance();
            assert!((ratio - f.explained_variance_ratio()[l]).abs() <= IDENTITY_REL_TOL);
        }
        let blob = f.to_blob().expect("blob");
        let view = blob.model();
        let info = view.fit_info();
        let want_method = if nystrom.is_some() {
            kpca_core::FitMethod::Nystrom
        } else {
            kpca_core::FitMethod::Full
        };
        assert_eq!((info.method, info.n_train as usize), (want_method, n));
        let total = view.total_variance().expect("recorded");
        for (mu, r) in view.eigenvalues().iter().zip(f.explained_variance_ratio()) {
            assert!(((mu / total) as f64 - r).abs() <= 1e-6, "{nystrom:?}");
        }
    }
}

#[test]
fn quantile_is_numpy_linear() {
    assert_eq!(quantile(&[4.0, 1.0, 3.0, 2.0], 0.5), Some(2.5));
    assert_eq!(quantile(&[4.0, 1.0, 3.0, 2.0], 1.0), Some(4.0));
    assert_eq!(quantile(&[4.0, 1.0, 3.0, 2.0], 0.0), Some(1.0));
    // numpy.quantile(np.arange(11.0), 0.99) = 9.9
    let v: Vec<f64> = (0..11).map(f64::from).collect();
    assert!((quantile(&v, 0.99).expect("q") - 9.9).abs() < 1e-12);
    assert_eq!(quantile(&[], 0.5), None);
    assert_eq!(quantile(&[1.0], 1.5), None);
}

#[test]
fn threshold_is_the_training_quantile_and_flags_the_sensor_anomalies() {
    let fx = load("full_sensor_rbf.json");
    let x = dataset(&fx["x_train"]);
    let mut f = KernelPca::params()
        .kernel(kernel_of(&fx))
        .n_components(4)
        .false_alarm_rate(0.05)
        .fit(&x)
        .expect("fit");
    let want = quantile(f.train_anomaly_scores(), 0.95).expect("q");
    assert_eq!(f.threshold(), want);
    let model = f.to_model().expect("model");
    assert_eq!(model.threshold, want as f32);
    let flagged = f
        .is_anomaly(&x)
        .expect("scores")
        .iter()
        .filter(|&&a| a)
        .count();
    assert!(
        flagged <= (0.05 * f.n_train() as f64).ceil() as usize,
        "{flagged}"
    );
    // Test rows 48..63 are anomalies.
    let labels = vec1(&fx["test_labels"]);
    let flags = f.is_anomaly(&dataset(&fx["x_test"])).expect("scores");
    let hits = flags
        .iter()
        .zip(&labels)
        .filter(|(&a, &l)| a && l > 0.5)
        .count();
    let false_alarms = flags
        .iter()
        .zip(&labels)
        .filter(|(&a, &l)| a && l < 0.5)
        .count();
    eprintln!("sensor: {hits}/16 anomalies flagged, {false_alarms}/48 false alarms");
    assert!(hits >= 12, "{hits}");
    f.set_false_alarm_rate(0.01).expect("rate");
    assert_eq!(
        f.threshold(),
        quantile(f.train_anomaly_scores(), 0.99).expect("q")
    );
    assert!(f.set_false_alarm_rate(1.0).is_err());
}

#[test]
fn standardisation_matches_prestandardised_data_and_the_device() {
    // Raw data with very different column scales.
    let raw = uniform_cloud(80, 4, 9);
    let scaled: Vec<f64> = raw
        .rows()
        .flat_map(|r| [r[0] * 100.0 + 5.0, r[1] * 0.01, r[2] - 3.0, r[3] * 7.0])
        .collect();
    let raw = Dataset::new(scaled, 4).expect("dataset");
    let test = Dataset::new(raw.values()[..40].to_vec(), 4).expect("dataset");
    let params = KernelPca::params()
        .kernel(KernelSpec::rbf(None))
        .n_components(3);
    let with = params.clone().standardize(true).fit(&raw).expect("fit");
    let (mean, std) = with.standardization().expect("on");
    let z: Vec<f64> = raw
        .rows()
        .flat_map(|r| (0..4).map(move |j| (r[j] - mean[j]) / std[j]))
        .collect();
    let manual = params
        .fit(&Dataset::new(z, 4).expect("dataset"))
        .expect("fit");
    assert!(col_rel_err(with.train_scores(), manual.train_scores(), 3) <= IDENTITY_REL_TOL);
    // ddof = 0 standard deviations.
    let col0: Vec<f64> = raw.rows().map(|r| r[0]).collect();
    let m0 = col0.iter().sum::<f64>() / 80.0;
    let s0 = (col0.iter().map(|v| (v - m0).powi(2)).sum::<f64>() / 80.0).sqrt();
    assert!((std[0] - s0).abs() <= 1e-12 * s0);
    // The device standardises raw f32 input itself.
    let exact = with.transform(&test).expect("transform");
    let model = with.to_model().expect("model");
    let view = model.as_model_ref().expect("valid");
    let mut dev = Vec::new();
    for r in test.rows() {
        let x: Vec<f32> = r.iter().map(|&v| v as f32).collect();
        let mut y = [0.0f32; 3];
        view.project(&x, &mut y).expect("project");
        dev.extend(y.iter().map(|&v| v as f64));
    }
    let err = col_rel_err(&dev, &exact, 3);
    eprintln!("standardised device vs f64: {err:.2e}");
    assert!(err <= 1e-4, "{err:e}");
    // Nyström with standardisation: the device agrees with the f64 transform too.
    let ny = KernelPca::params()
        .kernel(KernelSpec::rbf(None))
        .n_components(3)
        .standardize(true)
        .nystrom(Nystrom::random(30, 2))
        .fit(&raw)
        .expect("fit");
    let exact = ny.transform(&test).expect("transform");
    let model = ny.to_model().expect("model");
    let view = model.as_model_ref().expect("valid");
    let mut dev = Vec::new();
    for r in test.rows() {
        let x: Vec<f32> = r.iter().map(|&v| v as f32).collect();
        let mut y = [0.0f32; 3];
        view.project(&x, &mut y).expect("project");
        dev.extend(y.iter().map(|&v| v as f64));
    }
    let err = col_rel_err(&dev, &exact, 3);
    eprintln!("standardised Nyström device vs f64: {err:.2e}");
    assert!(err <= 1e-4, "{err:e}");
}

#[test]
fn linear_kernel_is_pca() {
    let fx = load("full_linear_blobs.json");
    let f = KernelPca::params()
        .kernel(KernelSpec::linear())
        .n_components(3)
        .fit(&dataset(&fx["x_train"]))
        .expect("fit");
    let got = f.transform(&dataset(&fx["x_test"])).expect("transform");
    let (pca, _) = mat(&fx["pca_scores"]);
    // Equal up to the sign of each column.
    let mut flipped = got.clone();
    for l in 0..3 {
        let dot: f64 = got
            .iter()
            .skip(l)
            .step_by(3)
            .zip(pca.iter().skip(l).step_by(3))
            .map(|(a, b)| a * b)
            .sum();
        if dot < 0.0 {
            for v in flipped.iter_mut().skip(l).step_by(3) {
                *v = -*v;
            }
        }
    }
    assert!(col_rel_err(&flipped, &pca, 3) <= 1e-8);
}

#[test]
fn auto_policy() {
    assert_eq!(Solver::Auto.resolve(1000, 500), ResolvedSolver::Dense);
    assert_eq!(Solver::Auto.resolve(1001, 100), ResolvedSolver::Iterative);
    assert_eq!(Solver::Auto.resolve(1001, 101), ResolvedSolver::Dense);
    assert_eq!(Solver::Dense.resolve(5000, 2), ResolvedSolver::Dense);
    assert_eq!(Solver::Iterative.resolve(50, 2), ResolvedSolver::Iterative);
}

/// A slowly decaying spectrum with near-multiple eigenvalues (rbf on a uniform cube)
/// makes the Lanczos solver restart; it still equals the dense solver.
#[test]
fn iterative_solver_with_restarts_matches_dense() {
    let x = uniform_cloud(300, 3, 21);
    let k = 12;
    let base = KernelPca::params()
        .kernel(KernelSpec::rbf(20.0))
        .n_components(k);
    let dense = base.clone().solver(Solver::Dense).fit(&x).expect("dense");
    let it = base.solver(Solver::Iterative).fit(&x).expect("iterative");
    let SolverReport::Lanczos {
        matvecs,
        max_residual,
    } = it.solver()
    else {
        panic!("expected Lanczos, got {:?}", it.solver());
    };
    let eig = it
        .eigenvalues()
        .iter()
        .zip(dense.eigenvalues())
        .map(|(a, b)| (a - b).abs() / b)
        .fold(0.0, nan_max);
    let scores = col_rel_err(it.train_scores(), dense.train_scores(), k);
    eprintln!("restarts: {matvecs} products, residual {max_residual:.1e}, eig {eig:.1e}, scores {scores:.1e}");
    // One cycle is p = max(2k + 16, k + 32) products, plus k to confirm the residuals.
    let p = (2 * k + 16).max(k + 32);
    assert!(matvecs > p + k, "no restart happened ({matvecs} products)");
    assert!(
        eig <= 1e-8 && scores <= 1e-8,
        "eig {eig:e} scores {scores:e}"
    );
}
