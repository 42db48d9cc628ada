//! Kernel PCA for microcontroller firmware: the `no_std` core.
//!
//! This crate allocates nothing and cannot panic. It holds a fitted kernel PCA
//! model (the stored points, the centring terms and the scaled eigenvectors)
//! and, for each input vector, computes its k kernel-PCA coordinates
//! ([`ModelRef::project`]), its anomaly score, the feature-space
//! reconstruction error ([`ModelRef::anomaly_score`]), and whether that score
//! exceeds the model's calibrated threshold ([`ModelRef::is_anomaly`]).
//!
//! # Quick start
//!
//! A model is fitted on a host (the `kpca` command or the `kpca-fit` crate)
//! and reaches the device as a blob, kept in flash and read in place:
//!
//! ```
//! use kpca_core::{Kernel, ModelParts, ModelRef};
//!
//! # fn main() -> Result<(), kpca_core::Error> {
//! # // A tiny model made here so the example runs; firmware gets the blob from
//! # // `kpca export --format c` or `--format rust` instead.
//! # let points = [0.0f32, 1.0, 1.0, 0.0, -1.0, 0.5];
//! # let norms = [1.0f32, 1.0, 1.25];
//! # let parts = ModelParts {
//! #     kernel: Kernel::Rbf { gamma: 0.5 },
//! #     dim: 2,
//! #     n_components: 2,
//! #     standardize: None,
//! #     points: &points,
//! #     point_sq_norms: &norms,
//! #     a: &[0.5, -0.2, 0.1, 0.4, -0.6, 0.3],
//! #     b: &[0.1, -0.1],
//! #     c: &[0.3, 0.3, 0.3],
//! #     s: 0.5,
//! #     eigenvalues: &[0.9, 0.4],
//! #     threshold: 0.8,
//! #     fit: kpca_core::FitInfo::NOT_RECORDED,
//! #     linear_map: false,
//! # };
//! # #[repr(align(4))]
//! # struct Flash([u8; 256]);
//! # let mut flash = Flash([0; 256]);
//! # let len = ModelRef::from_parts(parts)?.write_to(&mut flash.0)?;
//! # let blob: &[u8] = &flash.0[..len];
//! // `blob`: the model's bytes, 4-byte aligned (in flash on a device).
//! // Validated once (header, CRC-32, sizes, kernel, every value) ...
//! let model = ModelRef::from_bytes(blob)?;
//! // ... then each vector costs one pass over the stored points.
//! let x = [0.2f32, 0.7];
//! let mut y = [0.0f32; 2];
//! let score = model.project_and_score(&x, &mut y)?;
//! let alarm = model.is_anomaly(&x)?;
//! assert_eq!(alarm, score > model.threshold());
//! # Ok(())
//! # }
//! ```
//!
//! In a firmware the blob is usually linked in: [`include_model!`] includes
//! the file 4-byte aligned (a plain `include_bytes!` is aligned to 1, and
//! loads or fails with [`Error::Misaligned`] depending on where the linker
//! puts it):
//!
//! ```
//! static MODEL: &[u8] =
//!     kpca_core::include_model!("../../../testdata/format-v3/full_rbf_centred.kpca");
//! # fn main() -> Result<(), kpca_core::Error> {
//! let model = kpca_core::ModelRef::from_bytes(MODEL)?;
//! # assert_eq!(model.dim(), 8);
//! # Ok(())
//! # }
//! ```
//!
//! # Stack per call
//!
//! Measured on the Cortex-M4F (thumbv7em-none-eabihf, release builds of the
//! C ABI over this crate) for every d = 1..64 at k = 4 and k = 8; the stack
//! does not grow with the model:
//!
//! | build | `kpca_project` ([`ModelRef::project`]) | through the kernel's own entry point (`kpca_rbf_project`, [`single::SingleKernel`]) |
//! |---|---|---|
//! | default (fast) | 812 B | 836 B |
//! | size-first (feature `size`) | 408–416 B | 408–416 B |
//!
//! The sweep, how it was measured and the instruction counts are in
//! `docs/FIRMWARE-SWEEP.md` of the repository (section "Stack, and the
//! size-first build"; `scripts/firmware-sweep.sh` measures it again).
//!
//! # Modules
//!
//! - [`fit_info`]: [`FitInfo`], what a model records of its fit, and the
//!   eigenvalue convention;
//! - [`model`]: [`ModelRef`], the validated borrowed view every projection
//!   runs on, its C layout [`RawModel`], and [`ModelParts`] (a model as slices);
//! - [`owned`]: [`OwnedModel`], a model held by value with fixed capacity,
//!   built point by point or copied on the device;
//! - [`format`]: the versioned blob format (`docs/MODEL_FORMAT.md`): the
//!   [`Header`], the loader and the `no_std` writer;
//! - [`kernel`]: the kernels, with scikit-learn's definitions and names;
//! - [`fastmath`]: the f32 exponential, tanh and sqrt the kernels use, with
//!   their tested error bounds (the same code on host and device);
//! - [`learn`]: learning on the device: a full kernel PCA fit into a
//!   caller's buffers, written as a blob, and the threshold recalibrated
//!   without a refit;
//! - [`crc32`]: the blob's checksum;
//! - [`mod@include`]: [`include_model!`] and [`AlignedModel`], a blob linked
//!   into the program 4-byte aligned;
//! - [`single`]: [`single::SingleKernel`], the entry points of one kernel
//!   (a firmware that uses only them links only that kernel's code);
//! - [`error`]: [`Error`], one code per failure, shared with the C ABI.
//!
//! The C ABI (`include/kpca.h`, `libkpca.a`) is the crate `kpca-capi`; the
//! host fit and export are `kpca-fit`; the command is `kpca-cli`.
//!
//! A model reaches the device in one of two forms, both of which become the same
//! borrowed [`ModelRef`] view, so there is one projection code path:
//! - a binary blob in flash ([`ModelRef::from_bytes`], format in `docs/MODEL_FORMAT.md`),
//!   read in place without copying;
//! - an owned fixed-capacity model ([`OwnedModel`]) built or copied on the device.
#![no_std]
#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]
#![deny(unsafe_code)]
// The core and the C ABI must not be able to panic: no unwrap/expect, no
// panicking index, no explicit panic, and every unsafe block justified. Tests
// may use all of these.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[cfg(test)]
extern crate std;

mod codegen;
pub mod crc32;
pub mod error;
pub mod fastmath;
pub mod fit_info;
pub mod format;
pub mod heads;
pub mod include;
pub mod kernel;
pub mod learn;
pub mod model;
pub mod owned;
mod project;
pub mod single;

pub use error::Error;
pub use fit_info::{FitInfo, FitMethod};
pub use format::Header;
pub use heads::{Heads, PreImageParts, RegressionParts};
pub use include::AlignedModel;
pub use kernel::{Kernel, KernelId, ParamSet};
pub use model::{
    ModelParts, ModelRef, RawModel, FRONT_END_NONE, LOADED_MAGIC, MAX_COMPONENTS, MAX_DEGREE,
    MAX_DIM, MAX_POINTS, MAX_TARGETS, PRECISION_F32, PRECISION_Q15,
};
pub use owned::OwnedModel;
