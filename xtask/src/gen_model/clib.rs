//! Writes a synthetic, valid model with input standardisation, test vectors and
//! their expected results computed independently in f64 (the kernel formulas,
//! not the library), for the C library tests (scripts/clib-test.sh): the host C
//! program `c-examples/host/kpca_project.c` and the firmware
//! `c-examples/firmware/kpca_fw.c`, both built with CMake.
//!
//! `cargo xtask gen-model clib KERNEL M D K OUT_DIR`
//!
//! Writes into OUT_DIR:
//! - `model.kpca`: the blob; `model.h` / `model.c`: the model as C, named as
//!   `kpca export --format c --name model` names it: the blob (`model_blob`,
//!   `model_blob_len`, 4-byte aligned) and the generated model (`const
//!   kpca_model model_model`, by the exporter's generator
//!   `kpca_blob::source::c_model`), with `MODEL_DIM`, `MODEL_N_POINTS`,
//!   `MODEL_N_COMPONENTS`, `MODEL_BLOB_LEN` and the kernel's entry points
//!   `MODEL_PROJECT`, `MODEL_ANOMALY_SCORE`, `MODEL_PROJECT_AND_SCORE`,
//!   `MODEL_IS_ANOMALY`;
//! - `vectors.csv` (with a header line), `vectors.h` / `vectors.c`
//!   (`vectors`, `VECTORS_ROWS`, `VECTORS_DIM`): the test vectors;
//! - `expected.csv`: per vector its K coordinates then its anomaly score, from
//!   the f64 formulas y = b + A'k_x, e = k(x,x) - 2 c'k_x + s - ‖y‖² on the
//!   model's f32 numbers.

use super::common::{shape_args, write, Xorshift};
use kpca_core::{Kernel, ModelParts, ModelRef};
use std::fmt::Write as _;

const N_TEST: usize = 24;

/// The model's numbers (f32, as stored).
struct Numbers {
    mean: Vec<f32>,
    inv_std: Vec<f32>,
    points: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    s: f32,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let shape = shape_args("clib", args)?;
    let (kernel, m, d, k) = (shape.kernel, shape.m, shape.d, shape.k);
    let mut g = Xorshift(0x2545_F491_4F6C_DD1D);
    let n = Numbers {
        mean: (0..d).map(|_| 5.0 * g.uniform()).collect(),
        inv_std: (0..d).map(|_| 1.0 / (1.5 + g.uniform())).collect(),
        points: (0..m * d).map(|_| g.uniform()).collect(),
        a: (0..m * k).map(|_| 0.2 * g.uniform()).collect(),
        b: (0..k).map(|_| 0.05 * g.uniform()).collect(),
        c: (0..m)
            .map(|_| (1.0 + 0.5 * g.uniform()) / m as f32)
            .collect(),
        s: 0.25,
    };
    let blob = blob(kernel, d, k, &n)?;
    let owned = kpca_blob::ModelBlob::from_bytes(&blob)
        .map_err(|e| format!("gen-model clib: reading the blob back: {e:?}"))?;
    // Raw inputs whose standardised values are uniform on [-1.5, 1.5).
    let xs: Vec<f32> = (0..N_TEST * d)
        .map(|i| n.mean[i % d] + 1.5 * g.uniform() / n.inv_std[i % d])
        .collect();
    let mut expected = String::new();
    for x in xs.chunks(d) {
        let (y, e) = reference(kernel, d, k, &n, x);
        let row: Vec<String> = y.iter().chain([&e]).map(|v| format!("{v:e}")).collect();
        expected += &row.join(",");
        expected.push('\n');
    }
    let out = shape.out;
    write(&out.join("model.kpca"), &blob)?;
    write(&out.join("expected.csv"), expected)?;
    write_c(out, &owned, kernel.id().c_name(), &xs, d)?;
    println!(
        "gen-model clib: {} kernel, m={m} d={d} k={k}, blob {} bytes, {N_TEST} test vectors -> {}",
        shape.kernel_name,
        blob.len(),
        out.display()
    );
    Ok(())
}

fn blob(kernel: Kernel, d: usize, k: usize, n: &Numbers) -> Result<Vec<u8>, String> {
    let norms: Vec<f32> = n
        .points
        .chunks(d)
        .map(|z| z.iter().map(|v| v * v).sum())
        .collect();
    let eigenvalues: Vec<f32> = (0..k).map(|l| (k - l) as f32).collect();
    let view = ModelRef::from_parts(ModelParts {
        kernel,
        dim: d,
        n_components: k,
        standardize: Some((&n.mean, &n.inv_std)),
        points: &n.points,
        point_sq_norms: &norms,
        a: &n.a,
        b: &n.b,
        c: &n.c,
        s: n.s,
        eigenvalues: &eigenvalues,
        threshold: 0.9,
        fit: kpca_core::FitInfo::NOT_RECORDED,
        linear_map: false,
    })
    .map_err(|e| format!("gen-model clib: invalid model: {e:?}"))?;
    let mut blob = vec![0u8; view.blob_len()];
    view.write_to(&mut blob)
        .map_err(|e| format!("gen-model clib: writing the blob: {e:?}"))?;
    Ok(blob)
}

/// k(x', z) in f64 from the kernel's definition.
fn kernel_f64(kernel: Kernel, x: &[f64], z: &[f64]) -> f64 {
    let dot: f64 = x.iter().zip(z).map(|(p, q)| p * q).sum();
    let (gamma, degree, coef0) = kernel.params();
    let (gamma, coef0) = (f64::from(gamma), f64::from(coef0));
    match kernel {
        Kernel::Linear => dot,
        Kernel::Polynomial { .. } => (gamma * dot + coef0).powi(degree as i32),
        Kernel::Rbf { .. } => {
            (-gamma * x.iter().zip(z).map(|(p, q)| (p - q).powi(2)).sum::<f64>()).exp()
        }
        Kernel::Laplacian { .. } => {
            (-gamma * x.iter().zip(z).map(|(p, q)| (p - q).abs()).sum::<f64>()).exp()
        }
        Kernel::Sigmoid { .. } => (gamma * dot + coef0).tanh(),
        Kernel::Cosine => {
            let norm = |v: &[f64]| v.iter().map(|a| a * a).sum::<f64>().sqrt();
            let denom = norm(x) * norm(z);
            if denom > 0.0 {
                dot / denom
            } else {
                0.0
            }
        }
    }
}

/// The coordinates and the anomaly score of the raw input `x`, in f64.
fn reference(kernel: Kernel, d: usize, k: usize, n: &Numbers, x: &[f32]) -> (Vec<f64>, f64) {
    let xs: Vec<f64> = (0..d)
        .map(|j| (f64::from(x[j]) - f64::from(n.mean[j])) * f64::from(n.inv_std[j]))
        .collect();
    let kx: Vec<f64> = n
        .points
        .chunks(d)
        .map(|z| {
            let z: Vec<f64> = z.iter().map(|&v| f64::from(v)).collect();
            kernel_f64(kernel, &xs, &z)
        })
        .collect();
    let y: Vec<f64> = (0..k)
        .map(|l| {
            f64::from(n.b[l])
                + kx.iter()
                    .enumerate()
                    .map(|(i, v)| v * f64::from(n.a[i * k + l]))
                    .sum::<f64>()
        })
        .collect();
    let ck: f64 = kx.iter().zip(&n.c).map(|(v, &c)| v * f64::from(c)).sum();
    let kxx = kernel_f64(kernel, &xs, &xs);
    let e = kxx - 2.0 * ck + f64::from(n.s) - y.iter().map(|v| v * v).sum::<f64>();
    (y, e)
}

/// model.h/.c, vectors.h/.c and vectors.csv; `stem` names the kernel's entry
/// points (`kpca_{stem}_project`, ...).
fn write_c(
    out: &std::path::Path,
    owned: &kpca_blob::ModelBlob,
    stem: &str,
    xs: &[f32],
    d: usize,
) -> Result<(), String> {
    let note = "/* Generated by `cargo xtask gen-model clib`. Do not edit. */\n";
    let blob = owned.as_bytes();
    let raw = owned.model().as_raw();
    let header = format!(
        "{note}/* The model in both forms, as `kpca export --format c --name model` writes\n \
         * them: model_model, ready in flash (no loader), and model_blob, for\n \
         * kpca_model_from_bytes. */\n\
         #ifndef MODEL_H\n#define MODEL_H\n#include <stddef.h>\n#include <stdint.h>\n#include \"kpca.h\"\n\
         #define MODEL_DIM {dim}u\n#define MODEL_N_POINTS {m}u\n#define MODEL_N_COMPONENTS {k}u\n\
         #define MODEL_BLOB_LEN {len}u\n\
         #define MODEL_PROJECT kpca_{stem}_project\n#define MODEL_ANOMALY_SCORE kpca_{stem}_anomaly_score\n\
         #define MODEL_PROJECT_AND_SCORE kpca_{stem}_project_and_score\n\
         #define MODEL_IS_ANOMALY kpca_{stem}_is_anomaly\n\
         extern const uint8_t model_blob[];\nextern const size_t model_blob_len;\n\
         extern const kpca_model model_model;\n#endif\n",
        dim = raw.dim,
        m = raw.n_points,
        k = raw.n_components,
        len = blob.len(),
    );
    let mut src = format!(
        "{note}#include \"model.h\"\n__attribute__((aligned(4))) const uint8_t model_blob[{}] = {{\n",
        blob.len()
    );
    for chunk in blob.chunks(16) {
        src += "   ";
        for byte in chunk {
            let _ = write!(src, " 0x{byte:02x},");
        }
        src += "\n";
    }
    let _ = writeln!(src, "}};\nconst size_t model_blob_len = {};", blob.len());
    // The generated model, written by the exporter's own generator.
    src += &kpca_blob::source::c_model(owned, "model", "MODEL");
    let rows = xs.len() / d;
    let vh = format!(
        "{note}#ifndef VECTORS_H\n#define VECTORS_H\n#include <stddef.h>\n\
         #define VECTORS_ROWS {rows}u\n#define VECTORS_DIM {d}u\nextern const float vectors[];\n#endif\n"
    );
    let mut vc = format!(
        "{note}#include \"vectors.h\"\nconst float vectors[VECTORS_ROWS * VECTORS_DIM] = {{\n"
    );
    let header_line: Vec<String> = (1..=d).map(|j| format!("x{j}")).collect();
    let mut csv = header_line.join(",") + "\n";
    for x in xs.chunks(d) {
        vc += "   ";
        for v in x {
            let _ = write!(vc, " {v:?}f,");
        }
        vc += "\n";
        let row: Vec<String> = x.iter().map(|v| format!("{v:?}")).collect();
        csv += &row.join(",");
        csv.push('\n');
    }
    vc += "};\n";
    write(&out.join("model.h"), header)?;
    write(&out.join("model.c"), src)?;
    write(&out.join("vectors.h"), vh)?;
    write(&out.join("vectors.c"), vc)?;
    write(&out.join("vectors.csv"), csv)
}
