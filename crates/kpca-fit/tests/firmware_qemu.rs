//! The library inside C firmware on the emulated Cortex-M4F: a model fitted on
//! the host (f64) from the sensor fixture (m = 128, d = 8, k = 4, RBF) is
//! exported as C, linked with the thumbv7em-none-eabihf libkpca.a into
//! c-examples/firmware/kpca_fw.c, run under qemu-system-arm -machine mps2-an386
//! (scripts/firmware-run.sh), and its f32 coordinates and scores are compared
//! with the host's f64 results and with scikit-learn's test scores.
//!
//! Needs arm-none-eabi-gcc and qemu-system-arm (scripts/install-firmware-deps.sh,
//! run by the README's test command). Under a plain `cargo test` it prints a
//! `SKIPPED` line when they are missing; under the README's test command
//! (`KPCA_REQUIRE_FIRMWARE_TOOLS=1`) a missing tool is a failure.

mod support;

use kpca_fit::{Dataset, KernelPca, ModelBlob};
use std::path::Path;
use std::process::Command;
use support::{col_rel_err, dataset, kernel_of, load, mat, rel_err};

/// f32 outputs within 1e-5 of each component's scale of the f64 results.
const FIRMWARE_VS_F64_REL_TOL: f64 = 1e-5;

fn read_csv(path: &Path) -> (Vec<f64>, usize) {
    let text = std::fs::read_to_string(path).expect("firmware output");
    let mut values = Vec::new();
    let mut cols = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: Vec<f64> = line
            .split(',')
            .map(|v| v.parse().expect("number"))
            .collect();
        cols = row.len();
        values.extend(row);
    }
    (values, cols)
}

/// Writes `blob` and the rows of `test` (d columns, as f32) into
/// target/firmware-tests/`name` and runs them through the C firmware on QEMU
/// (scripts/firmware-run.sh); returns that directory, which then holds the
/// firmware's outputs.
fn run_firmware(name: &str, blob: &ModelBlob, test: &[f64], d: usize) -> std::path::PathBuf {
    let root = kpca_testkit::repo_root();
    let dir = kpca_testkit::target_dir().join("firmware-tests").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("model.kpca"), blob.as_bytes()).unwrap();
    let csv: String = test
        .chunks(d)
        .map(|r| {
            r.iter()
                .map(|v| format!("{:?}", *v as f32))
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        })
        .collect();
    std::fs::write(dir.join("vectors.csv"), csv).unwrap();
    // From the repository root: the script prints the library's path relative to it.
    let status = Command::new(root.join("scripts/firmware-run.sh"))
        .current_dir(root)
        .arg(dir.join("model.kpca"))
        .arg(dir.join("vectors.csv"))
        .arg(&dir)
        .status()
        .expect("scripts/firmware-run.sh runs (arm-none-eabi-gcc and qemu-system-arm installed?)");
    assert!(status.success(), "firmware run failed: {status}");
    dir
}

#[test]
fn c_firmware_on_the_emulated_cortex_m4f_matches_the_f64_fit() {
    if !kpca_testkit::require_tools(
        "c_firmware_on_the_emulated_cortex_m4f_matches_the_f64_fit",
        &["arm-none-eabi-gcc", "qemu-system-arm"],
    ) {
        return;
    }
    let fx = load("full_sensor_rbf.json");
    let k = fx["n_components"].as_u64().unwrap() as usize;
    let train = dataset(&fx["x_train"]);
    let (test_values, d) = mat(&fx["x_test"]);
    let test = Dataset::new(test_values.clone(), d).unwrap();
    let fitted = KernelPca::params()
        .kernel(kernel_of(&fx))
        .n_components(k)
        .fit(&train)
        .unwrap();
    let (y64, e64) = fitted.transform_and_score(&test).unwrap();

    let dir = run_firmware("sensor_rbf", &fitted.to_blob().unwrap(), &test_values, d);

    let (got, cols) = read_csv(&dir.join("firmware_scores.csv"));
    assert_eq!(cols, k + 1);
    assert_eq!(got.len(), (k + 1) * test.n_rows());
    let y32: Vec<f64> = got.chunks(k + 1).flat_map(|r| r[..k].to_vec()).collect();
    let e32: Vec<f64> = got.chunks(k + 1).map(|r| r[k]).collect();
    let y_err = col_rel_err(&y32, &y64, k);
    let e_err = rel_err(&e32, &e64);
    println!(
        "firmware vs f64: coordinates {y_err:.2e}, scores {e_err:.2e} (relative to column scale)"
    );
    assert!(
        y_err <= FIRMWARE_VS_F64_REL_TOL,
        "coordinates off by {y_err:e}"
    );
    assert!(e_err <= FIRMWARE_VS_F64_REL_TOL, "scores off by {e_err:e}");
    // And the same numbers are scikit-learn's (the fixture's test scores).
    let (sk, _) = mat(&fx["test_scores"]);
    let sk_err = col_rel_err(&y32, &sk, k);
    assert!(
        sk_err <= FIRMWARE_VS_F64_REL_TOL,
        "vs scikit-learn: {sk_err:e}"
    );
}

/// The host's f32 core (`ModelRef::predict` / `reconstruct`) on each row.
fn host_core_heads(blob: &ModelBlob, test: &[f64], d: usize, t: usize) -> (Vec<f64>, Vec<f64>) {
    let model = blob.model();
    let (mut p, mut r) = (Vec::new(), Vec::new());
    let (mut pv, mut rv) = (vec![0.0f32; t], vec![0.0f32; d]);
    for row in test.chunks(d) {
        let x: Vec<f32> = row.iter().map(|&v| v as f32).collect();
        model.predict(&x, &mut pv).expect("predict");
        model.reconstruct(&x, &mut rv).expect("reconstruct");
        p.extend(pv.iter().map(|&v| f64::from(v)));
        r.extend(rv.iter().map(|&v| f64::from(v)));
    }
    (p, r)
}

#[test]
fn c_firmware_predicts_and_reconstructs_as_the_host() {
    if !kpca_testkit::require_tools(
        "c_firmware_predicts_and_reconstructs_as_the_host",
        &["arm-none-eabi-gcc", "qemu-system-arm"],
    ) {
        return;
    }
    let fx = load("seeds_pcr_diabetes.json");
    let k = fx["n_components"].as_u64().unwrap() as usize;
    let train = dataset(&fx["x_train"]);
    let (test_values, d) = mat(&fx["x_test"]);
    let test = Dataset::new(test_values.clone(), d).unwrap();
    let (targets, t) = mat(&fx["targets_train"]);
    let mut fitted = KernelPca::params()
        .kernel(kernel_of(&fx))
        .n_components(k)
        .fit(&train)
        .unwrap();
    fitted
        .fit_regression(&Dataset::new(targets, t).unwrap())
        .unwrap();
    fitted.fit_inverse_transform(1.0).unwrap();
    let blob = fitted.to_blob().unwrap();
    let dir = run_firmware("diabetes_heads", &blob, &test_values, d);
    let (p_fw, pc) = read_csv(&dir.join("firmware_predictions.csv"));
    let (r_fw, rc) = read_csv(&dir.join("firmware_reconstructions.csv"));
    assert_eq!((pc, rc), (t, d));
    let (p_host, r_host) = host_core_heads(&blob, &test_values, d, t);
    let p_err = col_rel_err(&p_fw, &p_host, t);
    let r_err = col_rel_err(&r_fw, &r_host, d);
    println!("firmware vs host f32 core: predictions {p_err:.2e}, pre-images {r_err:.2e}");
    assert!(
        p_err <= FIRMWARE_VS_F64_REL_TOL,
        "predictions off by {p_err:e}"
    );
    assert!(
        r_err <= FIRMWARE_VS_F64_REL_TOL,
        "pre-images off by {r_err:e}"
    );
    let p64 = fitted.predict(&test).unwrap();
    let r64 = fitted.preimage(&test, 0).unwrap();
    let p_err = col_rel_err(&p_fw, &p64, t);
    let r_err = col_rel_err(&r_fw, &r64, d);
    println!("firmware vs f64 fit: predictions {p_err:.2e}, pre-images {r_err:.2e}");
    assert!(
        p_err <= FIRMWARE_VS_F64_REL_TOL,
        "predictions vs f64: {p_err:e}"
    );
    assert!(
        r_err <= FIRMWARE_VS_F64_REL_TOL,
        "pre-images vs f64: {r_err:e}"
    );
    let (want, _) = mat(&fx["full_predictions"]);
    let err = col_rel_err(&p_fw, &want, t);
    assert!(
        err <= FIRMWARE_VS_F64_REL_TOL,
        "vs nystrompca KernelPCR: {err:e}"
    );
}
