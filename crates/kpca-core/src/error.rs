//! The one error type of the core, with stable numeric codes shared by the C ABI.
//!
//! `status_table!` below is the only place the codes are written: each with
//! its number, its Rust variant, its C constant and its message. The [`Error`]
//! enum, [`Error::ALL`], the conversions from and to the C integer, the
//! messages (the text of `kpca_status_str`) and the C constants all come from
//! it. The C constants reach `include/kpca.h` through
//! `crates/kpca-capi/src/status.rs`, which is generated from this table (by
//! `scripts/gen-header.sh`; kpca-capi's header test fails when it is stale),
//! because cbindgen does not expand macros.

use core::ffi::CStr;
use core::fmt;

/// Writes the status codes out once and derives everything else from them.
///
/// Each entry is its documentation, `Variant = number, C_CONSTANT,` and the
/// message as a C string literal, ending with `;`. Numbers are stable and never
/// reused: a retired code stays in the table as a comment line with its number.
macro_rules! status_table {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $code:literal, $c_name:ident, $message:literal;
    )*) => {
        /// Everything that can go wrong in the core. The discriminant is the C
        /// status code (`kpca_status`); numbers are stable and never reused. New
        /// kinds of error may be added in a minor release: match with a wildcard
        /// arm. Integers from C become an `Error` through `TryFrom<i32>`, never
        /// by reading an enum from memory that C wrote.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(i32)]
        #[non_exhaustive]
        pub enum Error {
            $( $(#[doc = $doc])* $name = $code, )*
        }

        /// The number of errors (of codes other than 0, success).
        const COUNT: usize = [$($code),*].len();

        impl Error {
            /// Every error, in code order (for tests and for the C status table).
            pub const ALL: [Error; COUNT] = [$(Error::$name),*];

            /// The error with this code, if any (0 is success, not an error).
            pub const fn from_code(code: i32) -> Option<Error> {
                match code {
                    $($code => Some(Error::$name),)*
                    _ => None,
                }
            }

            /// The name of the C constant for this code (`KPCA_ERR_...`).
            pub const fn c_name(self) -> &'static str {
                match self {
                    $(Error::$name => stringify!($c_name),)*
                }
            }

            /// The description as a NUL-terminated string, for the C ABI.
            pub const fn c_message(self) -> &'static CStr {
                match self {
                    $(Error::$name => $message,)*
                }
            }

            /// The variant's documentation, one line per line of its doc
            /// comment (each line as rustdoc stores it, with its leading
            /// space): the comment of the C constant in `include/kpca.h`.
            pub const fn doc(self) -> &'static str {
                match self {
                    $(Error::$name => concat!($($doc, "\n"),*),)*
                }
            }
        }
    };
}

status_table! {
    /// A required pointer argument was NULL (C ABI only).
    NullPointer = 1, KPCA_ERR_NULL_POINTER,
        c"a required pointer argument is NULL";
    /// The input vector length is not the model's input dimension.
    InputLength = 2, KPCA_ERR_INPUT_LENGTH,
        c"input length is not the model's input dimension";
    /// The output buffer is shorter than the number of components (or rows).
    OutputLength = 3, KPCA_ERR_OUTPUT_LENGTH,
        c"output buffer is shorter than required";
    /// An input value is NaN or infinite.
    NonFiniteInput = 4, KPCA_ERR_NON_FINITE_INPUT,
        c"input contains NaN or infinity";
    /// The blob is shorter than its header or than the length it declares.
    Truncated = 5, KPCA_ERR_TRUNCATED,
        c"model blob is truncated";
    /// The blob does not start with the magic bytes `KPCA`.
    BadMagic = 6, KPCA_ERR_BAD_MAGIC,
        c"model blob does not start with the KPCA magic";
    /// The blob's format version is not one this library reads.
    UnsupportedVersion = 7, KPCA_ERR_UNSUPPORTED_VERSION,
        c"unsupported model format version";
    /// The blob's byte-order mark is wrong, or this target is big-endian.
    ByteOrder = 8, KPCA_ERR_BYTE_ORDER,
        c"model byte order is not supported on this target";
    /// The CRC-32 stored in the blob does not match its contents.
    CrcMismatch = 9, KPCA_ERR_CRC_MISMATCH,
        c"model blob CRC-32 mismatch";
    /// The dimensions in the header disagree with the blob's length.
    LengthMismatch = 10, KPCA_ERR_LENGTH_MISMATCH,
        c"model dimensions disagree with the blob length";
    /// A dimension (d, m or k) is zero.
    ZeroDimension = 11, KPCA_ERR_ZERO_DIMENSION,
        c"a model dimension is zero";
    /// A dimension is past its stated maximum ([`crate::MAX_DIM`] and friends;
    /// in C `KPCA_MAX_DIM`, `KPCA_MAX_POINTS`, `KPCA_MAX_COMPONENTS`).
    DimensionTooLarge = 12, KPCA_ERR_DIMENSION_TOO_LARGE,
        c"a model dimension exceeds the supported maximum";
    /// The kernel id is not one of the known kernels.
    UnknownKernel = 13, KPCA_ERR_UNKNOWN_KERNEL,
        c"unknown kernel id";
    /// A kernel parameter is out of range (gamma not finite and > 0, degree 0 or too high).
    BadKernelParameter = 14, KPCA_ERR_BAD_KERNEL_PARAMETER,
        c"kernel parameter out of range";
    /// A number stored in the model is NaN or infinite.
    NonFiniteModel = 15, KPCA_ERR_NON_FINITE_MODEL,
        c"model contains NaN or infinity";
    /// The model blob's address is not aligned to 4 bytes, so its floats cannot
    /// be read in place (the blob given to a loader or to a recalibration, or
    /// the buffer a fit writes its blob into). A caller's other arrays have
    /// their own status, `MisalignedBuffer` (38).
    Misaligned = 16, KPCA_ERR_MISALIGNED,
        c"model blob is not 4-byte aligned";
    /// A header field has a value this version does not define (flags, reserved words, header length).
    BadHeader = 17, KPCA_ERR_BAD_HEADER,
        c"model header has an undefined field value";
    /// The model struct was never filled by a successful load (C ABI only:
    /// `kpca_model_from_bytes`).
    ModelNotLoaded = 18, KPCA_ERR_MODEL_NOT_LOADED,
        c"model was not loaded";
    /// `is_anomaly` (`kpca_is_anomaly`) was asked of a model whose threshold is unset (0).
    ThresholdUnset = 19, KPCA_ERR_THRESHOLD_UNSET,
        c"model has no anomaly threshold";
    /// The model's parts are inconsistent with each other (for example stored norms
    /// that are not the norms of the stored points, a non-positive inverse std,
    /// or a negative threshold).
    InconsistentModel = 20, KPCA_ERR_INCONSISTENT_MODEL,
        c"model parts are inconsistent";
    /// The buffer given to the writer is too small for the blob.
    BufferTooSmall = 21, KPCA_ERR_BUFFER_TOO_SMALL,
        c"output buffer too small for the model blob";
    /// The slices given to build a model have lengths that disagree with its dimensions.
    PartsLength = 22, KPCA_ERR_PARTS_LENGTH,
        c"model part lengths disagree with its dimensions";
    /// An owned model's fixed capacity would be exceeded.
    Capacity = 23, KPCA_ERR_CAPACITY,
        c"fixed model capacity exceeded";
    /// A batch input length is not a whole number of rows.
    BatchLength = 24, KPCA_ERR_BATCH_LENGTH,
        c"batch length is not a whole number of rows";
    /// The result is not finite (the kernel overflowed f32 for this input).
    NonFiniteResult = 25, KPCA_ERR_NON_FINITE_RESULT,
        c"result is not finite (kernel overflow)";
    /// A single-kernel entry point ([`crate::single::SingleKernel`], `kpca_rbf_project`
    /// and the others) was given a model of another kernel.
    KernelMismatch = 26, KPCA_ERR_KERNEL_MISMATCH,
        c"model's kernel is not the entry point's kernel";
    /// The blob's table of optional sections (format version 4) is malformed:
    /// an unknown, repeated or out-of-order section tag, or a section count out
    /// of range.
    BadSection = 27, KPCA_ERR_BAD_SECTION,
        c"model's table of optional sections is malformed";
    /// `reconstruct` (`kpca_reconstruct`) was asked of a model without a
    /// pre-image section (fit it with `kpca fit --inverse-transform`).
    NoPreImage = 28, KPCA_ERR_NO_PREIMAGE,
        c"model has no pre-image section";
    /// `predict` (`kpca_predict`) was asked of a model without a regression
    /// head (fit it with `kpca fit --target FILE`).
    NoRegression = 29, KPCA_ERR_NO_REGRESSION,
        c"model has no regression head";
    /// An on-device fit ([`crate::learn`], `kpca_fit`) was given fewer than 2
    /// vectors, or a recalibration (`kpca_recalibrate`) none.
    TooFewRows = 30, KPCA_ERR_TOO_FEW_ROWS,
        c"fit needs at least 2 vectors (recalibration at least 1)";
    /// An on-device fit asked for k components with k >= n, or with fewer
    /// than k positive eigenvalues of the centred kernel matrix.
    TooManyComponents = 31, KPCA_ERR_TOO_MANY_COMPONENTS,
        c"more components than positive eigenvalues (or k >= n)";
    /// The workspace (or scratch) given to an on-device fit or recalibration is
    /// too small.
    WorkspaceTooSmall = 32, KPCA_ERR_WORKSPACE_TOO_SMALL,
        c"workspace too small";
    /// An on-device fit was asked to standardise a feature whose values are
    /// all equal.
    ConstantColumn = 33, KPCA_ERR_CONSTANT_COLUMN,
        c"cannot standardise a constant feature";
    /// The on-device fit's eigensolver did not converge.
    NoConvergence = 34, KPCA_ERR_NO_CONVERGENCE,
        c"eigensolver did not converge";
    /// A false-alarm rate is not strictly between 0 and 1.
    BadFalseAlarmRate = 35, KPCA_ERR_BAD_FALSE_ALARM_RATE,
        c"false-alarm rate is not strictly between 0 and 1";
    /// An f32 entry point was given an integer model (its record's precision
    /// is not f32, `KPCA_PRECISION_F32`): call its precision's entry points.
    PrecisionMismatch = 36, KPCA_ERR_PRECISION_MISMATCH,
        c"this entry point computes in f32 and the model is an integer model: use its precision's entry points";
    /// The model's record names a front end (raw samples to features) that
    /// this library does not know (`front_end` is not 0).
    UnknownFrontEnd = 37, KPCA_ERR_UNKNOWN_FRONT_END,
        c"model's front end is not one this library knows";
    /// A caller's array or pointer argument other than the model blob (an
    /// input vector or batch, an output, a score, a getter's output, a fit's
    /// workspace, a recalibration's scratch or threshold, the model or
    /// parameter struct) is not aligned for its element type (C ABI only: Rust
    /// references are always aligned). Earlier builds reported these as
    /// `Misaligned` (16), whose text names the blob.
    MisalignedBuffer = 38, KPCA_ERR_MISALIGNED_BUFFER,
        c"a caller's input, output, score or other array is not aligned for its type";
    // Retired codes stay here as comments ("// 39: retired in 0.x, was ..."),
    // their numbers never reused. None is retired yet.
}

impl Error {
    /// The stable numeric code (the C `kpca_status` value).
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// A short English description (the text of `kpca_status_str`).
    pub fn message(self) -> &'static str {
        self.c_message().to_str().unwrap_or("")
    }
}

/// An integer that is not the code of an [`Error`] (0, success, included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnknownCode(pub i32);

impl TryFrom<i32> for Error {
    type Error = UnknownCode;

    /// The error with this code: how an integer from C becomes an `Error`.
    fn try_from(code: i32) -> Result<Error, UnknownCode> {
        Error::from_code(code).ok_or(UnknownCode(code))
    }
}

impl From<Error> for i32 {
    /// The error's stable code.
    fn from(e: Error) -> i32 {
        e.code()
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
    use std::collections::HashSet;

    #[test]
    fn codes_are_dense_unique_and_round_trip() {
        for (i, e) in Error::ALL.iter().enumerate() {
            assert_eq!(e.code(), i as i32 + 1);
            assert_eq!(Error::from_code(e.code()), Some(*e));
            assert_eq!(Error::try_from(e.code()), Ok(*e));
            assert_eq!(i32::from(*e), e.code());
            assert!(!e.message().is_empty());
            assert!(!e.doc().trim().is_empty());
        }
        assert_eq!(Error::from_code(0), None);
        assert_eq!(Error::try_from(0), Err(UnknownCode(0)));
        let past = Error::ALL.len() as i32 + 1;
        assert_eq!(Error::try_from(past), Err(UnknownCode(past)));
        assert_eq!(Error::try_from(-1), Err(UnknownCode(-1)));
    }

    #[test]
    fn c_names_and_messages_are_distinct_and_well_formed() {
        let names: HashSet<_> = Error::ALL.iter().map(|e| e.c_name()).collect();
        let messages: HashSet<_> = Error::ALL.iter().map(|e| e.message()).collect();
        assert_eq!(names.len(), Error::ALL.len());
        assert_eq!(messages.len(), Error::ALL.len());
        for e in Error::ALL {
            let name = e.c_name();
            assert!(name.starts_with("KPCA_ERR_"), "{name}");
            assert!(name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'));
            assert_eq!(e.c_message().to_bytes(), e.message().as_bytes());
        }
        assert_eq!(Error::NoPreImage.c_name(), "KPCA_ERR_NO_PREIMAGE");
    }
}
