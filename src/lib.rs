//! Kernel PCA for microcontroller firmware.
//!
//! This is the crate to add. Without features it is `#![no_std]`, allocates
//! nothing and cannot panic: it re-exports the core ([`kpca_core`]), which
//! holds a fitted model (the stored points or Nyström landmarks, the centring
//! terms and the scaled eigenvectors) and, for each input vector, computes its
//! kernel-PCA coordinates ([`ModelRef::project`]), its anomaly score
//! ([`ModelRef::anomaly_score`]) and whether that score exceeds the model's
//! calibrated threshold ([`ModelRef::is_anomaly`]).
//!
//! With the `std` feature it also brings the host side, re-exported from the
//! part crate `kpca-fit`: the fit (`kpca::fit`: full and Nyström kernel PCA in
//! f64), the export of a model as a blob, C or Rust source (`kpca::export`) and
//! the streamed fit of data larger than memory (`kpca::stream`).
//!
//! ```toml
//! # firmware (no_std, thumbv6m / thumbv7em / riscv32):
//! kpca = "0.1"
//! # host (fit, export):
//! kpca = { version = "0.1", features = ["std"] }
//! ```
//!
//! On the device, a model is validated once and then every call is O(1) in
//! checks:
//!
//! ```
//! # fn main() -> Result<(), kpca::Error> {
//! # let points = [0.0f32, 1.0, 1.0, 0.0, -1.0, 0.5];
//! # let norms = [1.0f32, 1.0, 1.25];
//! # let parts = kpca::ModelParts {
//! #     kernel: kpca::Kernel::Rbf { gamma: 0.5 }, dim: 2, n_components: 2,
//! #     standardize: None, points: &points, point_sq_norms: &norms,
//! #     a: &[0.5, -0.2, 0.1, 0.4, -0.6, 0.3], b: &[0.1, -0.1], c: &[0.3, 0.3, 0.3],
//! #     s: 0.5, eigenvalues: &[0.9, 0.4], threshold: 0.8,
//! #     fit: kpca::FitInfo::NOT_RECORDED, linear_map: false,
//! # };
//! # #[repr(align(4))]
//! # struct Flash([u8; 256]);
//! # let mut flash = Flash([0; 256]);
//! # let len = kpca::ModelRef::from_parts(parts)?.write_to(&mut flash.0)?;
//! # let blob: &[u8] = &flash.0[..len];
//! // `blob`: the model's bytes (from `kpca export`), 4-byte aligned, in flash.
//! let model = kpca::ModelRef::from_bytes(blob)?;
//! let mut y = [0.0f32; 2];
//! let score = model.project_and_score(&[0.2, 0.7], &mut y)?;
//! assert_eq!(model.is_anomaly(&[0.2, 0.7])?, score > model.threshold());
//! # Ok(())
//! # }
//! ```
//!
//! A blob file linked into the firmware goes through [`include_model!`], which
//! keeps it 4-byte aligned (a plain `include_bytes!` is aligned to 1 and loads
//! or fails with [`Error::Misaligned`] depending on where the linker puts it):
//!
//! ```
//! static MODEL: &[u8] = kpca::include_model!("../testdata/format-v3/full_rbf_centred.kpca");
//! # fn main() -> Result<(), kpca::Error> {
//! let model = kpca::ModelRef::from_bytes(MODEL)?;
//! # assert_eq!(model.dim(), 8);
//! # Ok(())
//! # }
//! ```
//!
//! Stack per call on the Cortex-M4F: 820 B for `kpca_project` (844 B through
//! the kernel's own entry point) in the default build, 408 / 416 B with the
//! feature `size`, for every d = 1..64 ([`kpca_core`]'s "Stack per call").
//!
//! The part crates, for those who want one part alone: `kpca-core` (this
//! crate without `std`), `kpca-capi` (the C ABI, `include/kpca.h`),
//! `kpca-fit` (the host fit), `kpca-cli` (the `kpca` command).
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use kpca_core;
/// Includes a model blob 4-byte aligned: [`kpca_core::include_model!`].
pub use kpca_core::include_model;
pub use kpca_core::*;

/// The host fit (feature `std`): full and Nyström kernel PCA in f64, folded
/// into the device model. Everything of the part crate `kpca-fit`.
#[cfg(feature = "std")]
pub mod fit {
    pub use kpca_fit::*;
}

#[cfg(feature = "std")]
pub use kpca_fit::{export, stream};

/// The README's Rust quick starts, compiled and run as doctests of this crate
/// (`cargo test -p kpca --features std --doc`; `cargo test --workspace` turns
/// `std` on through examples/): the firmware block (functions over a blob,
/// compiled) and the host block (a fit of `data/sensor-train.csv`, run from
/// the repository root), which needs the fit. The README's other blocks are
/// marked `sh`, `console`, `python` or `c`, which rustdoc does not run.
#[cfg(all(doctest, feature = "std"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
