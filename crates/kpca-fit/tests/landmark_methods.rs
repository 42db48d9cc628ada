//! Landmark selection by k-means++ seeding and randomly pivoted Cholesky
//! (`Nystrom::kmeans_pp`, `Nystrom::rp_cholesky`) against uniform sampling.

use kpca_fit::{Dataset, FitError, FittedKpca, KernelPca, KernelSpec, Method, Nystrom};
use kpca_testkit::max_of;

/// One large cluster of `big` points and three small far-away clusters of
/// `small` points each, in 3-D (deterministic).
fn clusters(big: usize, small: usize) -> (Vec<f64>, Vec<usize>) {
    let mut state = 7u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let centres = [
        [0.0, 0.0, 0.0],
        [6.0, 0.0, 0.0],
        [0.0, 6.0, 0.0],
        [0.0, 0.0, 6.0],
    ];
    let mut x = Vec::new();
    let mut label = Vec::new();
    for (c, centre) in centres.iter().enumerate() {
        let count = if c == 0 { big } else { small };
        for _ in 0..count {
            x.extend(centre.iter().map(|v| v + next()));
            label.push(c);
        }
    }
    (x, label)
}

fn fit(x: &[f64], ny: Option<Nystrom>, k: usize) -> FittedKpca {
    let mut p = KernelPca::params()
        .kernel(KernelSpec::rbf(0.5))
        .n_components(k);
    if let Some(ny) = ny {
        p = p.nystrom(ny);
    }
    p.fit(&Dataset::new(x.to_vec(), 3).expect("dataset"))
        .expect("fit")
}

fn landmarks(f: &FittedKpca) -> Vec<usize> {
    match f.method() {
        Method::Nystrom { landmarks, .. } => landmarks.clone(),
        Method::Full => panic!("not a Nystrom fit"),
    }
}

/// Largest relative error of the top eigenvalues against the full fit's; NaN
/// when any eigenvalue of either is NaN.
fn eig_err(f: &FittedKpca, full: &FittedKpca) -> f64 {
    max_of(
        f.eigenvalues()
            .iter()
            .zip(full.eigenvalues())
            .map(|(a, b)| (a - b).abs() / b),
    )
}

#[test]
fn kmeans_pp_and_pivoted_cholesky_find_the_small_clusters_that_uniform_sampling_misses() {
    let (x, label) = clusters(1000, 10);
    let (m, k) = (16, 4);
    let full = fit(&x, None, k);
    let uniform = fit(&x, Some(Nystrom::random(m, 0)), k);
    let covered = |f: &FittedKpca| {
        let mut seen = [false; 4];
        landmarks(f).iter().for_each(|&i| seen[label[i]] = true);
        seen.iter().filter(|&&s| s).count()
    };
    assert!(
        covered(&uniform) < 4,
        "this seed's uniform draw reaches every cluster: pick another"
    );
    let e_uniform = eig_err(&uniform, &full);
    for ny in [Nystrom::kmeans_pp(m, 0), Nystrom::rp_cholesky(m, 0)] {
        let f = fit(&x, Some(ny.clone()), k);
        let lm = landmarks(&f);
        assert_eq!(lm.len(), m);
        assert!(
            lm.windows(2).all(|w| w[0] < w[1]),
            "{ny:?}: sorted and distinct"
        );
        assert_eq!(covered(&f), 4, "{ny:?} misses a cluster");
        let e = eig_err(&f, &full);
        assert!(
            e < e_uniform,
            "{ny:?}: eigenvalue error {e:e} not below uniform's {e_uniform:e}"
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_landmarks_and_another_seed_others() {
    let (x, _) = clusters(300, 5);
    for make in [
        Nystrom::kmeans_pp as fn(usize, u64) -> Nystrom,
        Nystrom::rp_cholesky,
    ] {
        let a = landmarks(&fit(&x, Some(make(12, 3)), 2));
        let b = landmarks(&fit(&x, Some(make(12, 3)), 2));
        let c = landmarks(&fit(&x, Some(make(12, 4)), 2));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}

#[test]
fn every_row_can_be_a_landmark_and_no_more() {
    // Duplicated rows: the residuals and distances reach zero before m.
    let row = [1.0, 2.0, 3.0];
    let mut x: Vec<f64> = row.iter().cycle().take(3 * 8).copied().collect();
    x.extend([4.0, 0.0, 1.0, -2.0, 1.0, 0.5]);
    for ny in [Nystrom::kmeans_pp(10, 1), Nystrom::rp_cholesky(10, 1)] {
        let f = KernelPca::params()
            .kernel(KernelSpec::rbf(0.5))
            .n_components(1)
            .nystrom(ny.clone())
            .fit(&Dataset::new(x.clone(), 3).expect("dataset"));
        // Ten landmarks of which eight are equal: the pseudo-inverses drop
        // the repeated directions, and every row is a landmark.
        let f = f.unwrap_or_else(|e| panic!("{ny:?}: {e}"));
        assert_eq!(landmarks(&f), (0..10).collect::<Vec<_>>(), "{ny:?}");
    }
    for ny in [Nystrom::kmeans_pp(11, 1), Nystrom::rp_cholesky(11, 1)] {
        let err = KernelPca::params()
            .kernel(KernelSpec::rbf(0.5))
            .n_components(1)
            .nystrom(ny)
            .fit(&Dataset::new(x.clone(), 3).expect("dataset"))
            .err();
        assert!(
            matches!(err, Some(FitError::BadLandmarkCount { m: 11, .. })),
            "{err:?}"
        );
    }
}
