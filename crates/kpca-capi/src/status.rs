//! The status codes of the C ABI (`KPCA_OK`, `KPCA_ERR_*`): generated from the
//! table in crates/kpca-core/src/error.rs, so that cbindgen (which does not
//! expand macros) sees them as constants. Do not edit: regenerate with
//! scripts/gen-header.sh; tests/header.rs fails when this file is stale.

use crate::kpca_status;

/// Success.
pub const KPCA_OK: kpca_status = 0;
/// A required pointer argument was NULL (C ABI only).
pub const KPCA_ERR_NULL_POINTER: kpca_status = 1;
/// The input vector length is not the model's input dimension.
pub const KPCA_ERR_INPUT_LENGTH: kpca_status = 2;
/// The output buffer is shorter than the number of components (or rows).
pub const KPCA_ERR_OUTPUT_LENGTH: kpca_status = 3;
/// An input value is NaN or infinite.
pub const KPCA_ERR_NON_FINITE_INPUT: kpca_status = 4;
/// The blob is shorter than its header or than the length it declares.
pub const KPCA_ERR_TRUNCATED: kpca_status = 5;
/// The blob does not start with the magic bytes `KPCA`.
pub const KPCA_ERR_BAD_MAGIC: kpca_status = 6;
/// The blob's format version is not one this library reads.
pub const KPCA_ERR_UNSUPPORTED_VERSION: kpca_status = 7;
/// The blob's byte-order mark is wrong, or this target is big-endian.
pub const KPCA_ERR_BYTE_ORDER: kpca_status = 8;
/// The CRC-32 stored in the blob does not match its contents.
pub const KPCA_ERR_CRC_MISMATCH: kpca_status = 9;
/// The dimensions in the header disagree with the blob's length.
pub const KPCA_ERR_LENGTH_MISMATCH: kpca_status = 10;
/// A dimension (d, m or k) is zero.
pub const KPCA_ERR_ZERO_DIMENSION: kpca_status = 11;
/// A dimension is past its stated maximum (`crate::MAX_DIM` and friends;
/// in C `KPCA_MAX_DIM`, `KPCA_MAX_POINTS`, `KPCA_MAX_COMPONENTS`).
pub const KPCA_ERR_DIMENSION_TOO_LARGE: kpca_status = 12;
/// The kernel id is not one of the known kernels.
pub const KPCA_ERR_UNKNOWN_KERNEL: kpca_status = 13;
/// A kernel parameter is out of range (gamma not finite and > 0, degree 0 or too high).
pub const KPCA_ERR_BAD_KERNEL_PARAMETER: kpca_status = 14;
/// A number stored in the model is NaN or infinite.
pub const KPCA_ERR_NON_FINITE_MODEL: kpca_status = 15;
/// The model blob's address is not aligned to 4 bytes, so its floats cannot
/// be read in place (the blob given to a loader or to a recalibration, or
/// the buffer a fit writes its blob into). A caller's other arrays have
/// their own status, `MisalignedBuffer` (38).
pub const KPCA_ERR_MISALIGNED: kpca_status = 16;
/// A header field has a value this version does not define (flags, reserved words, header length).
pub const KPCA_ERR_BAD_HEADER: kpca_status = 17;
/// The model struct was never filled by a successful load (C ABI only:
/// `kpca_model_from_bytes`).
pub const KPCA_ERR_MODEL_NOT_LOADED: kpca_status = 18;
/// `is_anomaly` (`kpca_is_anomaly`) was asked of a model whose threshold is unset (0).
pub const KPCA_ERR_THRESHOLD_UNSET: kpca_status = 19;
/// The model's parts are inconsistent with each other (for example stored norms
/// that are not the norms of the stored points, a non-positive inverse std,
/// or a negative threshold).
pub const KPCA_ERR_INCONSISTENT_MODEL: kpca_status = 20;
/// The buffer given to the writer is too small for the blob.
pub const KPCA_ERR_BUFFER_TOO_SMALL: kpca_status = 21;
/// The slices given to build a model have lengths that disagree with its dimensions.
pub const KPCA_ERR_PARTS_LENGTH: kpca_status = 22;
/// An owned model's fixed capacity would be exceeded.
pub const KPCA_ERR_CAPACITY: kpca_status = 23;
/// A batch input length is not a whole number of rows.
pub const KPCA_ERR_BATCH_LENGTH: kpca_status = 24;
/// The result is not finite (the kernel overflowed f32 for this input).
pub const KPCA_ERR_NON_FINITE_RESULT: kpca_status = 25;
/// A single-kernel entry point (`crate::single::SingleKernel`, `kpca_rbf_project`
/// and the others) was given a model of another kernel.
pub const KPCA_ERR_KERNEL_MISMATCH: kpca_status = 26;
/// The blob's table of optional sections (format version 4) is malformed:
/// an unknown, repeated or out-of-order section tag, or a section count out
/// of range.
pub const KPCA_ERR_BAD_SECTION: kpca_status = 27;
/// `reconstruct` (`kpca_reconstruct`) was asked of a model without a
/// pre-image section (fit it with `kpca fit --inverse-transform`).
pub const KPCA_ERR_NO_PREIMAGE: kpca_status = 28;
/// `predict` (`kpca_predict`) was asked of a model without a regression
/// head (fit it with `kpca fit --target FILE`).
pub const KPCA_ERR_NO_REGRESSION: kpca_status = 29;
/// An on-device fit (`crate::learn`, `kpca_fit`) was given fewer than 2
/// vectors, or a recalibration (`kpca_recalibrate`) none.
pub const KPCA_ERR_TOO_FEW_ROWS: kpca_status = 30;
/// An on-device fit asked for k components with k >= n, or with fewer
/// than k positive eigenvalues of the centred kernel matrix.
pub const KPCA_ERR_TOO_MANY_COMPONENTS: kpca_status = 31;
/// The workspace (or scratch) given to an on-device fit or recalibration is
/// too small.
pub const KPCA_ERR_WORKSPACE_TOO_SMALL: kpca_status = 32;
/// An on-device fit was asked to standardise a feature whose values are
/// all equal.
pub const KPCA_ERR_CONSTANT_COLUMN: kpca_status = 33;
/// The on-device fit's eigensolver did not converge.
pub const KPCA_ERR_NO_CONVERGENCE: kpca_status = 34;
/// A false-alarm rate is not strictly between 0 and 1.
pub const KPCA_ERR_BAD_FALSE_ALARM_RATE: kpca_status = 35;
/// An f32 entry point was given an integer model (its record's precision
/// is not f32, `KPCA_PRECISION_F32`): call its precision's entry points.
pub const KPCA_ERR_PRECISION_MISMATCH: kpca_status = 36;
/// The model's record names a front end (raw samples to features) that
/// this library does not know (`front_end` is not 0).
pub const KPCA_ERR_UNKNOWN_FRONT_END: kpca_status = 37;
/// A caller's array or pointer argument other than the model blob (an
/// input vector or batch, an output, a score, a getter's output, a fit's
/// workspace, a recalibration's scratch or threshold, the model or
/// parameter struct) is not aligned for its element type (C ABI only: Rust
/// references are always aligned). Earlier builds reported these as
/// `Misaligned` (16), whose text names the blob.
pub const KPCA_ERR_MISALIGNED_BUFFER: kpca_status = 38;
