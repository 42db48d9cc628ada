//! Loading a model blob from a file into 4-byte-aligned memory.

use crate::error::{CliError, CliResult};
use crate::table::Source;
use kpca_core::ModelRef;
use std::path::Path;

/// The bytes of a model file, held at a 4-byte-aligned address (as the core's
/// zero-copy reader requires) without any unsafe code: the buffer has 3 spare
/// bytes and the blob starts at the first aligned one.
pub struct ModelFile {
    buf: Vec<u8>,
    start: usize,
    len: usize,
    /// The file name, for messages.
    pub name: String,
}

impl ModelFile {
    /// Reads the file, or standard input for `-`.
    pub fn read(path: &Path) -> CliResult<ModelFile> {
        let source = Source::from_arg(path);
        let bytes = source.read_all()?;
        Ok(ModelFile::from_bytes(&bytes, source.name()))
    }

    /// Copies `bytes` into aligned storage.
    pub fn from_bytes(bytes: &[u8], name: String) -> ModelFile {
        let mut buf = vec![0u8; bytes.len() + 3];
        let start = buf.as_ptr().align_offset(4).min(3);
        if let Some(dst) = buf.get_mut(start..start + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
        ModelFile {
            buf,
            start,
            len: bytes.len(),
            name,
        }
    }

    /// The blob.
    pub fn bytes(&self) -> &[u8] {
        self.buf
            .get(self.start..self.start + self.len)
            .unwrap_or(&[])
    }

    /// The validated model, or a message naming the file and the core's reason.
    pub fn model(&self) -> CliResult<ModelRef<'_>> {
        ModelRef::from_bytes(self.bytes()).map_err(|e| {
            CliError::input(format!(
                "{}: not a valid kpca model: {e} (kpca status {} {:?})",
                self.name,
                e.code(),
                e
            ))
        })
    }
}
