//! Writes a synthetic, valid kernel PCA model with input standardisation, test
//! inputs and the host's f32 results as binary files for the Rust firmware in
//! `firmware/rust-m4f` (`include_bytes!`), see `scripts/firmware-rust.sh`.
//!
//! `cargo run --example rust_fw_model -- KERNEL M D K OUT_DIR`
//!
//! Writes into OUT_DIR:
//! - `model.kpca`: the model blob (format version 1);
//! - `xs.bin`: the test vectors, N_TEST x D little-endian f32, row-major;
//! - `expected.bin`: per test vector its K coordinates then its anomaly score,
//!   N_TEST x (K + 1) little-endian f32, computed on the host from the blob;
//! - `dims.rs`: the constants `D`, `M`, `K`, `N_TEST` for the firmware (`include!`).
//!
//! KERNEL is one of linear, poly, rbf, laplacian, sigmoid, cosine.

use kpca::{Kernel, ModelParts, ModelRef};

const N_TEST: usize = 16;

/// xorshift64, uniform on [-1, 1).
struct Xorshift(u64);

impl Xorshift {
    fn uniform(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

fn le_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 5 {
        eprintln!("usage: rust_fw_model KERNEL M D K OUT_DIR");
        std::process::exit(2);
    }
    let parse = |i: usize| -> usize {
        args[i].parse().unwrap_or_else(|_| {
            eprintln!("rust_fw_model: bad number {}", args[i]);
            std::process::exit(2)
        })
    };
    let (m, d, k) = (parse(1), parse(2), parse(3));
    let gamma = 1.0 / d as f32;
    let kernel = match args[0].as_str() {
        "linear" => Kernel::Linear,
        "poly" => Kernel::Polynomial {
            gamma,
            degree: 3,
            coef0: 1.0,
        },
        "rbf" => Kernel::Rbf { gamma },
        "laplacian" => Kernel::Laplacian { gamma },
        "sigmoid" => Kernel::Sigmoid { gamma, coef0: 0.0 },
        "cosine" => Kernel::Cosine,
        other => {
            eprintln!("rust_fw_model: unknown kernel {other}");
            std::process::exit(2)
        }
    };

    let mut g = Xorshift(0xD1B5_4A32_D192_ED03);
    // Raw features centred near 10 * u with spreads in [0.5, 2.5).
    let mean: Vec<f32> = (0..d).map(|_| 10.0 * g.uniform()).collect();
    let inv_std: Vec<f32> = (0..d).map(|_| 1.0 / (1.5 + g.uniform())).collect();
    let points: Vec<f32> = (0..m * d).map(|_| g.uniform()).collect();
    let norms: Vec<f32> = points
        .chunks(d)
        .map(|z| z.iter().map(|v| v * v).sum())
        .collect();
    let a: Vec<f32> = (0..m * k).map(|_| 0.1 * g.uniform()).collect();
    let b: Vec<f32> = (0..k).map(|_| 0.05 * g.uniform()).collect();
    let c = vec![1.0 / m as f32; m];
    let eigenvalues: Vec<f32> = (0..k).map(|l| (k - l) as f32).collect();
    let parts = ModelParts {
        kernel,
        dim: d,
        n_components: k,
        standardize: Some((&mean, &inv_std)),
        points: &points,
        point_sq_norms: &norms,
        a: &a,
        b: &b,
        c: &c,
        s: 0.25,
        eigenvalues: &eigenvalues,
        threshold: 0.5,
    };
    let view = ModelRef::from_parts(parts).unwrap_or_else(|e| {
        eprintln!("rust_fw_model: invalid model: {e:?}");
        std::process::exit(1)
    });
    let mut blob = vec![0u8; view.blob_len()];
    view.write_to(&mut blob).expect("write blob");

    // Test vectors in raw units: the standardised value is uniform on [-1, 1),
    // every fourth vector twice as far out.
    let xs: Vec<f32> = (0..N_TEST * d)
        .map(|i| {
            let j = i % d;
            let spread = if (i / d) % 4 == 3 { 2.0 } else { 1.0 };
            mean[j] + spread * g.uniform() / inv_std[j]
        })
        .collect();

    // The host results, through the same blob the firmware embeds, read in place
    // from a 4-byte-aligned copy.
    let mut storage = vec![0u8; blob.len() + 3];
    let offset = storage.as_ptr().align_offset(4);
    let aligned = &mut storage[offset..offset + blob.len()];
    aligned.copy_from_slice(&blob);
    let loaded = ModelRef::from_bytes(aligned).unwrap_or_else(|e| {
        eprintln!("rust_fw_model: blob does not load: {e:?}");
        std::process::exit(1)
    });
    let mut expected = Vec::with_capacity(N_TEST * (k + 1));
    for x in xs.chunks(d) {
        let mut y = vec![0.0f32; k];
        loaded.project(x, &mut y).expect("host projection");
        let e = loaded.anomaly_score(x).expect("host score");
        expected.extend_from_slice(&y);
        expected.push(e);
    }

    let out = std::path::Path::new(&args[4]);
    std::fs::create_dir_all(out).expect("create output directory");
    std::fs::write(out.join("model.kpca"), &blob).expect("write model.kpca");
    std::fs::write(out.join("xs.bin"), le_bytes(&xs)).expect("write xs.bin");
    std::fs::write(out.join("expected.bin"), le_bytes(&expected)).expect("write expected.bin");
    let dims = format!(
        "// Generated by examples/rust_fw_model.rs ({kernel} kernel). Do not edit.\n\
         /// Input dimension.\npub const D: usize = {d};\n\
         /// Stored points.\npub const M: usize = {m};\n\
         /// Components.\npub const K: usize = {k};\n\
         /// Test vectors in xs.bin / expected.bin.\npub const N_TEST: usize = {N_TEST};\n",
        kernel = args[0]
    );
    std::fs::write(out.join("dims.rs"), dims).expect("write dims.rs");
    println!(
        "rust_fw_model: {} kernel, m={m} d={d} k={k}, blob {} bytes, {N_TEST} test vectors -> {}",
        args[0],
        blob.len(),
        out.display()
    );
}
