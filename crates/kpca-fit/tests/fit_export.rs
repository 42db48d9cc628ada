//! Exported C and Rust sources: they compile with strict flags, the blob is
//! aligned and byte-identical, the macros are right and floats round-trip.

mod support;

use kpca_fit::export::{self, c_float};
use kpca_fit::{FittedKpca, KernelPca, Nystrom};
use std::path::PathBuf;
use std::process::Command;
use support::*;

fn sensor_fit() -> FittedKpca {
    let fx = load("full_sensor_rbf.json");
    KernelPca::params()
        .kernel(kernel_of(&fx))
        .n_components(4)
        .standardize(true)
        .nystrom(Nystrom::random(32, 5))
        .fit(&dataset(&fx["x_train"]))
        .expect("fit")
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

#[test]
fn c_float_literals_round_trip() {
    let values = [
        0.0f32,
        -0.0,
        1.0,
        0.1,
        -2.5,
        1.0 / 3.0,
        0.015625,
        16_777_216.0,
        3.402_823_5e38,
        1e-30,
        1.175_494_4e-38,
        1e-45,
        123_456.79,
    ];
    for v in values {
        let lit = c_float(v);
        assert!(lit.ends_with('f'), "{lit}");
        let body = &lit[..lit.len() - 1];
        assert!(
            body.contains('.') || body.contains('e'),
            "{lit} is not a C float literal"
        );
        let back: f32 = body.parse().expect("parses");
        assert_eq!(back.to_bits(), v.to_bits(), "{v:?} -> {lit}");
    }
}

#[test]
fn c_source_layout_and_macros() {
    let fitted = sensor_fit();
    let blob = fitted.to_blob().expect("blob");
    let (h, c) = export::c_source(&blob, "sensor_model", &fitted.export_info()).expect("export");
    let gamma = fitted.kernel().gamma.expect("rbf gamma") as f32;
    for needle in [
        "#ifndef KPCA_MODEL_SENSOR_MODEL_H".to_string(),
        "#define KPCA_MODEL_SENSOR_MODEL_H".to_string(),
        "#define SENSOR_MODEL_DIM 8u".to_string(),
        "#define SENSOR_MODEL_N_POINTS 32u".to_string(),
        "#define SENSOR_MODEL_N_COMPONENTS 4u".to_string(),
        "#define SENSOR_MODEL_KERNEL \"rbf\"".to_string(),
        format!("#define SENSOR_MODEL_GAMMA {}", c_float(gamma)),
        format!("#define SENSOR_MODEL_BLOB_LEN {}u", blob.len()),
        "extern const uint8_t sensor_model_blob[];".to_string(),
        "extern const size_t sensor_model_blob_len;".to_string(),
        " *   method: nystrom".to_string(),
        " *   seed: 5".to_string(),
        " *   standardize: true".to_string(),
    ] {
        assert!(h.contains(&needle), "header lacks {needle:?}:\n{h}");
    }
    assert!(!h.contains("0x"), "the header must not define the data");
    assert!(c.contains("__attribute__((aligned(4)))"));
    assert!(c.contains("_Alignas(4)"));
    assert!(c.contains("const uint8_t sensor_model_blob[SENSOR_MODEL_BLOB_LEN] = {"));
    // 16 bytes per line, and the bytes are the blob.
    let lines: Vec<&str> = c
        .lines()
        .filter(|l| l.trim_start().starts_with("0x"))
        .collect();
    assert_eq!(lines.len(), blob.len().div_ceil(16));
    let mut bytes = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let items: Vec<&str> = l.trim().trim_end_matches(',').split(", ").collect();
        if i + 1 < lines.len() {
            assert_eq!(items.len(), 16, "line {i}");
        }
        bytes.extend(
            items
                .iter()
                .map(|s| u8::from_str_radix(&s[2..], 16).expect("hex")),
        );
    }
    assert_eq!(bytes, blob.as_bytes());
}

#[test]
fn generated_c_compiles_strictly_and_holds_the_blob() {
    if !kpca_testkit::require_tool("generated_c_compiles_strictly_and_holds_the_blob", "cc") {
        return;
    }
    let fitted = sensor_fit();
    let blob = fitted.to_blob().expect("blob");
    let (h, c) = export::c_source(&blob, "sensor_model", &fitted.export_info()).expect("export");
    let dir = scratch_dir("fit_export_c");
    std::fs::write(dir.join("sensor_model.h"), h).expect("write");
    std::fs::write(dir.join("sensor_model.c"), c).expect("write");
    std::fs::write(
        dir.join("main.c"),
        r#"#include <stdio.h>
#include <string.h>
#include "sensor_model.h"
int main(void) {
    size_t i;
    if (((uintptr_t)sensor_model_blob) % 4u != 0u) { return 2; }
    if (sensor_model_blob_len != SENSOR_MODEL_BLOB_LEN) { return 3; }
    if (strcmp(SENSOR_MODEL_KERNEL, "rbf") != 0) { return 4; }
    if (!(SENSOR_MODEL_GAMMA > 0.0f)) { return 5; }
    for (i = 0; i < sensor_model_blob_len; i++) { printf("%02x", sensor_model_blob[i]); }
    printf("\n%u %u %u\n", (unsigned)SENSOR_MODEL_DIM, (unsigned)SENSOR_MODEL_N_POINTS,
           (unsigned)SENSOR_MODEL_N_COMPONENTS);
    return 0;
}
"#,
    )
    .expect("write");
    let want_hex: String = blob.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    for std in ["-std=c99", "-std=c11"] {
        let exe = dir.join(format!("main{std}"));
        let out = Command::new("cc")
            // The strict flags with this standard in place of C99, and more.
            .args(
                kpca_testkit::STRICT_C_FLAGS
                    .iter()
                    .map(|f| if *f == "-std=c99" { std } else { f }),
            )
            .args([
                "-Wconversion",
                "-Wmissing-declarations",
                "-Wredundant-decls",
            ])
            .arg("-I")
            .arg(kpca_testkit::repo_root().join("include"))
            .arg(dir.join("main.c"))
            .arg(dir.join("sensor_model.c"))
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("cc runs");
        assert!(
            out.status.success(),
            "{std}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run = Command::new(&exe).output().expect("runs");
        assert!(run.status.success(), "{std}: exit {:?}", run.status.code());
        let text = String::from_utf8_lossy(&run.stdout);
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(want_hex.as_str()));
        assert_eq!(lines.next(), Some("8 32 4"));
    }
    // The firmware's compiler, when installed: the object holds the blob in .rodata,
    // 4-byte aligned.
    if kpca_testkit::require_tool(
        "generated_c_compiles_strictly_and_holds_the_blob",
        "arm-none-eabi-gcc",
    ) {
        let obj = dir.join("sensor_model.o");
        let out = Command::new("arm-none-eabi-gcc")
            .args([
                "-std=c99",
                "-mcpu=cortex-m4",
                "-mthumb",
                "-Os",
                "-Wall",
                "-Wextra",
            ])
            .args(["-Wpedantic", "-Werror", "-c", "-I"])
            .arg(kpca_testkit::repo_root().join("include"))
            .arg(dir.join("sensor_model.c"))
            .arg("-o")
            .arg(&obj)
            .output()
            .expect("arm-none-eabi-gcc runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn generated_rust_compiles_and_is_aligned() {
    let fitted = sensor_fit();
    let blob = fitted.to_blob().expect("blob");
    let src = export::rust_source(&blob, "sensor_model").expect("export");
    assert!(src.contains("#[repr(C, align(4))]"));
    assert!(src.contains("pub struct SensorModelBlob(pub [u8; "));
    assert!(src.contains("pub static SENSOR_MODEL: SensorModelBlob"));
    assert!(src.contains("kpca::ModelRef::from_bytes(&SENSOR_MODEL.0)"));
    if !kpca_testkit::require_tool("generated_rust_compiles_and_is_aligned", "rustc") {
        return;
    }
    let dir = scratch_dir("fit_export_rust");
    std::fs::write(dir.join("sensor_model.rs"), &src).expect("write");
    let want_hex: String = blob.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    std::fs::write(
        dir.join("main.rs"),
        r#"#![deny(warnings)]
include!("sensor_model.rs");
fn main() {
    assert_eq!(core::mem::align_of_val(&SENSOR_MODEL), 4);
    assert_eq!((SENSOR_MODEL.0.as_ptr() as usize) % 4, 0);
    let hex: String = SENSOR_MODEL.0.iter().map(|b| format!("{b:02x}")).collect();
    println!("{hex}");
    let y = [0.0f32; SENSOR_MODEL_N_COMPONENTS];
    assert_eq!(SENSOR_MODEL_BLOB_LEN, SENSOR_MODEL.0.len());
    println!(
        "{} {} {} {} {} {} {} {:?} {}",
        SENSOR_MODEL_DIM,
        SENSOR_MODEL_N_POINTS,
        y.len(),
        SENSOR_MODEL_KERNEL,
        SENSOR_MODEL_GAMMA.to_bits(),
        SENSOR_MODEL_DEGREE,
        SENSOR_MODEL_COEF0.to_bits(),
        SENSOR_MODEL_THRESHOLD,
        SENSOR_MODEL_BLOB_LEN
    );
}
"#,
    )
    .expect("write");
    let exe = dir.join("main");
    let out = rustc_with_kpca(&dir.join("main.rs"), &exe);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("runs");
    assert!(run.status.success());
    let stdout = String::from_utf8_lossy(&run.stdout);
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some(want_hex.as_str()));
    // And the blob loads in place with the core, which agrees with the constants.
    let model = blob.model();
    let (gamma, degree, coef0) = model.kernel().params();
    let want_constants = format!(
        "{} {} {} {} {} {} {} {:?} {}",
        model.dim(),
        model.n_points(),
        model.n_components(),
        model.kernel().id().name(),
        gamma.to_bits(),
        degree,
        coef0.to_bits(),
        model.threshold(),
        blob.len()
    );
    assert_eq!(lines.next(), Some(want_constants.as_str()));
    assert_eq!(
        (model.dim(), model.n_points(), model.n_components()),
        (8, 32, 4)
    );
    assert!(model.is_standardized());
}
