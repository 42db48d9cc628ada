//! Writes the models and expected results the C status tests use
//! (c-examples/tests/status_tests.c, built by scripts/c-sanitize.sh).
//!
//! `cargo xtask gen-model c-tests OUT_DIR`
//!
//! Writes OUT_DIR/c_test_models.h and OUT_DIR/c_test_models.c: one valid blob
//! per kernel, a standardised one, one without a threshold, a polynomial one
//! that overflows f32 on large inputs and a tiny one for exhaustive corruption
//! sweeps; for each, four test vectors with the host's f32 coordinates, scores
//! and anomaly flags; and the text of every status code. Blobs are emitted as
//! little-endian 32-bit words, so they are 4-byte aligned in strict C99.

use super::common::{write, Xorshift as Rng};
use kpca_core::{Error, Kernel, ModelParts, ModelRef};
use std::fmt::Write as _;

const N_TEST: usize = 4;

struct Spec {
    name: &'static str,
    kernel: Kernel,
    d: usize,
    m: usize,
    k: usize,
    standardized: bool,
    threshold: f32,
    /// Optional sections: (pre-image rows, regression targets), or none.
    heads: Option<(usize, usize)>,
}

fn floats(s: &mut String, values: &[f32]) {
    s.push('{');
    for (i, v) in values.iter().enumerate() {
        if i % 6 == 0 {
            s.push_str("\n   ");
        }
        let _ = write!(s, " {v:?}f,");
    }
    s.push_str("\n}");
}

/// The models of the C tests: every kernel, with and without standardisation.
const SPECS: &[Spec] = &[
    Spec {
        name: "linear",
        kernel: Kernel::Linear,
        d: 5,
        m: 7,
        k: 3,
        standardized: false,
        threshold: 0.5,
        heads: None,
    },
    Spec {
        name: "poly",
        kernel: Kernel::Polynomial {
            gamma: 0.5,
            degree: 3,
            coef0: 1.0,
        },
        d: 5,
        m: 7,
        k: 3,
        standardized: false,
        threshold: 0.5,
        heads: None,
    },
    Spec {
        name: "rbf",
        kernel: Kernel::Rbf { gamma: 0.25 },
        d: 5,
        m: 9,
        k: 3,
        standardized: false,
        threshold: 0.5,
        heads: None,
    },
    Spec {
        name: "laplacian",
        kernel: Kernel::Laplacian { gamma: 0.3 },
        d: 5,
        m: 6,
        k: 2,
        standardized: false,
        threshold: 0.5,
        heads: None,
    },
    Spec {
        name: "sigmoid",
        kernel: Kernel::Sigmoid {
            gamma: 0.1,
            coef0: 0.2,
        },
        d: 5,
        m: 7,
        k: 4,
        standardized: false,
        threshold: 0.5,
        heads: None,
    },
    Spec {
        name: "cosine",
        kernel: Kernel::Cosine,
        d: 5,
        m: 8,
        k: 3,
        standardized: false,
        threshold: 0.5,
        heads: None,
    },
    Spec {
        name: "rbf_std",
        kernel: Kernel::Rbf { gamma: 0.4 },
        d: 4,
        m: 9,
        k: 3,
        standardized: true,
        threshold: 0.3,
        heads: None,
    },
    Spec {
        name: "no_threshold",
        kernel: Kernel::Rbf { gamma: 0.5 },
        d: 3,
        m: 5,
        k: 2,
        standardized: false,
        threshold: 0.0,
        heads: None,
    },
    Spec {
        name: "poly_overflow",
        kernel: Kernel::Polynomial {
            gamma: 1.0,
            degree: 16,
            coef0: 1.0,
        },
        d: 4,
        m: 5,
        k: 2,
        standardized: false,
        threshold: 0.5,
        heads: None,
    },
    Spec {
        name: "tiny",
        kernel: Kernel::Polynomial {
            gamma: 0.5,
            degree: 2,
            coef0: 1.0,
        },
        d: 3,
        m: 4,
        k: 2,
        standardized: true,
        threshold: 0.5,
        heads: None,
    },
    Spec {
        name: "heads",
        kernel: Kernel::Rbf { gamma: 0.3 },
        d: 4,
        m: 6,
        k: 3,
        standardized: true,
        threshold: 0.5,
        heads: Some((5, 2)),
    },
];

/// One test model's blob and its host results on N_TEST random vectors.
struct Generated {
    blob: Vec<u8>,
    xs: Vec<f32>,
    ys: Vec<f32>,
    es: Vec<f32>,
    flags: [u8; N_TEST],
    /// The host's pre-image (N_TEST x d) and predictions (N_TEST x t) when
    /// the model has sections.
    recons: Vec<f32>,
    preds: Vec<f32>,
}

/// Builds model `i` of the table from a seeded generator, writes its blob and
/// projects the test vectors on the host.
fn generate(i: usize, spec: &Spec) -> Result<Generated, String> {
    let mut g = Rng(0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1).wrapping_mul(0xD134_2543_DE82_EF95));
    let (d, m, k) = (spec.d, spec.m, spec.k);
    let points = g.vec(m * d, 1.2);
    let norms: Vec<f32> = points
        .chunks(d)
        .map(|z| z.iter().map(|v| v * v).sum())
        .collect();
    let mean = g.vec(d, 0.5);
    let inv_std: Vec<f32> = (0..d).map(|_| 0.6 + g.uniform().abs()).collect();
    let a = g.vec(m * k, 0.3);
    let b = g.vec(k, 0.2);
    let cw = vec![1.0 / m as f32; m];
    let eig: Vec<f32> = (0..k).map(|l| (k - l) as f32).collect();
    let view = ModelRef::from_parts(ModelParts {
        kernel: spec.kernel,
        dim: d,
        n_components: k,
        standardize: spec.standardized.then_some((&mean[..], &inv_std[..])),
        points: &points,
        point_sq_norms: &norms,
        a: &a,
        b: &b,
        c: &cw,
        s: 0.4,
        eigenvalues: &eig,
        threshold: spec.threshold,
        fit: kpca_core::FitInfo::NOT_RECORDED,
        linear_map: false,
    })
    .map_err(|e| format!("gen-model c-tests: {}: invalid model: {e:?}", spec.name))?;
    let (n_pre, t) = spec.heads.unwrap_or((0, 0));
    let (pre_scores, pre_coef) = (g.vec(n_pre * k, 0.8), g.vec((n_pre + 1) * d, 1.0));
    let (weights, intercept) = (g.vec(k * t, 1.5), g.vec(t, 2.0));
    let heads = kpca_core::Heads {
        preimage: (n_pre > 0).then_some(kpca_core::PreImageParts {
            scores: &pre_scores,
            coef: &pre_coef,
        }),
        regression: (t > 0).then_some(kpca_core::RegressionParts {
            weights: &weights,
            intercept: &intercept,
        }),
    };
    let view = view
        .with_heads(heads)
        .map_err(|e| format!("gen-model c-tests: {}: invalid sections: {e:?}", spec.name))?;
    let mut blob = vec![0u8; view.blob_len()];
    view.write_to(&mut blob)
        .map_err(|e| format!("gen-model c-tests: {}: writing the blob: {e:?}", spec.name))?;
    let xs = g.vec(N_TEST * d, 1.3);
    let mut ys = vec![0.0f32; N_TEST * k];
    let mut es = vec![0.0f32; N_TEST];
    let mut flags = [0u8; N_TEST];
    for (j, x) in xs.chunks(d).enumerate() {
        es[j] = view
            .project_and_score(x, &mut ys[j * k..(j + 1) * k])
            .map_err(|e| format!("gen-model c-tests: {}: host projection: {e:?}", spec.name))?;
        flags[j] = u8::from(es[j] > spec.threshold);
    }
    let (recons, preds) = section_results(&view, &xs, d, spec.heads)
        .map_err(|e| format!("gen-model c-tests: {}: host sections: {e:?}", spec.name))?;
    Ok(Generated {
        blob,
        xs,
        ys,
        es,
        flags,
        recons,
        preds,
    })
}

/// The host's reconstructions and predictions of the test vectors `xs`.
fn section_results(
    view: &ModelRef<'_>,
    xs: &[f32],
    d: usize,
    heads: Option<(usize, usize)>,
) -> Result<(Vec<f32>, Vec<f32>), Error> {
    let Some((_, t)) = heads else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut recons = vec![0.0f32; N_TEST * d];
    let mut preds = vec![0.0f32; N_TEST * t];
    for (j, x) in xs.chunks(d).enumerate() {
        view.reconstruct(x, &mut recons[j * d..(j + 1) * d])?;
        view.predict(x, &mut preds[j * t..(j + 1) * t])?;
    }
    Ok((recons, preds))
}

/// The C arrays of one model: blob words, inputs and the host's results.
fn emit_arrays(c: &mut String, n: &str, g: &Generated) {
    let _ = write!(
        c,
        "static const uint32_t {n}_words[{}] = {{",
        g.blob.len() / 4
    );
    for (j, w) in g.blob.chunks(4).enumerate() {
        if j % 6 == 0 {
            c.push_str("\n   ");
        }
        let _ = write!(
            *c,
            " 0x{:08x}u,",
            u32::from_le_bytes([w[0], w[1], w[2], w[3]])
        );
    }
    c.push_str("\n};\n");
    let _ = write!(*c, "static const float {n}_xs[{}] = ", g.xs.len());
    floats(c, &g.xs);
    let _ = write!(*c, ";\nstatic const float {n}_ys[{}] = ", g.ys.len());
    floats(c, &g.ys);
    let _ = write!(*c, ";\nstatic const float {n}_scores[{}] = ", g.es.len());
    floats(c, &g.es);
    if !g.recons.is_empty() {
        let _ = write!(
            *c,
            ";\nstatic const float {n}_recons[{}] = ",
            g.recons.len()
        );
        floats(c, &g.recons);
        let _ = write!(*c, ";\nstatic const float {n}_preds[{}] = ", g.preds.len());
        floats(c, &g.preds);
    }
    let _ = writeln!(
        c,
        ";\nstatic const uint8_t {n}_flags[{N_TEST}] = {{ {} }};\n",
        g.flags
            .iter()
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
}

pub fn run(args: &[String]) -> Result<(), String> {
    let [out_dir] = args else {
        return Err("usage: cargo xtask gen-model c-tests OUT_DIR".into());
    };
    let specs = SPECS;
    let mut h = String::from(
        "/* Generated by `cargo xtask gen-model c-tests`; do not edit. */\n\
         #ifndef C_TEST_MODELS_H\n#define C_TEST_MODELS_H\n#include <stddef.h>\n#include <stdint.h>\n\n\
         #define C_TEST_N_VECTORS 4\n\n\
         struct c_test_model {\n\
         \x20   const char *name;\n\
         \x20   const uint32_t *words; /* the blob, 4-byte aligned */\n\
         \x20   size_t blob_len;       /* in bytes */\n\
         \x20   uint32_t kernel;\n\
         \x20   size_t dim, n_points, n_components;\n\
         \x20   int standardized;\n\
         \x20   float threshold;\n\
         \x20   const float *xs;       /* C_TEST_N_VECTORS x dim */\n\
         \x20   const float *ys;       /* C_TEST_N_VECTORS x n_components, the host's f32 results */\n\
         \x20   const float *scores;   /* C_TEST_N_VECTORS */\n\
         \x20   const uint8_t *flags;  /* C_TEST_N_VECTORS, score > threshold */\n\
         \x20   size_t n_targets;      /* regression targets, 0 without a regression head */\n\
         \x20   const float *recons;   /* C_TEST_N_VECTORS x dim pre-images, or NULL */\n\
         \x20   const float *preds;    /* C_TEST_N_VECTORS x n_targets predictions, or NULL */\n\
         };\n\n",
    );
    let mut c = String::from(
        "/* Generated by `cargo xtask gen-model c-tests`; do not edit. */\n#include \"c_test_models.h\"\n\n");
    let mut table = String::from("const struct c_test_model c_test_models[] = {\n");
    for (i, spec) in specs.iter().enumerate() {
        let generated = generate(i, spec)?;
        let (d, m, k) = (spec.d, spec.m, spec.k);
        let n = spec.name;
        emit_arrays(&mut c, spec.name, &generated);
        let blob = &generated.blob;
        let _ = writeln!(
            table,
            "    {{ \"{n}\", {n}_words, {}, {}, {d}, {m}, {k}, {}, {:?}f, {n}_xs, {n}_ys, {n}_scores, {n}_flags, {}, {} }},",
            blob.len(),
            spec.kernel.id() as u32,
            u8::from(spec.standardized),
            spec.threshold,
            spec.heads.map_or(0, |h| h.1),
            if generated.recons.is_empty() {
                "NULL, NULL".to_string()
            } else {
                format!("{n}_recons, {n}_preds")
            }
        );
        let _ = writeln!(h, "#define C_TEST_MODEL_{} {i}", n.to_uppercase());
    }
    table.push_str("};\n");
    c.push_str(&table);
    let _ = writeln!(c, "const size_t c_test_n_models = {};\n", specs.len());
    let n_text = Error::ALL.len() + 1;
    let _ = write!(
        c,
        "const char *const c_test_status_text[{n_text}] = {{\n    \"ok\",\n"
    );
    for e in Error::ALL {
        let _ = writeln!(c, "    \"{}\",", e.message());
    }
    c.push_str("};\n");
    let _ = write!(
        h,
        "\nextern const struct c_test_model c_test_models[];\nextern const size_t c_test_n_models;\n\
         /* kpca_status_str of codes 0..{last}, from the Rust side's messages. */\n\
         extern const char *const c_test_status_text[{n_text}];\n\n#endif\n",
        last = n_text - 1,
    );
    let out = std::path::Path::new(out_dir);
    write(&out.join("c_test_models.h"), h)?;
    write(&out.join("c_test_models.c"), c)
}
