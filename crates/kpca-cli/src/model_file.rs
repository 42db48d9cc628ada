//! A model file: read once, validated once, held as a [`ModelBlob`].

use crate::error::{CliError, CliResult};
use crate::table::Source;
use kpca_core::ModelRef;
use kpca_fit::ModelBlob;
use std::path::Path;

/// A validated model blob (aligned, with its view) and the name of the file
/// it came from. Reading the file is its one copy to aligned memory and its
/// one full check; [`ModelFile::model`] is O(1) afterwards.
pub struct ModelFile {
    blob: ModelBlob,
    /// The file name, for messages.
    pub name: String,
}

impl ModelFile {
    /// Reads and validates the file, or standard input for `-`.
    pub fn read(path: &Path) -> CliResult<ModelFile> {
        let source = Source::from_arg(path);
        let bytes = source.read_all()?;
        ModelFile::from_bytes(&bytes, source.name())
    }

    /// Validates `bytes` (copied once to aligned memory), or a message naming
    /// the file and the core's reason.
    pub fn from_bytes(bytes: &[u8], name: String) -> CliResult<ModelFile> {
        match ModelBlob::from_bytes(bytes) {
            Ok(blob) => Ok(ModelFile { blob, name }),
            Err(e) => Err(invalid_model(&name, e)),
        }
    }

    /// A blob that is already validated (a fit's [`kpca_fit::FittedKpca::to_blob`]).
    pub fn from_blob(blob: ModelBlob, name: String) -> ModelFile {
        ModelFile { blob, name }
    }

    /// The blob's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.blob.as_bytes()
    }

    /// The validated blob.
    pub fn blob(&self) -> &ModelBlob {
        &self.blob
    }

    /// The model (O(1): validated when the file was read).
    pub fn model(&self) -> &ModelRef<'_> {
        self.blob.model()
    }
}

/// The message for a blob the core refuses: the file, the reason, the status.
pub fn invalid_model(name: &str, e: kpca_core::Error) -> CliError {
    CliError::input(format!(
        "{name}: not a valid kpca model: {e} (kpca status {} {:?})",
        e.code(),
        e
    ))
}
