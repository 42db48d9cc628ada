//! The host-side fit of kpca: full and Nyström kernel PCA in f64, folded into
//! the f32 device model of the core crate `kpca` and exported as a blob, C or
//! Rust source.
//!
//! Notation and maths follow DESIGN.md: Kc is the centred kernel matrix, mu_l its
//! eigenvalues (scikit-learn's `eigenvalues_`), u_l the unit eigenvectors with
//! scikit-learn's sign rule, alpha_l = u_l / sqrt(mu_l), y_l(x_j) = sqrt(mu_l) (u_l)_j.
//!
//! # How a fit runs
//!
//! [`KernelPca::params`] builds [`KernelPcaParams`]; [`KernelPcaParams::check`]
//! validates what does not depend on the data ([`ValidKernelPcaParams`]); the fit
//! then runs in one driver: the data checks and the standardisation, the choice
//! between full kernel PCA (with the [`Solver`] asked for, resolved once from n
//! and k into a [`ResolvedSolver`]) and Nyström, the fit's eigen-decomposition,
//! one post-processing step shared by both fits (the positive-eigenvalue check,
//! scikit-learn's sign rule, the training anomaly scores, the explained-variance
//! ratios, the reconstruction-error curve) and the [`FittedKpca`], with its
//! [`FitWarning`]s. Modules, inside the crate: `params` (the builder), `driver`,
//! `full` and `nystrom` (the two fits), `decomposition` (the shared
//! post-processing), `eigen` (dense, tridiagonal and Lanczos eigensolvers),
//! `kernel`, `symprod` and `vexp` (the kernel matrix and its products), `fitted`
//! (the model and the device model), [`export`] (C and Rust sources). The
//! blob every host user holds, [`ModelBlob`], is the crate `kpca-blob`'s.
//!
//! # Linear algebra
//!
//! One crate, faer: the kernel-matrix products, the Householder
//! tridiagonalisation, the self-adjoint eigendecompositions of the small
//! (m x m, and Lanczos' projected) problems and the parallel products, all with
//! rayon. Matrices are column-major buffers viewed through faer's `MatRef` /
//! `MatMut`; the symmetric n x n product of the iterative solver and the rbf
//! exponential are hand-written (`symprod`, `vexp`) because they are the fit's
//! hot loops.
//!
//! ```
//! use kpca_fit::{Dataset, KernelPca, KernelSpec, Nystrom};
//! let rows: Vec<Vec<f64>> = (0..100)
//!     .map(|i| {
//!         let t = i as f64 * 0.0628;
//!         vec![t.cos(), t.sin(), 0.1 * (3.0 * t).sin()]
//!     })
//!     .collect();
//! let data = Dataset::from_rows(rows)?;
//! // Full kernel PCA.
//! let full = KernelPca::params().kernel(KernelSpec::rbf(1.0)).n_components(3).fit(&data)?;
//! assert_eq!(full.eigenvalues().len(), 3);
//! // Nyström kernel PCA on 30 landmarks drawn from seed 7.
//! let ny = KernelPca::params()
//!     .kernel(KernelSpec::rbf(1.0))
//!     .n_components(3)
//!     .nystrom(Nystrom::random(30, 7))
//!     .fit(&data)?;
//! // One eigenvalue convention for both fits (scikit-learn's eigenvalues_).
//! let rel = (ny.eigenvalues()[0] - full.eigenvalues()[0]).abs() / full.eigenvalues()[0];
//! assert!(rel < 0.05);
//! // The device model, as the firmware will run it (f32).
//! let model = ny.to_model()?;
//! let view = model.as_model_ref()?;
//! let mut y = [0.0f32; 3];
//! view.project(&[1.0, 0.0, 0.0], &mut y).map_err(|e| kpca_fit::FitError::Device { what: "project", source: e })?;
//! let exact = ny.transform(&Dataset::new(&[1.0, 0.0, 0.0][..], 3)?)?;
//! assert!((y[0] as f64 - exact[0]).abs() < 1e-3);
//! # Ok::<(), kpca_fit::FitError>(())
//! ```

#![deny(unsafe_code)]

pub mod bound;
mod data;
mod decomposition;
mod device_model;
mod driver;
mod eigen;
mod error;
pub mod export;
mod fitted;
mod full;
mod heads;
pub mod hints;
mod kernel;
mod landmarks;
mod linalg;
mod linear_map;
mod nystrom;
mod nystrom_sums;
mod params;
mod parts;
pub mod precomputed;
pub mod preimage;
mod quantile;
pub mod regression;
mod rng;
mod simd;
pub mod stream;
mod symprod;
mod vexp;
mod warning;

pub use bound::{ErrorEstimate, DEFAULT_BOUND_CONFIDENCE};
pub use data::Dataset;
pub use decomposition::SolverReport;
pub use device_model::DeviceModel;
pub use error::FitError;
pub use export::ExportInfo;
pub use fitted::{FittedKpca, Method};
pub use kernel::{KernelId, KernelSpec, ParamSet};
pub use kpca_blob::{AlignedBytes, ModelBlob};
pub use landmarks::RPC_POOL_PER_LANDMARK;
pub use nystrom_sums::{NystromSolution, NystromSums};
pub use params::{
    KernelPca, KernelPcaParams, LandmarkMethod, Nystrom, ResolvedSolver, Solver,
    ValidKernelPcaParams, AUTO_DENSE_K_FRACTION, AUTO_DENSE_MAX_N, DEFAULT_FALSE_ALARM_RATE,
    DEFAULT_MAX_ITER, DEFAULT_PINV_RTOL, DEFAULT_TOL,
};
pub use precomputed::{PrecomputedKpca, Selection};
pub use preimage::{PreImageMap, DEFAULT_PREIMAGE_ALPHA};
pub use quantile::quantile;
pub use regression::RegressionHead;
pub use rng::{sample_landmarks, SeededRng};
pub use simd::simd_level;
pub use warning::FitWarning;

/// Largest n for full kernel PCA: its n x n f64 kernel matrix is then 18.6 GiB.
/// Beyond it the fit returns [`FitError::TooManyPoints`] (use Nyström).
pub const MAX_FULL_POINTS: usize = 50_000;

/// An eigenvalue counts as positive (a possible component) when it exceeds this
/// times the largest absolute eigenvalue (the convention of the reference fixtures).
/// Components below it would have alpha = u / sqrt(mu) dominated by rounding.
pub const POSITIVE_EIG_REL_TOL: f64 = 1e-10;
