//! A model blob linked into the program, 4-byte aligned: [`include_model!`](crate::include_model!).
//!
//! `include_bytes!` gives a `&'static [u8; N]` with the alignment of `u8`, 1:
//! whether [`ModelRef::from_bytes`](crate::ModelRef::from_bytes) accepts it
//! or refuses it with [`Error::Misaligned`](crate::Error::Misaligned) depends
//! on where the linker happens to put it, and can change with an unrelated
//! edit. [`include_model!`](crate::include_model!) puts the same bytes in a static of
//! [`AlignedModel`], whose alignment is 4, so the blob always loads in place.

/// A blob's bytes, 4-byte aligned: the static behind [`include_model!`](crate::include_model!)
/// (`#[repr(C, align(4))]`, the bytes at offset 0). Also usable directly, for
/// bytes from elsewhere: `static M: AlignedModel<N> = AlignedModel(BYTES);`.
#[repr(C, align(4))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlignedModel<const N: usize>(pub [u8; N]);

impl<const N: usize> AlignedModel<N> {
    /// The bytes, 4-byte aligned.
    pub const fn bytes(&self) -> &[u8; N] {
        &self.0
    }
}

/// Includes a model blob (`kpca fit`'s or `kpca export --format blob`'s output)
/// as a `&'static [u8; N]` that is 4-byte aligned, so that
/// [`ModelRef::from_bytes`](crate::ModelRef::from_bytes) reads it in place
/// wherever the linker puts it (a plain `include_bytes!` is aligned to 1 and
/// loads or fails with [`Error::Misaligned`](crate::Error::Misaligned) by
/// chance). The path is relative to the file that calls the macro, as with
/// `include_bytes!`. Usable as a `static`'s value and in a function; through
/// the crate `kpca` it is `kpca::include_model!`.
///
/// ```
/// use kpca_core::{include_model, ModelRef};
///
/// // In a firmware: `static MODEL: &[u8] = kpca_core::include_model!("model.kpca");`
/// static MODEL: &[u8] = include_model!("../../../testdata/format-v3/full_rbf_centred.kpca");
///
/// # fn main() -> Result<(), kpca_core::Error> {
/// assert_eq!(MODEL.as_ptr() as usize % 4, 0);
/// let model = ModelRef::from_bytes(MODEL)?; // validated once, read in place
/// assert_eq!(model.dim(), 8);
/// # Ok(())
/// # }
/// ```
#[macro_export]
macro_rules! include_model {
    ($path:expr $(,)?) => {{
        const KPCA_MODEL_LEN: usize = ::core::include_bytes!($path).len();
        static KPCA_MODEL: $crate::AlignedModel<KPCA_MODEL_LEN> =
            $crate::AlignedModel(*::core::include_bytes!($path));
        KPCA_MODEL.bytes()
    }};
}
