//! Kernel PCA for microcontroller firmware.
//!
//! The core of this crate is `#![no_std]`, allocates nothing and cannot panic:
//! it holds a fitted kernel PCA model (the stored points, the centring terms and
//! the scaled eigenvectors, see [`ModelRef`]) and, for each input vector, computes
//! its k kernel-PCA coordinates ([`ModelRef::project`]) and its feature-space
//! reconstruction error ([`ModelRef::anomaly_score`]).
//!
//! A model reaches the device in one of two forms, both of which become the same
//! borrowed [`ModelRef`] view so there is one projection code path:
//! - a binary blob in flash ([`ModelRef::from_bytes`], format in `docs/MODEL_FORMAT.md`),
//!   read in place without copying;
//! - an owned fixed-capacity model ([`OwnedModel`]) built or copied on the device.
//!
//! The `capi` feature adds the C ABI (`include/kpca.h`); the `std` feature adds
//! the host-side fit and export.
#![no_std]
#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]
#![deny(unsafe_code)]
// The core and the C ABI must not be able to panic: no unwrap/expect, no
// panicking index, no explicit panic, and every unsafe block justified. Tests
// may use all of these; the host-only `cli` module relaxes indexing (see there).
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

pub mod crc32;
pub mod error;
pub mod fastmath;
pub mod format;
pub mod kernel;
pub mod model;
pub mod owned;
mod project;

pub use error::Error;
pub use format::Header;
pub use kernel::{Kernel, KernelId};
pub use model::{
    ModelParts, ModelRef, RawModel, LOADED_MAGIC, MAX_COMPONENTS, MAX_DEGREE, MAX_DIM, MAX_POINTS,
};
pub use owned::OwnedModel;
