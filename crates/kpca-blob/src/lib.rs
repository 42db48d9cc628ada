//! The host's owner of a kpca model blob: [`ModelBlob`], 4-byte-aligned
//! bytes that have been validated once and carry their view, and
//! [`AlignedBytes`], its storage, for bytes that are not (yet) a model.
//! Re-exported by the fit as `kpca_fit::ModelBlob` (and `kpca::fit::ModelBlob`).
//!
//! A [`ModelBlob`] is made in one of two ways only: by the full check of
//! some bytes ([`ModelBlob::from_bytes`], [`ModelBlob::read`]: one copy to
//! aligned memory, one run of the core's loader) or by the core's writer from
//! a model that is already validated ([`ModelBlob::from_model`], behind the
//! fit's `to_blob`: the bytes are written where they stay and not read
//! back). Either way it keeps the core's [`RawModel`] record of its bytes, so
//! [`ModelBlob::model`] is O(1): [`ModelRef::from_raw`], which re-reads
//! nothing. Everything on the host that holds a model holds one of these.
//!
//! The record is the core's; a model of another precision or with further
//! optional sections is described by the record the core's loader and writer
//! make for it, so the owner (bytes plus that record) stays the same.
//!
//! A crate of its own, on the core alone, so that the command line, the
//! tests (Miri included), fuzz and xtask hold blobs without building the fit;
//! not in the core, whose `no_std` static library has no allocator.
//!
//! ```
//! use kpca_blob::ModelBlob;
//! use kpca_core::{FitInfo, Kernel, ModelParts, ModelRef};
//! let view = ModelRef::from_parts(ModelParts {
//!     kernel: Kernel::Linear,
//!     dim: 1,
//!     n_components: 1,
//!     standardize: None,
//!     points: &[1.0],
//!     point_sq_norms: &[1.0],
//!     a: &[0.5],
//!     b: &[0.0],
//!     c: &[1.0],
//!     s: 0.0,
//!     eigenvalues: &[1.0],
//!     threshold: 0.0,
//!     fit: FitInfo::NOT_RECORDED,
//!     linear_map: false,
//! })?;
//! let written = ModelBlob::from_model(&view)?; // validated once (from_parts)
//! let read = ModelBlob::from_bytes(written.as_bytes())?; // once more: new bytes
//! assert_eq!(read.model().dim(), 1); // O(1)
//! # Ok::<(), kpca_core::Error>(())
//! ```

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

use kpca_core::{Error, ModelRef, RawModel};
use std::path::Path;

pub mod source;

/// Bytes at a 4-byte-aligned address (a `Vec<u8>` is aligned only by the
/// allocator's grace, which Miri does not give): `u32` words and a length.
/// Nothing is checked: this is the storage of [`ModelBlob`] and the buffer
/// for bytes that are written or mutated before anything loads them (a
/// device fit's output, hostile and mutated blobs in tests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AlignedBytes {
    words: Vec<u32>,
    len: usize,
}

impl AlignedBytes {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> AlignedBytes {
        AlignedBytes {
            words: vec![0; len.div_ceil(4)],
            len,
        }
    }

    /// A copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> AlignedBytes {
        let mut out = AlignedBytes::zeroed(bytes.len());
        out.as_mut_bytes().copy_from_slice(bytes);
        out
    }

    /// The bytes.
    #[allow(unsafe_code)]
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: the words hold len.div_ceil(4) * 4 >= len initialised bytes,
        // every byte pattern is a valid u8 and u8 has alignment 1.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }

    /// The bytes, to write into.
    #[allow(unsafe_code)]
    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_bytes`, through the exclusive borrow of the words;
        // any byte written leaves every u32 valid.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<u8>(), self.len) }
    }

    /// Keeps the first `len` bytes (no change when `len` is not shorter).
    pub fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.len = len;
            self.words.truncate(len.div_ceil(4));
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::ops::Deref for AlignedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl std::ops::DerefMut for AlignedBytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.as_mut_bytes()
    }
}

impl AsRef<[u8]> for AlignedBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// A model blob in 4-byte-aligned memory that has been validated once, with
/// the core's record of it: the host's counterpart of a blob in flash that
/// the firmware has loaded. Built only by the full check of bytes
/// ([`ModelBlob::from_bytes`], [`ModelBlob::read`], [`ModelBlob::from_aligned`])
/// or by the core's writer from a validated model ([`ModelBlob::from_model`]);
/// its bytes never change afterwards, so [`ModelBlob::model`] is O(1).
pub struct ModelBlob {
    bytes: AlignedBytes,
    /// The record of `bytes`: made by the core's loader or by
    /// [`ModelRef::record_in`] from the writer's model; its pointers point
    /// into the heap buffer of `bytes`, which a move of `self` does not move.
    raw: RawModel,
}

// SAFETY: the record's pointers only point into the heap buffer this value
// owns, which is never written after construction: sending the value sends
// that buffer with it, as for a `Vec<u32>` (and `ModelRef` is Send).
#[allow(unsafe_code)]
unsafe impl Send for ModelBlob {}
// SAFETY: `&ModelBlob` gives only shared reads of the owned buffer (as
// `&Vec<u32>` does, and `ModelRef` is Sync).
#[allow(unsafe_code)]
unsafe impl Sync for ModelBlob {}

impl ModelBlob {
    /// Copies `bytes` to aligned memory and validates them with the core's
    /// loader (every check of [`ModelRef::from_bytes`]: header, length,
    /// CRC-32, sizes, kernel, finiteness, consistency, optional sections).
    pub fn from_bytes(bytes: &[u8]) -> Result<ModelBlob, Error> {
        ModelBlob::from_aligned(AlignedBytes::from_bytes(bytes))
    }

    /// Validates bytes that are already aligned (no copy), as
    /// [`ModelBlob::from_bytes`] does.
    pub fn from_aligned(bytes: AlignedBytes) -> Result<ModelBlob, Error> {
        let mut slot = core::mem::MaybeUninit::uninit();
        let raw = *RawModel::load_into(&mut slot, bytes.as_bytes())?;
        Ok(ModelBlob { bytes, raw })
    }

    /// Reads the file at `path` and validates it ([`ModelBlob::from_bytes`]);
    /// a blob the core refuses is an error of kind
    /// [`std::io::ErrorKind::InvalidData`] wrapping the core's [`Error`].
    pub fn read(path: impl AsRef<Path>) -> std::io::Result<ModelBlob> {
        let bytes = std::fs::read(path)?;
        ModelBlob::from_bytes(&bytes)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// The blob of a validated model, written by the core's writer
    /// ([`ModelRef::write_to`]) into aligned memory where it stays; the
    /// record comes from the model ([`ModelRef::record_in`]), so the bytes
    /// are not read back. Fails only when the blob is too long for the
    /// format ([`Error::DimensionTooLarge`]).
    pub fn from_model(model: &ModelRef<'_>) -> Result<ModelBlob, Error> {
        let mut bytes = AlignedBytes::zeroed(model.blob_len());
        let written = model.write_to(bytes.as_mut_bytes())?;
        bytes.truncate(written);
        let raw = model.record_in(bytes.as_bytes())?;
        Ok(ModelBlob { bytes, raw })
    }

    /// The model: the view of the validated bytes, in O(1) (nothing is read
    /// again).
    #[allow(unsafe_code)]
    pub fn model(&self) -> &ModelRef<'_> {
        // SAFETY: `raw` is the record the core's loader made of `bytes`, or
        // the writer's model's record moved into the `bytes` it wrote
        // (`record_in`); either way it is the record of a valid view of
        // `bytes`, which `self` owns and never changes, and whose heap
        // buffer a move of `self` does not move: the storage is valid and
        // unchanged for the borrow of `self`.
        match unsafe { ModelRef::from_raw(&self.raw) } {
            Ok(model) => model,
            // A validated record passes the marker, size and kernel checks.
            Err(e) => unreachable!("a ModelBlob's record does not load: {e}"),
        }
    }

    /// The blob's bytes (4-byte aligned).
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.as_bytes()
    }

    /// The blob's bytes as their aligned owner (for example to mutate a copy).
    pub fn into_aligned(self) -> AlignedBytes {
        self.bytes
    }

    /// Length of the blob in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Always false: a model blob has at least a header and a CRC.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl Clone for ModelBlob {
    fn clone(&self) -> ModelBlob {
        let bytes = self.bytes.clone();
        match self.model().record_in(bytes.as_bytes()) {
            Ok(raw) => ModelBlob { bytes, raw },
            // The copy has the length of the blob and the words' alignment.
            Err(e) => unreachable!("a copy of a ModelBlob has another layout: {e}"),
        }
    }
}

impl PartialEq for ModelBlob {
    fn eq(&self, other: &ModelBlob) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl std::fmt::Debug for ModelBlob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelBlob")
            .field("len", &self.len())
            .field("model", self.model())
            .finish()
    }
}

impl AsRef<[u8]> for ModelBlob {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small valid model's blob, written by the core.
    fn blob() -> ModelBlob {
        let points = [0.5f32, -0.25, 1.0, 0.75];
        let norms: Vec<f32> = points
            .chunks(2)
            .map(|z| z.iter().map(|v| v * v).sum())
            .collect();
        let view = ModelRef::from_parts(kpca_core::ModelParts {
            kernel: kpca_core::Kernel::Rbf { gamma: 0.5 },
            dim: 2,
            n_components: 1,
            standardize: Some((&[0.1, 0.2], &[2.0, 4.0])),
            points: &points,
            point_sq_norms: &norms,
            a: &[0.3, -0.3],
            b: &[0.01],
            c: &[0.5, 0.5],
            s: 0.2,
            eigenvalues: &[1.5],
            threshold: 0.0,
            fit: kpca_core::FitInfo::NOT_RECORDED,
            linear_map: false,
        })
        .expect("valid parts");
        ModelBlob::from_model(&view).expect("written")
    }

    #[test]
    fn written_and_read_blobs_have_the_same_record_and_bytes() {
        let written = blob();
        let read = ModelBlob::from_bytes(written.as_bytes()).expect("loads");
        let copy = written.clone();
        for other in [&read, &copy] {
            assert_eq!(other.as_bytes(), written.as_bytes());
            let (a, b) = (written.model(), other.model());
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
            let (x, mut ya, mut yb) = ([0.3f32, -0.1], [0.0f32], [0.0f32]);
            assert_eq!(
                a.project_and_score(&x, &mut ya),
                b.project_and_score(&x, &mut yb)
            );
            assert_eq!(ya, yb);
        }
        // Each record points into its own bytes.
        let start = read.as_bytes().as_ptr() as usize;
        let p = read.model().as_raw().points as usize;
        assert!(p > start && p < start + read.len());
        let p = copy.model().as_raw().points as usize;
        let start = copy.as_bytes().as_ptr() as usize;
        assert!(p > start && p < start + copy.len());
    }

    #[test]
    fn bad_bytes_are_refused() {
        let mut bad = blob().into_aligned();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert_eq!(ModelBlob::from_aligned(bad).err(), Some(Error::CrcMismatch));
        assert_eq!(ModelBlob::from_bytes(&[0; 8]).err(), Some(Error::BadMagic));
    }
}
