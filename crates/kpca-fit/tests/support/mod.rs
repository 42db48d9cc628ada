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

/// The larger of `a` and `b`, NaN when either is NaN. `f64::max` returns the
/// other operand for a NaN, so a fold with it would let a NaN error pass.
pub fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// The largest of `values` (0 for none), NaN when any is NaN.
pub fn max_of(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().fold(0.0, nan_max)
}

/// Max over columns of max_i |got - want| / (max_i |want| of that column); NaN
/// when any entry of either is NaN.
pub fn col_rel_err(got: &[f64], want: &[f64], k: usize) -> f64 {
    assert_eq!(got.len(), want.len(), "shapes differ");
    max_of((0..k).map(|l| {
        let scale = max_of(want.iter().skip(l).step_by(k).map(|v| v.abs()));
        let err = max_of(
            got.iter()
                .zip(want)
                .skip(l)
                .step_by(k)
                .map(|(g, w)| (g - w).abs()),
        );
        err / scale.max(f64::MIN_POSITIVE)
    }))
}

/// max |got - want| / max |want|; NaN when any entry of either is NaN.
pub fn rel_err(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "lengths differ");
    let scale = max_of(want.iter().map(|v| v.abs()));
    let err = max_of(got.iter().zip(want).map(|(g, w)| (g - w).abs()));
    err / scale.max(f64::MIN_POSITIVE)
}
