//! What the generators share: their random data, the `KERNEL M D K OUT_DIR`
//! arguments and the file writer.

use kpca_core::Kernel;

/// xorshift64, uniform on [-1, 1) (the generators' data; fixed seeds, so the
/// files are the same on every run).
pub(crate) struct Xorshift(pub u64);

impl Xorshift {
    pub fn uniform(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    pub fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| scale * self.uniform()).collect()
    }
}

/// `KERNEL M D K OUT_DIR` of `bench` and `rust-fw`.
pub(crate) struct ShapeArgs<'a> {
    pub kernel_name: &'a str,
    pub kernel: Kernel,
    pub m: usize,
    pub d: usize,
    pub k: usize,
    pub out: &'a std::path::Path,
}

pub(crate) fn shape_args<'a>(kind: &str, args: &'a [String]) -> Result<ShapeArgs<'a>, String> {
    let [kernel_name, m, d, k, out] = args else {
        return Err(format!(
            "usage: cargo xtask gen-model {kind} KERNEL M D K OUT_DIR"
        ));
    };
    let number = |s: &str| -> Result<usize, String> {
        s.parse()
            .map_err(|_| format!("gen-model {kind}: bad number {s:?}"))
    };
    let (m, d, k) = (number(m)?, number(d)?, number(k)?);
    if d == 0 {
        return Err(format!("gen-model {kind}: D must be at least 1"));
    }
    let gamma = 1.0 / d as f32;
    let kernel = match kernel_name.as_str() {
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
        other => return Err(format!("gen-model {kind}: unknown kernel {other:?}")),
    };
    Ok(ShapeArgs {
        kernel_name,
        kernel,
        m,
        d,
        k,
        out: std::path::Path::new(out),
    })
}

pub(crate) fn write(path: &std::path::Path, contents: impl AsRef<[u8]>) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, contents).map_err(|e| format!("{}: {e}", path.display()))
}
