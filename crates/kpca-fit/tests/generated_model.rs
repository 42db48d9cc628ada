//! The generated model of the C and Rust exports (`c_source`'s
//! `const kpca_model NAME_model`, `rust_source`'s `static NAME_MODEL`): the
//! same outputs as the blob route, bit for bit, and the C file's
//! compile-time checks fail on a hand-edited copy, naming the check.

mod support;

use kpca_fit::export;
use kpca_fit::{Dataset, FittedKpca, KernelPca, ModelBlob, Nystrom};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use support::*;

/// Two models that between them fill every section of the record: Nyström
/// with standardised inputs and no optional sections, and a full fit with a
/// pre-image map and a regression head of 2 targets.
fn models() -> Vec<(&'static str, FittedKpca)> {
    let fx = load("full_sensor_rbf.json");
    let x = dataset(&fx["x_train"]);
    let standardised = KernelPca::params()
        .kernel(kernel_of(&fx))
        .n_components(4)
        .standardize(true)
        .nystrom(Nystrom::random(32, 5))
        .fit(&x)
        .expect("fit");
    let mut heads = KernelPca::params()
        .kernel(kernel_of(&fx))
        .n_components(3)
        .fit(&x)
        .expect("fit");
    heads.fit_inverse_transform(0.1).expect("pre-image map");
    let (rows, d) = (x.n_rows(), x.n_features());
    let (xs, _) = mat(&fx["x_train"]);
    let targets: Vec<f64> = (0..rows)
        .flat_map(|i| [xs[i * d] + 0.5 * xs[i * d + 1], xs[i * d + 2] - xs[i * d]])
        .collect();
    heads
        .fit_regression(&Dataset::new(targets, 2).expect("targets"))
        .expect("regression head");
    vec![("sensor_std", standardised), ("sensor_heads", heads)]
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `libkpca.a` for the host, built once (release profile: panic = abort),
/// in the directory the C-ABI tests use.
fn host_staticlib() -> &'static PathBuf {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let target = kpca_testkit::target_dir().join("c-tests");
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "kpca-staticlib", "--release", "--quiet"])
            .arg("--target-dir")
            .arg(&target)
            .current_dir(kpca_testkit::repo_root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building libkpca.a failed");
        target.join("release/libkpca.a")
    })
}

/// Test vectors: the fixture's test rows (the first `n`).
fn vectors(n: usize) -> (Vec<f32>, usize) {
    let fx = load("full_sensor_rbf.json");
    let (x, d) = mat(&fx["x_test"]);
    (x.iter().take(n * d).map(|&v| v as f32).collect(), d)
}

/// The C program: loads the blob with `kpca_model_from_bytes`, then runs every
/// entry point on each vector through the loaded model ("blob" lines) and
/// through the generated model ("generated" lines), printing each status and
/// the f32 bits of each output.
fn main_c(name: &str, xs: &[f32]) -> String {
    let upper = name.to_ascii_uppercase();
    let values: Vec<String> = xs.iter().map(|&v| export::c_float(v)).collect();
    format!(
        r#"#include <stdio.h>
#include <string.h>
#include "{name}.h"
static const float xs[] = {{ {values} }};
#define N_VEC (sizeof(xs) / sizeof(xs[0]) / {upper}_DIM)
static void bits(const char *route, const char *what, kpca_status st, const float *v, size_t n) {{
    size_t i;
    printf("%s %s %d", route, what, (int)st);
    for (i = 0; st == KPCA_OK && i < n; i++) {{
        uint32_t u;
        memcpy(&u, &v[i], sizeof u);
        printf(" %08lx", (unsigned long)u);
    }}
    printf("\n");
}}
static void run(const char *route, const kpca_model *m) {{
    size_t i, t = 0;
    (void)kpca_model_n_targets(m, &t);
    for (i = 0; i < N_VEC; i++) {{
        const float *x = &xs[i * {upper}_DIM];
        float y[{upper}_N_COMPONENTS], e = 0.0f, r[{upper}_DIM], p[16];
        bits(route, "project", kpca_project(m, x, {upper}_DIM, y, {upper}_N_COMPONENTS), y, {upper}_N_COMPONENTS);
        bits(route, "kernel_project", {upper}_PROJECT(m, x, {upper}_DIM, y, {upper}_N_COMPONENTS), y, {upper}_N_COMPONENTS);
        bits(route, "score", kpca_anomaly_score(m, x, {upper}_DIM, &e), &e, 1);
        bits(route, "kernel_score", {upper}_ANOMALY_SCORE(m, x, {upper}_DIM, &e), &e, 1);
        bits(route, "reconstruct", kpca_reconstruct(m, x, {upper}_DIM, r, {upper}_DIM), r, {upper}_DIM);
        bits(route, "predict", kpca_predict(m, x, {upper}_DIM, p, 16), p, t);
    }}
}}
int main(void) {{
    kpca_model loaded;
    kpca_status st = kpca_model_from_bytes(&loaded, {name}_blob, {name}_blob_len);
    if (st != KPCA_OK) {{ return 2; }}
    run("blob", &loaded);
    run("generated", &{name}_model);
    return 0;
}}
"#,
        values = values.join(", ")
    )
}

/// Compiles `sources` with the strict C flags of standard `std` (and
/// `extra`), `include/` on the path; returns the compiler's output.
fn cc(std: &str, sources: &[&Path], extra: &[&str], out: &Path) -> std::process::Output {
    Command::new("cc")
        .args(
            kpca_testkit::STRICT_C_FLAGS
                .iter()
                .map(|f| if *f == "-std=c99" { std } else { f }),
        )
        .arg("-I")
        .arg(kpca_testkit::repo_root().join("include"))
        .args(sources)
        .args(extra)
        .arg("-o")
        .arg(out)
        .output()
        .expect("cc runs")
}

/// Writes `name`.h and `name`.c for `blob` into `dir`.
fn write_sources(dir: &Path, blob: &ModelBlob, name: &str, fitted: &FittedKpca) -> PathBuf {
    let (h, c) = export::c_source(blob, name, &fitted.export_info()).expect("export");
    std::fs::write(dir.join(format!("{name}.h")), h).expect("write");
    let c_path = dir.join(format!("{name}.c"));
    std::fs::write(&c_path, c).expect("write");
    c_path
}

#[test]
fn generated_c_model_gives_the_blob_routes_outputs_bit_for_bit() {
    if !kpca_testkit::require_tool(
        "generated_c_model_gives_the_blob_routes_outputs_bit_for_bit",
        "cc",
    ) {
        return;
    }
    let lib = host_staticlib();
    let dir = scratch_dir("generated_model_c");
    for (name, fitted) in models() {
        let blob = fitted.to_blob().expect("blob");
        let model_c = write_sources(&dir, &blob, name, &fitted);
        let (xs, d) = vectors(5);
        let main = dir.join(format!("main_{name}.c"));
        std::fs::write(&main, main_c(name, &xs)).expect("write");
        for std in ["-std=c99", "-std=c11"] {
            let exe = dir.join(format!("main_{name}{std}"));
            let out = cc(std, &[&main, &model_c, lib], &["-lm"], &exe);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{name} {std}: {err}");
            let run = Command::new(&exe).output().expect("runs");
            assert!(run.status.success(), "{name} {std}: {:?}", run.status);
            let text = String::from_utf8_lossy(&run.stdout).into_owned();
            let lines: Vec<&str> = text.lines().collect();
            let blob_lines: Vec<&str> = lines
                .iter()
                .filter_map(|l| l.strip_prefix("blob "))
                .collect();
            let generated: Vec<&str> = lines
                .iter()
                .filter_map(|l| l.strip_prefix("generated "))
                .collect();
            assert_eq!(blob_lines.len(), 5 * 6, "{name}: {text}");
            assert_eq!(generated, blob_lines, "{name} {std}: the routes differ");
            // And both are the core's projection, through the Rust view.
            let model = blob.model();
            let k = model.n_components();
            for (i, x) in xs.chunks(d).enumerate() {
                let mut y = vec![0.0f32; k];
                model.project(x, &mut y).expect("project");
                let want: String = y.iter().map(|v| format!(" {:08x}", v.to_bits())).collect();
                assert_eq!(generated[i * 6], format!("project 0{want}"), "{name}");
            }
            let ok = |what: &str| {
                generated
                    .iter()
                    .filter(|l| l.starts_with(&format!("{what} 0")))
                    .count()
            };
            let heads = name == "sensor_heads";
            assert_eq!(ok("reconstruct"), if heads { 5 } else { 0 }, "{name}");
            assert_eq!(ok("predict"), if heads { 5 } else { 0 }, "{name}");
        }
    }
}

/// Compiles a hand-edited copy of a generated `.c` (object only) under C99
/// and C11; returns both outputs.
fn compile_edited(dir: &Path, tag: &str, c: &str) -> Vec<std::process::Output> {
    let path = dir.join(format!("{tag}.c"));
    std::fs::write(&path, c).expect("write");
    ["-std=c99", "-std=c11"]
        .iter()
        .map(|std| cc(std, &[&path], &["-c"], &dir.join(format!("{tag}.o"))))
        .collect()
}

#[test]
fn a_hand_edited_generated_model_fails_to_compile_naming_the_check() {
    if !kpca_testkit::require_tool(
        "a_hand_edited_generated_model_fails_to_compile_naming_the_check",
        "cc",
    ) {
        return;
    }
    let dir = scratch_dir("generated_model_edited");
    let (name, fitted) = models().swap_remove(1);
    let blob = fitted.to_blob().expect("blob");
    let c_path = write_sources(&dir, &blob, name, &fitted);
    let c = std::fs::read_to_string(&c_path).expect("read");
    // As generated: compiles under both standards.
    for out in compile_edited(&dir, "as_generated", &c) {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // One value removed from an array (the first of its first line).
    let mut edits = Vec::new();
    for field in ["points", "a", "preimage_coef", "reg_intercept"] {
        let open = format!("static const float {name}_{field}[] = {{\n    ");
        let at = c.find(&open).expect("the array") + open.len();
        let comma = at + c[at..].find(", ").or(c[at..].find(",\n")).expect("a value") + 1;
        let edited = format!("{}{}", &c[..at], c[comma..].trim_start_matches(' '));
        edits.push((
            field.to_string(),
            edited,
            format!("{name}_check_{field}_length"),
        ));
    }
    // The format version changed.
    let version = format!(
        "#define SENSOR_HEADS_FORMAT_VERSION {}u",
        kpca_core_version()
    );
    assert!(c.contains(&version), "{version}");
    let edited = c.replace(&version, "#define SENSOR_HEADS_FORMAT_VERSION 5u");
    edits.push((
        "version".into(),
        edited,
        format!("{name}_check_format_version"),
    ));
    for (tag, edited, check) in edits {
        for out in compile_edited(&dir, &format!("edited_{tag}"), &edited) {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{tag}: the edited copy compiled");
            assert!(err.contains(&check), "{tag}: no {check} in:\n{err}");
        }
    }
}

/// The format version the exporter writes.
fn kpca_core_version() -> u16 {
    kpca_core::format::FORMAT_VERSION
}

/// The Rust program: projects and scores each vector through the blob,
/// loaded with `ModelRef::from_bytes`, and through the generated static
/// model, and prints each route's f32 bits; reconstruct and predict too when
/// the model has those sections.
fn main_rs(name: &str, xs: &[f32], d: usize) -> String {
    let upper = name.to_ascii_uppercase();
    let values: Vec<String> = xs.iter().map(|v| format!("{v:?}")).collect();
    format!(
        r#"#![deny(warnings)]
include!("{name}.rs");
const XS: &[f32] = &[{values}];
fn bits(route: &str, what: &str, v: &[f32]) {{
    let b: Vec<String> = v.iter().map(|x| format!("{{:08x}}", x.to_bits())).collect();
    println!("{{route}} {{what}} {{}}", b.join(" "));
}}
fn run(route: &str, m: &kpca::ModelRef<'_>) {{
    for x in XS.chunks({d}) {{
        let mut y = [0.0f32; {upper}_N_COMPONENTS];
        m.project(x, &mut y).expect("project");
        bits(route, "project", &y);
        bits(route, "score", &[m.anomaly_score(x).expect("score")]);
        let mut r = [0.0f32; {upper}_DIM];
        if m.reconstruct(x, &mut r).is_ok() {{ bits(route, "reconstruct", &r); }}
        let mut p = vec![0.0f32; m.n_targets()];
        if m.predict(x, &mut p).is_ok() {{ bits(route, "predict", &p); }}
    }}
}}
fn main() {{
    let loaded = kpca::ModelRef::from_bytes(&{upper}.0).expect("the blob loads");
    run("blob", &loaded);
    run("generated", &{upper}_MODEL);
}}
"#,
        values = values.join(", ")
    )
}

#[test]
fn generated_rust_model_gives_the_blob_routes_outputs_bit_for_bit() {
    if !kpca_testkit::require_tool(
        "generated_rust_model_gives_the_blob_routes_outputs_bit_for_bit",
        "rustc",
    ) {
        return;
    }
    let dir = scratch_dir("generated_model_rust");
    for (name, fitted) in models() {
        let blob = fitted.to_blob().expect("blob");
        let src = export::rust_source(&blob, name).expect("export");
        std::fs::write(dir.join(format!("{name}.rs")), src).expect("write");
        let (xs, d) = vectors(5);
        let main = dir.join(format!("main_{name}.rs"));
        std::fs::write(&main, main_rs(name, &xs, d)).expect("write");
        let exe = dir.join(format!("main_{name}"));
        let out = rustc_with_kpca(&main, &exe);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {err}");
        let run = Command::new(&exe).output().expect("runs");
        assert!(run.status.success(), "{name}: {:?}", run.status);
        let text = String::from_utf8_lossy(&run.stdout).into_owned();
        let route = |r: &str| -> Vec<String> {
            text.lines()
                .filter_map(|l| l.strip_prefix(r).map(str::to_string))
                .collect()
        };
        let (loaded, generated) = (route("blob "), route("generated "));
        let per_vector = if name == "sensor_heads" { 4 } else { 2 };
        assert_eq!(loaded.len(), 5 * per_vector, "{name}: {text}");
        assert_eq!(generated, loaded, "{name}: the routes differ");
    }
}
