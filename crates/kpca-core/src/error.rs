//! The one error type of the core, with stable numeric codes shared by the C ABI.

use core::ffi::CStr;
use core::fmt;

/// Everything that can go wrong in the core. The discriminant is the C status
/// code (`kpca_status`); numbers are stable and never reused. New kinds of
/// error may be added in a minor release: match with a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
#[non_exhaustive]
pub enum Error {
    /// A required pointer argument was NULL (C ABI only).
    NullPointer = 1,
    /// The input vector length is not the model's input dimension.
    InputLength = 2,
    /// The output buffer is shorter than the number of components (or rows).
    OutputLength = 3,
    /// An input value is NaN or infinite.
    NonFiniteInput = 4,
    /// The blob is shorter than its header or than the length it declares.
    Truncated = 5,
    /// The blob does not start with the magic bytes `KPCA`.
    BadMagic = 6,
    /// The blob's format version is not one this library reads.
    UnsupportedVersion = 7,
    /// The blob's byte-order mark is wrong, or this target is big-endian.
    ByteOrder = 8,
    /// The CRC-32 stored in the blob does not match its contents.
    CrcMismatch = 9,
    /// The dimensions in the header disagree with the blob's length.
    LengthMismatch = 10,
    /// A dimension (d, m or k) is zero.
    ZeroDimension = 11,
    /// A dimension is past its stated maximum ([`crate::MAX_DIM`] and friends).
    DimensionTooLarge = 12,
    /// The kernel id is not one of the known kernels.
    UnknownKernel = 13,
    /// A kernel parameter is out of range (gamma not finite and > 0, degree 0 or too high).
    BadKernelParameter = 14,
    /// A number stored in the model is NaN or infinite.
    NonFiniteModel = 15,
    /// The blob's address is not aligned to 4 bytes, so its floats cannot be read in place.
    Misaligned = 16,
    /// A header field has a value this version does not define (flags, reserved words, header length).
    BadHeader = 17,
    /// The model struct was never filled by a successful load (C ABI only).
    ModelNotLoaded = 18,
    /// `is_anomaly` was asked of a model whose threshold is unset (0).
    ThresholdUnset = 19,
    /// The model's parts are inconsistent with each other (for example stored norms
    /// that are not the norms of the stored points, or a non-positive inverse std).
    InconsistentModel = 20,
    /// The buffer given to the writer is too small for the blob.
    BufferTooSmall = 21,
    /// The slices given to build a model have lengths that disagree with its dimensions.
    PartsLength = 22,
    /// An owned model's fixed capacity would be exceeded.
    Capacity = 23,
    /// A batch input length is not a whole number of rows.
    BatchLength = 24,
    /// The result is not finite (the kernel overflowed f32 for this input).
    NonFiniteResult = 25,
    /// A single-kernel entry point ([`crate::single::SingleKernel`], `kpca_rbf_project`
    /// and the others) was given a model of another kernel.
    KernelMismatch = 26,
    /// The blob's table of optional sections (format version 4) is malformed:
    /// an unknown or repeated section tag, or a section count out of range.
    BadSection = 27,
    /// `reconstruct` was asked of a model without a pre-image section.
    NoPreImage = 28,
    /// `predict` was asked of a model without a regression head.
    NoRegression = 29,
    /// An on-device fit ([`crate::learn`]) was given fewer than 2 vectors, or a
    /// recalibration none.
    TooFewRows = 30,
    /// An on-device fit asked for k components with k >= n, or with fewer
    /// than k positive eigenvalues of the centred kernel matrix.
    TooManyComponents = 31,
    /// The workspace given to an on-device fit or recalibration is too small.
    WorkspaceTooSmall = 32,
    /// An on-device fit was asked to standardise a feature whose values are
    /// all equal.
    ConstantColumn = 33,
    /// The on-device fit's eigensolver did not converge.
    NoConvergence = 34,
    /// A false-alarm rate is not strictly between 0 and 1.
    BadFalseAlarmRate = 35,
}

impl Error {
    /// Every error, in code order (for tests and for the C status table).
    pub const ALL: [Error; 35] = [
        Error::NullPointer,
        Error::InputLength,
        Error::OutputLength,
        Error::NonFiniteInput,
        Error::Truncated,
        Error::BadMagic,
        Error::UnsupportedVersion,
        Error::ByteOrder,
        Error::CrcMismatch,
        Error::LengthMismatch,
        Error::ZeroDimension,
        Error::DimensionTooLarge,
        Error::UnknownKernel,
        Error::BadKernelParameter,
        Error::NonFiniteModel,
        Error::Misaligned,
        Error::BadHeader,
        Error::ModelNotLoaded,
        Error::ThresholdUnset,
        Error::InconsistentModel,
        Error::BufferTooSmall,
        Error::PartsLength,
        Error::Capacity,
        Error::BatchLength,
        Error::NonFiniteResult,
        Error::KernelMismatch,
        Error::BadSection,
        Error::NoPreImage,
        Error::NoRegression,
        Error::TooFewRows,
        Error::TooManyComponents,
        Error::WorkspaceTooSmall,
        Error::ConstantColumn,
        Error::NoConvergence,
        Error::BadFalseAlarmRate,
    ];

    /// The stable numeric code (the C `kpca_status` value).
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// The error with this code, if any (0 is success, not an error).
    pub fn from_code(code: i32) -> Option<Error> {
        Error::ALL.iter().copied().find(|e| e.code() == code)
    }

    /// A short English description (the text of `kpca_status_str`).
    pub fn message(self) -> &'static str {
        self.c_message().to_str().unwrap_or("")
    }

    /// The description as a NUL-terminated string, for the C ABI.
    pub const fn c_message(self) -> &'static CStr {
        match self {
            Error::NullPointer => c"a required pointer argument is NULL",
            Error::InputLength => c"input length is not the model's input dimension",
            Error::OutputLength => c"output buffer is shorter than required",
            Error::NonFiniteInput => c"input contains NaN or infinity",
            Error::Truncated => c"model blob is truncated",
            Error::BadMagic => c"model blob does not start with the KPCA magic",
            Error::UnsupportedVersion => c"unsupported model format version",
            Error::ByteOrder => c"model byte order is not supported on this target",
            Error::CrcMismatch => c"model blob CRC-32 mismatch",
            Error::LengthMismatch => c"model dimensions disagree with the blob length",
            Error::ZeroDimension => c"a model dimension is zero",
            Error::DimensionTooLarge => c"a model dimension exceeds the supported maximum",
            Error::UnknownKernel => c"unknown kernel id",
            Error::BadKernelParameter => c"kernel parameter out of range",
            Error::NonFiniteModel => c"model contains NaN or infinity",
            Error::Misaligned => c"model blob is not 4-byte aligned",
            Error::BadHeader => c"model header has an undefined field value",
            Error::ModelNotLoaded => c"model was not loaded",
            Error::ThresholdUnset => c"model has no anomaly threshold",
            Error::InconsistentModel => c"model parts are inconsistent",
            Error::BufferTooSmall => c"output buffer too small for the model blob",
            Error::PartsLength => c"model part lengths disagree with its dimensions",
            Error::Capacity => c"fixed model capacity exceeded",
            Error::BatchLength => c"batch length is not a whole number of rows",
            Error::NonFiniteResult => c"result is not finite (kernel overflow)",
            Error::KernelMismatch => c"model's kernel is not the entry point's kernel",
            Error::BadSection => c"model's table of optional sections is malformed",
            Error::NoPreImage => c"model has no pre-image section",
            Error::NoRegression => c"model has no regression head",
            Error::TooFewRows => c"fit needs at least 2 vectors (recalibration at least 1)",
            Error::TooManyComponents => c"more components than positive eigenvalues (or k >= n)",
            Error::WorkspaceTooSmall => c"workspace too small",
            Error::ConstantColumn => c"cannot standardise a constant feature",
            Error::NoConvergence => c"eigensolver did not converge",
            Error::BadFalseAlarmRate => c"false-alarm rate is not strictly between 0 and 1",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl core::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_dense_unique_and_round_trip() {
        for (i, e) in Error::ALL.iter().enumerate() {
            assert_eq!(e.code(), i as i32 + 1);
            assert_eq!(Error::from_code(e.code()), Some(*e));
            assert!(!e.message().is_empty());
        }
        assert_eq!(Error::from_code(0), None);
        assert_eq!(Error::from_code(Error::ALL.len() as i32 + 1), None);
    }
}
