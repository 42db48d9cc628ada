//! Shared helpers of the fit tests: fixture loading and error measures.
#![allow(dead_code)]

use kpca_fit::{Dataset, KernelSpec};
use serde_json::Value;
use std::path::PathBuf;

pub fn fixture_dir() -> PathBuf {
    kpca_testkit::fixture_dir()
}

/// Every fixture file whose name starts with `prefix`, sorted, parsed.
pub fn fixtures(prefix: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(fixture_dir())
        .expect("testdata/fixtures exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".json"))
        .collect();
    entries.sort();
    for name in entries {
        let text = std::fs::read_to_string(fixture_dir().join(&name)).expect("readable fixture");
        let v: Value = serde_json::from_str(&text).expect("valid JSON");
        out.push((name, v));
    }
    assert!(!out.is_empty(), "no fixtures {prefix}*");
    out
}

pub fn load(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture_dir().join(name)).expect("readable fixture");
    serde_json::from_str(&text).expect("valid JSON")
}

pub fn vec1(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

/// A list of rows as (row-major values, n_cols).
pub fn mat(v: &Value) -> (Vec<f64>, usize) {
    let rows = v.as_array().expect("array of rows");
    let cols = rows
        .first()
        .and_then(|r| r.as_array())
        .map_or(0, |r| r.len());
    let mut out = Vec::new();
    for r in rows {
        out.extend(vec1(r));
    }
    (out, cols)
}

pub fn dataset(v: &Value) -> Dataset<'static> {
    let (values, d) = mat(v);
    Dataset::new(values, d).expect("valid dataset")
}

pub fn kernel_of(fx: &Value) -> KernelSpec {
    let name = fx["kernel"].as_str().expect("kernel name");
    let mut spec = KernelSpec::from_name(name).expect("known kernel");
    spec.gamma = fx["gamma"].as_f64();
    if let Some(d) = fx.get("degree").and_then(|d| d.as_u64()) {
        spec.degree = d as u32;
    }
    if let Some(c) = fx.get("coef0").and_then(|c| c.as_f64()) {
        spec.coef0 = c;
    }
    spec
}

// The NaN-propagating folds and error measures every test shares (each test
// binary uses some of them).
#[allow(unused_imports)]
pub use kpca_testkit::{col_rel_err, max_of, nan_max, rel_err};

/// Runs `rustc` on `main` (edition 2021) with the crate `kpca` (the core's
/// rlib that this test binary was built with, the newest in its `deps`
/// directory) available, as a firmware over `kpca` has it: the generated
/// Rust names `kpca::ModelRef`.
#[allow(dead_code)]
pub fn rustc_with_kpca(main: &std::path::Path, exe: &std::path::Path) -> std::process::Output {
    let deps = std::env::current_exe()
        .expect("test binary")
        .parent()
        .expect("its directory")
        .to_path_buf();
    let core = std::fs::read_dir(&deps)
        .expect("deps directory")
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("libkpca_core-") && name.ends_with(".rlib")
        })
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
        .expect("libkpca_core-*.rlib next to the test binary")
        .path();
    std::process::Command::new("rustc")
        .args(["--edition", "2021", "-L"])
        .arg(format!("dependency={}", deps.display()))
        .arg("--extern")
        .arg(format!("kpca={}", core.display()))
        .arg("-o")
        .arg(exe)
        .arg(main)
        .output()
        .expect("rustc runs")
}
