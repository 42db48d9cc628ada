//! `include_model!` links a committed blob 4-byte aligned wherever it lands,
//! where a plain `include_bytes!` is aligned to 1 and loads or fails with
//! `Misaligned` by the linker's choice: shown here with the plain bytes put
//! at an odd offset on purpose, which is where the linker may put them.

use kpca_core::{include_model, AlignedModel, Error, ModelRef};

const PLAIN: &[u8; BLOB_LEN] = include_bytes!("../../../testdata/format-v3/full_rbf_centred.kpca");
const BLOB_LEN: usize = include_bytes!("../../../testdata/format-v3/full_rbf_centred.kpca").len();

/// The plain bytes one byte past a 4-byte boundary.
#[repr(C, align(4))]
struct OddOffset {
    pad: u8,
    blob: [u8; BLOB_LEN],
}

static ODD: OddOffset = OddOffset {
    pad: 0,
    blob: *PLAIN,
};

// Statics of odd sizes between the included models, so that an alignment of 1
// would be likely to show.
static BYTE_A: u8 = 1;
static MODEL_A: &[u8] = include_model!("../../../testdata/format-v3/full_rbf_centred.kpca");
static BYTE_B: [u8; 3] = [2; 3];
static MODEL_B: &[u8] = include_model!("../../../testdata/format-v3/full_linear_map.kpca");
static BYTE_C: [u8; 5] = [3; 5];
static MODEL_C: &[u8] = include_model!("../../../testdata/format-v3/nystrom_laplacian.kpca");
// A path built with concat!/env!, as the README's firmware quick start does.
static MODEL_D: &[u8] = include_model!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/format-v3/full_rbf_centred.kpca"
));

#[test]
fn plain_include_bytes_at_an_odd_offset_is_refused() {
    assert_eq!(ODD.pad, 0);
    assert_eq!(ODD.blob.as_ptr() as usize % 4, 1);
    assert_eq!(
        ModelRef::from_bytes(&ODD.blob).map(|m| m.dim()),
        Err(Error::Misaligned)
    );
}

#[test]
fn included_models_are_aligned_and_load_in_place() {
    assert_eq!((BYTE_A, BYTE_B[0], BYTE_C[0]), (1, 2, 3));
    let local = include_model!("../../../testdata/format-v3/full_rbf_centred.kpca");
    let local: &'static [u8; BLOB_LEN] = local;
    for (blob, dim) in [
        (MODEL_A, 8),
        (MODEL_B, 8),
        (MODEL_C, 8),
        (MODEL_D, 8),
        (&local[..], 8),
    ] {
        assert_eq!(blob.as_ptr() as usize % 4, 0, "include_model! not aligned");
        let model = ModelRef::from_bytes(blob).expect("the committed blob loads");
        assert_eq!(model.dim(), dim);
    }
    // The same bytes as include_bytes!, in place (no copy made at run time).
    assert_eq!(MODEL_A, &PLAIN[..]);
    assert_eq!(core::mem::align_of::<AlignedModel<BLOB_LEN>>(), 4);
    assert_eq!(AlignedModel(*PLAIN).bytes(), PLAIN);
}
