//! The f32 device model of shift-invariant kernels (rbf, laplacian) far from
//! the origin: data offset by 10, 100 and 1000 (raw sensor values sit far from
//! zero: ADC counts near 2048, pressures near 101325 Pa). The device's
//! coordinates and anomaly scores against the f64 fit, next to the error that
//! storing the data in f32 alone causes.

mod support;

use kpca_fit::{Dataset, KernelPca, KernelSpec, ModelBlob};
use support::*;

/// Device against the f64 fit: at most this fraction of each output's scale,
/// or twice the error of f32 storage alone where that is larger.
const DEVICE_REL_TOL: f64 = 1e-5;

/// Two noisy concentric circles (radii 0.5 and 1), `n` points, shifted by `offset`.
fn circles(n: usize, offset: f64, seed: u64) -> Vec<f64> {
    let mut g = kpca_testkit::Lcg(seed);
    (0..n)
        .flat_map(|i| {
            let r = if i % 2 == 0 { 0.5 } else { 1.0 };
            let t = std::f64::consts::TAU * (g.next_f32() as f64 + 1.0) / 2.0;
            let noise = 0.05 * g.next_f32() as f64;
            [
                offset + (r + noise) * t.cos(),
                offset + (r + noise) * t.sin(),
            ]
        })
        .collect()
}

fn rounded(values: &[f64]) -> Vec<f64> {
    values.iter().map(|&v| v as f32 as f64).collect()
}

/// (coordinates n x k, anomaly scores) of the f32 device model.
fn device(blob: &ModelBlob, test: &[f64], k: usize) -> (Vec<f64>, Vec<f64>) {
    let model = blob.model();
    let (mut ys, mut es) = (Vec::new(), Vec::new());
    for x in test.chunks_exact(2) {
        let x32 = [x[0] as f32, x[1] as f32];
        let mut y = vec![0.0f32; k];
        let e = model.project_and_score(&x32, &mut y).expect("projects");
        ys.extend(y.iter().map(|&v| f64::from(v)));
        es.push(f64::from(e));
    }
    (ys, es)
}

#[test]
fn shift_invariant_models_keep_f32_accuracy_far_from_the_origin() {
    let k = 4;
    for kernel in [KernelSpec::rbf(5.0), KernelSpec::laplacian(2.0)] {
        for offset in [0.0, 10.0, 100.0, 1000.0] {
            let train = circles(200, offset, 11);
            let test = circles(60, offset, 12);
            let params = KernelPca::params().kernel(kernel).n_components(k);
            let fitted = params
                .fit(&Dataset::new(&train[..], 2).unwrap())
                .expect("fit");
            let test_set = Dataset::new(&test[..], 2).unwrap();
            let (y64, e64) = fitted.transform_and_score(&test_set).expect("f64");
            // f32 storage alone: the f64 fit of the rounded data, on rounded inputs.
            let stored = params
                .fit(&Dataset::new(rounded(&train), 2).unwrap())
                .expect("fit of rounded data");
            let rounded_test = Dataset::new(rounded(&test), 2).unwrap();
            let (ys, es) = stored.transform_and_score(&rounded_test).expect("f64");
            let storage = (col_rel_err(&ys, &y64, k), rel_err(&es, &e64));
            let (yd, ed) = device(&fitted.to_blob().expect("blob"), &test, k);
            let got = (col_rel_err(&yd, &y64, k), rel_err(&ed, &e64));
            let allowed_y = DEVICE_REL_TOL.max(2.0 * storage.0);
            let allowed_e = DEVICE_REL_TOL.max(2.0 * storage.1);
            println!(
                "{kernel:?} offset {offset}: device {:.1e} / {:.1e}, f32 storage alone {:.1e} / {:.1e}",
                got.0, got.1, storage.0, storage.1
            );
            assert!(
                got.0 <= allowed_y,
                "{kernel:?} offset {offset}: coordinates {got:?}, storage {storage:?}"
            );
            assert!(
                got.1 <= allowed_e,
                "{kernel:?} offset {offset}: scores {got:?}, storage {storage:?}"
            );
        }
    }
}
