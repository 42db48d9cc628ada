//! End to end across the parts, through the crate a user adds (`kpca` with
//! `std`): the host fit (`kpca::fit`) on scikit-learn's fixture data, the blob
//! it writes, the core's projection of that blob (`kpca::ModelRef`), the C ABI
//! over the same bytes (`kpca-capi`), and the C and Rust sources of `kpca::export`.
//! The reference is scikit-learn's KernelPCA (testdata/fixtures, made by
//! scripts/make_fixtures.py), signs included.

use kpca::fit::ModelBlob;
use kpca::fit::{Dataset, FittedKpca, KernelPca, KernelSpec};
use kpca_capi::{kpca_model, kpca_model_from_bytes, kpca_project_and_score, KPCA_OK};
use kpca_testkit::{col_rel_err, fixture_dir, rel_err};
use serde_json::Value;

/// Out-of-sample coordinates of the f32 device path against scikit-learn's,
/// relative to each column's largest magnitude.
const COORD_REL_TOL: f64 = 1e-3;
/// Device anomaly scores against the f64 fit's, relative to the largest score.
const SCORE_REL_TOL: f64 = 1e-3;

fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture_dir().join(name)).expect("readable fixture");
    serde_json::from_str(&text).expect("valid JSON")
}

/// A matrix of the fixture as (row-major values, columns).
fn matrix(v: &Value) -> (Vec<f64>, usize) {
    let rows = v.as_array().expect("rows");
    let d = rows[0].as_array().expect("row").len();
    let values = rows
        .iter()
        .flat_map(|r| r.as_array().expect("row").iter())
        .map(|x| x.as_f64().expect("number"))
        .collect();
    (values, d)
}

fn flat(v: &Value) -> Vec<f64> {
    matrix(v).0
}

/// The device's coordinates and scores of every row, through the C ABI.
fn through_c_abi(blob: &ModelBlob, x: &[f32], d: usize, k: usize) -> (Vec<f64>, Vec<f64>) {
    let blob = blob.as_bytes();
    let mut model = std::mem::MaybeUninit::<kpca_model>::zeroed();
    // SAFETY: `model` is writable storage for one kpca_model; `blob` holds
    // blob.len() readable bytes, 4-byte aligned, and outlives every call below.
    let st = unsafe { kpca_model_from_bytes(model.as_mut_ptr(), blob.as_ptr(), blob.len()) };
    assert_eq!(st, KPCA_OK, "kpca_model_from_bytes: {st}");
    // SAFETY: filled by the successful call above.
    let model = unsafe { model.assume_init() };
    let (mut ys, mut es) = (Vec::new(), Vec::new());
    for row in x.chunks(d) {
        let (mut y, mut e) = (vec![0.0f32; k], 0.0f32);
        // SAFETY: `row` holds d floats, `y` k, `e` one; `model` was loaded above.
        let st =
            unsafe { kpca_project_and_score(&model, row.as_ptr(), d, y.as_mut_ptr(), k, &mut e) };
        assert_eq!(st, KPCA_OK, "kpca_project_and_score: {st}");
        ys.extend(y.iter().map(|&v| f64::from(v)));
        es.push(f64::from(e));
    }
    (ys, es)
}

/// The host fit of an rbf fixture with its gamma and k: (fit, d, k).
fn fit_rbf(fx: &Value) -> (FittedKpca, usize, usize) {
    let k = fx["n_components"].as_u64().expect("k") as usize;
    let (train, d) = matrix(&fx["x_train"]);
    let fitted = KernelPca::params()
        .kernel(KernelSpec::rbf(fx["gamma"].as_f64().expect("gamma")))
        .n_components(k)
        .fit(&Dataset::new(train, d).expect("dataset"))
        .expect("host fit");
    (fitted, d, k)
}

#[test]
fn host_fit_blob_core_and_c_abi_agree_with_scikit_learn() {
    let fx = fixture("full_sensor_rbf.json");
    let (fitted, d, k) = fit_rbf(&fx);
    let blob = fitted.to_blob().expect("blob");

    // The core, through the crate a user adds.
    let model = kpca::ModelRef::from_bytes(blob.as_bytes()).expect("the written blob loads");
    assert_eq!((model.dim(), model.n_components()), (d, k));
    let x: Vec<f32> = flat(&fx["x_test"]).iter().map(|&v| v as f32).collect();
    let mut core_y = Vec::new();
    let mut core_e = Vec::new();
    for row in x.chunks(d) {
        let mut y = vec![0.0f32; k];
        let e = model.project_and_score(row, &mut y).expect("project");
        core_y.extend(y);
        core_e.push(e);
    }

    // scikit-learn's transform, signs included.
    let want = flat(&fx["test_scores"]);
    let got: Vec<f64> = core_y.iter().map(|&v| f64::from(v)).collect();
    let err = col_rel_err(&got, &want, k);
    assert!(err <= COORD_REL_TOL, "coordinates vs scikit-learn: {err:e}");

    // The device scores against the f64 fit's own.
    let x64 = flat(&fx["x_test"]);
    let (_, host_e) = fitted
        .transform_and_score(&Dataset::new(x64, d).expect("dataset"))
        .expect("host transform");
    let device_e: Vec<f64> = core_e.iter().map(|&v| f64::from(v)).collect();
    let err = rel_err(&device_e, &host_e);
    assert!(err <= SCORE_REL_TOL, "device vs host scores: {err:e}");

    // The C ABI over the same bytes: bit for bit the core's results.
    let (c_y, c_e) = through_c_abi(&blob, &x, d, k);
    assert_eq!(c_y, got, "C ABI coordinates differ from the core's");
    let core_e64: Vec<f64> = core_e.iter().map(|&v| f64::from(v)).collect();
    assert_eq!(c_e, core_e64, "C ABI scores differ from the core's");
}

#[test]
fn exported_sources_carry_the_same_blob() {
    let fx = fixture("full_circles_rbf.json");
    let (fitted, _, _) = fit_rbf(&fx);
    let blob = fitted.to_blob().expect("blob");
    let (header, c) =
        kpca::export::c_source(&blob, "circles", &fitted.export_info()).expect("C source");
    assert!(header.contains("CIRCLES"), "the header names the model");
    let rust = kpca::export::rust_source(&blob, "circles").expect("Rust source");
    // Every byte of the blob appears, in order, in both sources.
    for (what, src) in [("C", &c), ("Rust", &rust)] {
        let bytes: Vec<u8> = src
            .split(|ch: char| !ch.is_ascii_hexdigit() && ch != 'x')
            .filter_map(|t| t.strip_prefix("0x"))
            .filter(|t| t.len() == 2)
            .map(|t| u8::from_str_radix(t, 16).expect("hex byte"))
            .collect();
        assert_eq!(
            bytes,
            blob.as_bytes(),
            "{what} source does not carry the blob"
        );
    }
}
