//! Writes a synthetic, valid kernel PCA model and test inputs as C source, for
//! the firmware cost measurements (scripts/firmware-cost.sh) and link checks
//! (scripts/link-check.sh).
//!
//! `cargo xtask gen-model bench KERNEL M D K OUT_DIR`
//!
//! Writes OUT_DIR/bench_model.h and OUT_DIR/bench_model.c: the blob (aligned,
//! loadable by kpca_model_from_bytes), the same model generated as
//! `const kpca_model bench_model_model` (by the exporter's generator,
//! `kpca_blob::source::c_model`: no loader needed), 16 test vectors, and the host's f32
//! results for them (coordinates, scores, regression predictions and
//! pre-images) so the firmware can check itself.
//! KERNEL is one of linear, poly, rbf, laplacian, sigmoid, cosine. A linear
//! or cosine model of M > K + 1 points is written as the fit writes it, a
//! folded linear map of K + 1 points (kpca_core::format::FLAG_LINEAR_MAP) with M
//! recorded as its training rows.
//!
//! Every model carries both optional sections (kpca_core::heads): a pre-image map
//! over n = M synthetic score vectors (0.5 x uniform, the size of real
//! scores; dual coefficients 0.1 x uniform, offsets 0.1 x uniform) and a
//! regression head of BENCH_T = 2 targets. They are drawn after the core model
//! and the test vectors, so those are the same as without the sections.

use super::common::{shape_args, write, Xorshift};
use kpca_core::{Heads, ModelParts, ModelRef, PreImageParts, RegressionParts};
use std::fmt::Write as _;

const N_TEST: usize = 16;
/// Regression targets of the bench model's regression head.
const N_TARGETS: usize = 2;

fn c_floats(name: &str, values: &[f32]) -> String {
    let mut s = format!("const float {name}[{}] = {{\n", values.len().max(1));
    for chunk in values.chunks(6) {
        s += "   ";
        for v in chunk {
            let _ = write!(s, " {v:?}f,");
        }
        s += "\n";
    }
    s + "};\n"
}

/// The core sections of the synthetic model (stored points, coefficients).
struct Core {
    m: usize,
    points: Vec<f32>,
    norms: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    eigenvalues: Vec<f32>,
    fit: kpca_core::FitInfo,
    linear_map: bool,
}

fn synth_core(g: &mut Xorshift, kernel: kpca_core::Kernel, m: usize, d: usize, k: usize) -> Core {
    let linear_map = matches!(
        kernel,
        kpca_core::Kernel::Linear | kpca_core::Kernel::Cosine
    ) && k + 1 < m;
    let (n_train, m) = (m, if linear_map { k + 1 } else { m });
    let points: Vec<f32> = (0..m * d).map(|_| g.uniform()).collect();
    let norms: Vec<f32> = points
        .chunks(d)
        .map(|z| z.iter().map(|v| v * v).sum())
        .collect();
    let mut a: Vec<f32> = (0..m * k).map(|_| 0.1 * g.uniform()).collect();
    let b: Vec<f32> = (0..k).map(|_| 0.05 * g.uniform()).collect();
    let mut c = vec![1.0 / m as f32; m];
    let eigenvalues: Vec<f32> = (0..k).map(|l| (k - l) as f32).collect();
    let mut fit = kpca_core::FitInfo::NOT_RECORDED;
    if linear_map {
        // The map's shape: A = [diag; 0], c = (0, ..., 0, c_k).
        for (i, row) in a.chunks_mut(k).enumerate() {
            for (l, v) in row.iter_mut().enumerate() {
                *v = if i == l { 1.0 + 0.1 * g.uniform() } else { 0.0 };
            }
        }
        c = (0..m).map(|i| if i == k { 0.5 } else { 0.0 }).collect();
        fit = kpca_core::FitInfo {
            method: kpca_core::FitMethod::Full,
            n_train: n_train as u32,
            total_variance: eigenvalues.iter().sum(),
        };
    }
    Core {
        m,
        points,
        norms,
        a,
        b,
        c,
        eigenvalues,
        fit,
        linear_map,
    }
}

/// The optional sections' data: pre-image scores (n x k) and coefficients
/// ((n + 1) x d, the last row the offsets), regression weights (k x t) and
/// intercepts (t).
struct HeadData {
    scores: Vec<f32>,
    coef: Vec<f32>,
    weights: Vec<f32>,
    intercept: Vec<f32>,
}

fn synth_heads(g: &mut Xorshift, n: usize, d: usize, k: usize) -> HeadData {
    HeadData {
        scores: g.vec(n * k, 0.5),
        coef: g.vec((n + 1) * d, 0.1),
        weights: g.vec(k * N_TARGETS, 1.0),
        intercept: g.vec(N_TARGETS, 0.5),
    }
}

impl HeadData {
    fn heads(&self) -> Heads<'_> {
        Heads {
            preimage: Some(PreImageParts {
                scores: &self.scores,
                coef: &self.coef,
            }),
            regression: Some(RegressionParts {
                weights: &self.weights,
                intercept: &self.intercept,
            }),
        }
    }
}

/// The host's f32 results for the test vectors `xs`: coordinates (N_TEST x k),
/// scores, predictions (N_TEST x t) and pre-images (N_TEST x d).
struct Results {
    ys: Vec<f32>,
    es: Vec<f32>,
    ps: Vec<f32>,
    xhats: Vec<f32>,
}

fn host_results(view: &ModelRef<'_>, xs: &[f32], d: usize, k: usize) -> Result<Results, String> {
    let err = |what: &str, e: kpca_core::Error| format!("gen-model bench: host {what}: {e:?}");
    let mut r = Results {
        ys: vec![0.0; N_TEST * k],
        es: vec![0.0; N_TEST],
        ps: vec![0.0; N_TEST * N_TARGETS],
        xhats: vec![0.0; N_TEST * d],
    };
    for (i, x) in xs.chunks(d).enumerate() {
        r.es[i] = view
            .project_and_score(x, &mut r.ys[i * k..(i + 1) * k])
            .map_err(|e| err("projection", e))?;
        view.predict(x, &mut r.ps[i * N_TARGETS..(i + 1) * N_TARGETS])
            .map_err(|e| err("prediction", e))?;
        view.reconstruct(x, &mut r.xhats[i * d..(i + 1) * d])
            .map_err(|e| err("pre-image", e))?;
    }
    Ok(r)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let shape = shape_args("bench", args)?;
    let (kernel, d, k) = (shape.kernel, shape.d, shape.k);
    let mut g = Xorshift(0x9E37_79B9_7F4A_7C15);
    let core = synth_core(&mut g, kernel, shape.m, d, k);
    let xs: Vec<f32> = (0..N_TEST * d)
        .map(|i| {
            if (i / d) % 4 == 3 {
                2.0 * g.uniform()
            } else {
                g.uniform()
            }
        })
        .collect();
    let heads = synth_heads(&mut g, shape.m, d, k);
    let view = ModelRef::from_parts(ModelParts {
        kernel,
        dim: d,
        n_components: k,
        standardize: None,
        points: &core.points,
        point_sq_norms: &core.norms,
        a: &core.a,
        b: &core.b,
        c: &core.c,
        s: 0.25,
        eigenvalues: &core.eigenvalues,
        threshold: 0.5,
        fit: core.fit,
        linear_map: core.linear_map,
    })
    .and_then(|v| v.with_heads(heads.heads()))
    .map_err(|e| format!("gen-model bench: invalid model: {e:?}"))?;
    let owned = kpca_blob::ModelBlob::from_model(&view)
        .map_err(|e| format!("gen-model bench: writing the blob: {e:?}"))?;
    let blob = owned.as_bytes();
    let r = host_results(&view, &xs, d, k)?;
    let m = core.m;
    let header = format!(
        "/* Generated by `cargo xtask gen-model bench`: synthetic {kernel} model, m={m} d={d} k={k}, \
         pre-image over n={n} score vectors, regression of t={N_TARGETS} targets. */\n\
         #ifndef BENCH_MODEL_H\n#define BENCH_MODEL_H\n#include <stddef.h>\n#include <stdint.h>\n#include \"kpca.h\"\n\
         #define BENCH_M {m}\n#define BENCH_D {d}\n#define BENCH_K {k}\n#define BENCH_N_TEST {N_TEST}\n\
         #define BENCH_T {N_TARGETS}\n#define BENCH_N_PREIMAGE {n}\n\
         #define BENCH_PROJECT kpca_{stem}_project\n#define BENCH_ANOMALY_SCORE kpca_{stem}_anomaly_score\n\
         #define BENCH_PROJECT_AND_SCORE kpca_{stem}_project_and_score\n\
         extern const uint8_t bench_model_blob[];\nextern const size_t bench_model_blob_len;\n\
         /* The same model generated (kpca export --format c): ready, no loader. */\n\
         extern const kpca_model bench_model_model;\n\
         extern const float bench_xs[];\nextern const float bench_expected_y[];\nextern const float bench_expected_e[];\n\
         extern const float bench_expected_p[];\nextern const float bench_expected_xhat[];\n\
         #endif\n",
        kernel = shape.kernel_name,
        n = shape.m,
        stem = kernel.id().c_name(),
    );
    let mut src = String::from("#include \"bench_model.h\"\n");
    let _ = writeln!(
        src,
        "__attribute__((aligned(4))) const uint8_t bench_model_blob[{}] = {{",
        blob.len()
    );
    for chunk in blob.chunks(16) {
        src += "   ";
        for byte in chunk {
            let _ = write!(src, " 0x{byte:02x},");
        }
        src += "\n";
    }
    let _ = writeln!(
        src,
        "}};\nconst size_t bench_model_blob_len = {};",
        blob.len()
    );
    // The generated model, written by the exporter's own generator.
    src += &kpca_blob::source::c_model(&owned, "bench_model", "BENCH_MODEL");
    src += &c_floats("bench_xs", &xs);
    src += &c_floats("bench_expected_y", &r.ys);
    src += &c_floats("bench_expected_e", &r.es);
    src += &c_floats("bench_expected_p", &r.ps);
    src += &c_floats("bench_expected_xhat", &r.xhats);
    write(&shape.out.join("bench_model.h"), header)?;
    write(&shape.out.join("bench_model.c"), src)
}
