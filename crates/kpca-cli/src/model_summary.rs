//! What a device model holds, put into words: its kernel and parameters, the
//! share of each stored eigenvalue, and the parameter list that goes into the
//! comment block of the generated C and Rust sources. Used by `kpca inspect`,
//! `kpca export` and `kpca plot`.

use crate::output::float_text;
use kpca::{Kernel, ModelRef};
use kpca_fit::ExportInfo;

/// The kernel and its parameters, e.g. `rbf (gamma = 0.5)`.
pub fn device_kernel_text(kernel: &Kernel) -> String {
    match *kernel {
        Kernel::Linear | Kernel::Cosine => kernel.id().name().into(),
        Kernel::Rbf { gamma } | Kernel::Laplacian { gamma } => {
            format!("{} (gamma = {})", kernel.id().name(), float_text(gamma))
        }
        Kernel::Polynomial {
            gamma,
            degree,
            coef0,
        } => format!(
            "poly (gamma = {}, degree = {degree}, coef0 = {})",
            float_text(gamma),
            float_text(coef0)
        ),
        Kernel::Sigmoid { gamma, coef0 } => format!(
            "sigmoid (gamma = {}, coef0 = {})",
            float_text(gamma),
            float_text(coef0)
        ),
    }
}

/// Proportion of each stored eigenvalue among the k stored ones.
pub fn explained_among_stored(eigenvalues: &[f32]) -> Vec<f64> {
    let total: f64 = eigenvalues.iter().map(|&v| f64::from(v)).sum();
    eigenvalues
        .iter()
        .map(|&v| {
            if total > 0.0 {
                f64::from(v) / total
            } else {
                0.0
            }
        })
        .collect()
}

/// The comment block of the generated sources, from what the blob holds.
pub fn info_from_model(model: &ModelRef<'_>, source: &str) -> ExportInfo {
    let parts = model.parts();
    let mut p: Vec<(String, String)> = Vec::new();
    p.push(("source".into(), source.into()));
    p.push(("kernel".into(), device_kernel_text(&model.kernel())));
    p.push(("dim".into(), format!("{}", model.dim())));
    p.push(("n_points".into(), format!("{}", model.n_points())));
    p.push(("n_components".into(), format!("{}", model.n_components())));
    p.push(("standardize".into(), format!("{}", model.is_standardized())));
    p.push(("threshold".into(), float_text(model.threshold())));
    let ev: Vec<String> = parts.eigenvalues.iter().map(|&v| float_text(v)).collect();
    p.push(("eigenvalues".into(), ev.join(" ")));
    ExportInfo { parameters: p }
}
