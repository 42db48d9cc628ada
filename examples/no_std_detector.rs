//! A firmware-side anomaly detector on top of `kpca`: `#![no_std]`, no heap, no
//! panic. It is the library half of the examples (the host half,
//! `fit_and_project.rs`, fits the model and runs this code on the host too).
//!
//! A device gets its model in one of two ways, and both end in the same
//! [`kpca::ModelRef`] view:
//!
//! - **in flash, read in place**: the blob written by `kpca fit` (or
//!   `FittedKpca::to_blob`) is linked into the firmware, 4-byte aligned, and
//!   viewed without copying:
//!
//!   ```text
//!   use no_std_detector::Detector;
//!   static MODEL: &[u8] = kpca::include_model!("model.kpca"); // 4-byte aligned
//!   let mut detector = Detector::from_blob(MODEL, 3)?; // alarm after 3 anomalous samples
//!   ```
//!
//! - **in RAM, fixed capacity**: a blob received at run time (radio, serial,
//!   external flash) into a scratch buffer is copied into a
//!   [`kpca::OwnedModel<D, M, K>`] (`D` inputs, up to `M` stored points, `K`
//!   components, all sized at compile time), and the buffer can be reused:
//!
//!   ```text
//!   let owned: kpca::OwnedModel<6, 64, 4> = no_std_detector::copy_to_ram(&buffer)?;
//!   let mut detector = Detector::new(owned.as_model_ref()?, 3)?;
//!   ```
//!
//! Then, for every sensor sample, [`Detector::update`] projects it (the `K`
//! kernel-PCA coordinates), scores it (the feature-space reconstruction error)
//! and raises the alarm when `run` samples in a row score above the model's
//! threshold. Every error is a [`kpca::Error`]; nothing here can panic.
//!
//! Builds for any target the core builds for:
//! `cargo build --release -p kpca-examples --lib --target thumbv7em-none-eabihf`.
#![no_std]
#![deny(missing_docs)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use kpca::{Error, ModelRef, OwnedModel};

/// Bytes with 4-byte alignment, for a model blob in a `static` (the loader
/// reads its floats in place and refuses a misaligned blob with
/// [`Error::Misaligned`]).
#[repr(C, align(4))]
pub struct Aligned<const N: usize>(pub [u8; N]);

/// Copies a blob into an owned model of fixed capacity (no heap): `D` and `K`
/// must be the model's input dimension and number of components
/// ([`Error::PartsLength`] otherwise) and it must have at most `M` stored
/// points ([`Error::Capacity`]). The blob must be 4-byte aligned.
pub fn copy_to_ram<const D: usize, const M: usize, const K: usize>(
    blob: &[u8],
) -> Result<OwnedModel<D, M, K>, Error> {
    let view = ModelRef::from_bytes(blob)?;
    OwnedModel::from_model_ref(&view)
}

/// What one sample gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The anomaly score (feature-space reconstruction error).
    pub score: f32,
    /// The score is above the model's threshold.
    pub anomalous: bool,
    /// `run` anomalous samples in a row, this one included: raise the alarm.
    pub alarm: bool,
}

/// A debounced anomaly alarm over a model view.
pub struct Detector<'m> {
    model: ModelRef<'m>,
    run: u32,
    in_a_row: u32,
}

impl<'m> Detector<'m> {
    /// A detector over a loaded model that has a threshold
    /// ([`Error::ThresholdUnset`] otherwise). `run` (at least 1) anomalous
    /// samples in a row raise the alarm.
    pub fn new(model: ModelRef<'m>, run: u32) -> Result<Self, Error> {
        if model.threshold() <= 0.0 {
            return Err(Error::ThresholdUnset);
        }
        Ok(Detector {
            model,
            run: run.max(1),
            in_a_row: 0,
        })
    }

    /// A detector over a blob read in place (zero copy), for example from flash.
    pub fn from_blob(blob: &'m [u8], run: u32) -> Result<Self, Error> {
        Self::new(ModelRef::from_bytes(blob)?, run)
    }

    /// The model's input dimension.
    pub fn dim(&self) -> usize {
        self.model.dim()
    }

    /// The model's number of components (the length `coords` must have).
    pub fn n_components(&self) -> usize {
        self.model.n_components()
    }

    /// Projects and scores one sample `x` (length [`Detector::dim`]), writing
    /// its coordinates into `coords` (length [`Detector::n_components`]).
    /// On an error nothing is written and the run of anomalous samples is kept.
    pub fn update(&mut self, x: &[f32], coords: &mut [f32]) -> Result<Sample, Error> {
        let score = self.model.project_and_score(x, coords)?;
        let anomalous = score > self.model.threshold();
        self.in_a_row = if anomalous {
            self.in_a_row.saturating_add(1)
        } else {
            0
        };
        Ok(Sample {
            score,
            anomalous,
            alarm: self.in_a_row >= self.run,
        })
    }

    /// Forgets the run of anomalous samples (after the alarm was handled).
    pub fn reset(&mut self) {
        self.in_a_row = 0;
    }
}
