//! The C ABI called from Rust (also run under Miri): every status for NULL,
//! lengths, unloaded models, misalignment, and outputs untouched on failure.

use kpca_testkit as common;

use common::TestModel;
use kpca_capi::*;
use kpca_core::Kernel;
use std::ptr::{null, null_mut};

fn loaded(blob: &[u32]) -> kpca_model {
    let mut model = std::mem::MaybeUninit::<kpca_model>::zeroed();
    let len = blob.len() * 4;
    // SAFETY: model points to writable storage, blob to len readable bytes.
    let st = unsafe { kpca_model_from_bytes(model.as_mut_ptr(), blob.as_ptr().cast(), len) };
    assert_eq!(st, KPCA_OK, "{st}");
    // SAFETY: written by the successful call above.
    unsafe { model.assume_init() }
}

fn blob_words(model: &TestModel) -> Vec<u32> {
    model
        .blob()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn project_and_score_agree_with_the_rust_view() {
    let tm = TestModel::random(Kernel::Rbf { gamma: 0.4 }, 3, 12, 2, true, 41);
    let words = blob_words(&tm);
    let model = loaded(&words);
    let x = [0.2f32, -0.1, 0.7];
    let mut out = [0.0f32; 2];
    let mut score = 0.0f32;
    unsafe {
        assert_eq!(
            kpca_project(&model, x.as_ptr(), 3, out.as_mut_ptr(), 2),
            KPCA_OK
        );
        assert_eq!(
            kpca_anomaly_score(&model, x.as_ptr(), 3, &mut score),
            KPCA_OK
        );
    }
    let view = tm.view();
    let mut want = [0.0f32; 2];
    view.project(&x, &mut want).unwrap();
    assert_eq!(out, want);
    assert_eq!(score, view.anomaly_score(&x).unwrap());
    let mut both = [0.0f32; 2];
    let mut s2 = 0.0f32;
    let mut flag = 9u8;
    let (mut dim, mut k, mut m) = (0usize, 0usize, 0usize);
    let mut thr = 0.0f32;
    let mut kernel = 99u32;
    unsafe {
        assert_eq!(
            kpca_project_and_score(&model, x.as_ptr(), 3, both.as_mut_ptr(), 2, &mut s2),
            KPCA_OK
        );
        assert_eq!(kpca_is_anomaly(&model, x.as_ptr(), 3, &mut flag), KPCA_OK);
        assert_eq!(kpca_model_dim(&model, &mut dim), KPCA_OK);
        assert_eq!(kpca_model_n_components(&model, &mut k), KPCA_OK);
        assert_eq!(kpca_model_n_points(&model, &mut m), KPCA_OK);
        assert_eq!(kpca_model_threshold(&model, &mut thr), KPCA_OK);
        assert_eq!(kpca_model_kernel(&model, &mut kernel), KPCA_OK);
    }
    assert_eq!((both, s2), (want, score));
    assert_eq!(flag, u8::from(score > tm.threshold));
    assert_eq!(
        (dim, k, m, thr, kernel),
        (3, 2, 12, tm.threshold, KPCA_KERNEL_RBF)
    );
    let xs = [0.2f32, -0.1, 0.7, 1.0, 0.5, -0.5];
    let mut outs = [0.0f32; 4];
    let mut scores = [0.0f32; 2];
    unsafe {
        assert_eq!(
            kpca_project_batch(&model, xs.as_ptr(), 6, outs.as_mut_ptr(), 4),
            KPCA_OK
        );
        assert_eq!(
            kpca_anomaly_score_batch(&model, xs.as_ptr(), 6, scores.as_mut_ptr(), 2),
            KPCA_OK
        );
    }
    assert_eq!(&outs[..2], &want);
    assert_eq!(scores[0], score);
}

#[test]
fn every_bad_argument_has_its_status_and_writes_nothing() {
    let tm = TestModel::random(Kernel::Linear, 3, 5, 2, false, 43);
    let words = blob_words(&tm);
    let model = loaded(&words);
    let x = [0.2f32, -0.1, 0.7];
    let mut out = [7.0f32; 2];
    let mut score = 7.0f32;
    let mut flag = 7u8;
    let blank = kpca_model { magic: 0, ..model };
    unsafe {
        // NULL for each pointer.
        assert_eq!(
            kpca_project(null(), x.as_ptr(), 3, out.as_mut_ptr(), 2),
            KPCA_ERR_NULL_POINTER
        );
        assert_eq!(
            kpca_project(&model, null(), 3, out.as_mut_ptr(), 2),
            KPCA_ERR_NULL_POINTER
        );
        assert_eq!(
            kpca_project(&model, x.as_ptr(), 3, null_mut(), 2),
            KPCA_ERR_NULL_POINTER
        );
        assert_eq!(
            kpca_anomaly_score(&model, x.as_ptr(), 3, null_mut()),
            KPCA_ERR_NULL_POINTER
        );
        assert_eq!(
            kpca_is_anomaly(&model, x.as_ptr(), 3, null_mut()),
            KPCA_ERR_NULL_POINTER
        );
        assert_eq!(
            kpca_project_and_score(&model, x.as_ptr(), 3, out.as_mut_ptr(), 2, null_mut()),
            KPCA_ERR_NULL_POINTER
        );
        assert_eq!(
            kpca_model_from_bytes(null_mut(), words.as_ptr().cast(), words.len() * 4),
            KPCA_ERR_NULL_POINTER
        );
        let mut m2 = blank;
        assert_eq!(
            kpca_model_from_bytes(&mut m2, null(), 10),
            KPCA_ERR_NULL_POINTER
        );
        assert_eq!(
            kpca_model_from_bytes(&mut m2, null(), 0),
            KPCA_ERR_TRUNCATED
        );
        assert_eq!(m2.magic, 0);
        assert_eq!(kpca_model_dim(&model, null_mut()), KPCA_ERR_NULL_POINTER);
        // NULL with length 0 is an empty slice: a length error, not a NULL error.
        assert_eq!(
            kpca_project(&model, null(), 0, out.as_mut_ptr(), 2),
            KPCA_ERR_INPUT_LENGTH
        );
        assert_eq!(
            kpca_project(&model, x.as_ptr(), 3, null_mut(), 0),
            KPCA_ERR_OUTPUT_LENGTH
        );
        // Lengths.
        assert_eq!(
            kpca_project(&model, x.as_ptr(), 2, out.as_mut_ptr(), 2),
            KPCA_ERR_INPUT_LENGTH
        );
        assert_eq!(
            kpca_project(&model, x.as_ptr(), 3, out.as_mut_ptr(), 1),
            KPCA_ERR_OUTPUT_LENGTH
        );
        assert_eq!(
            kpca_project_batch(&model, x.as_ptr(), 2, out.as_mut_ptr(), 2),
            KPCA_ERR_BATCH_LENGTH
        );
        // Non-finite input.
        let bad = [0.0f32, f32::NAN, 0.0];
        assert_eq!(
            kpca_anomaly_score(&model, bad.as_ptr(), 3, &mut score),
            KPCA_ERR_NON_FINITE_INPUT
        );
        // Unloaded model.
        assert_eq!(
            kpca_project(&blank, x.as_ptr(), 3, out.as_mut_ptr(), 2),
            KPCA_ERR_MODEL_NOT_LOADED
        );
        let mut dim = 0usize;
        assert_eq!(kpca_model_dim(&blank, &mut dim), KPCA_ERR_MODEL_NOT_LOADED);
        // Misaligned pointers.
        let raw = [0u8; 16];
        let off = raw.as_ptr().align_offset(4) + 1;
        let mis = raw.as_ptr().add(off).cast::<f32>();
        assert_eq!(
            kpca_project(&model, mis, 3, out.as_mut_ptr(), 2),
            KPCA_ERR_MISALIGNED_BUFFER
        );
        let bytes = words.as_ptr().cast::<u8>();
        let mut m3 = blank;
        assert_eq!(
            kpca_model_from_bytes(&mut m3, bytes.add(1), words.len() * 4 - 4),
            KPCA_ERR_BAD_MAGIC
        );
        // Threshold unset.
        let mut tm0 = tm.clone();
        tm0.threshold = 0.0;
        let words0 = blob_words(&tm0);
        let model0 = loaded(&words0);
        assert_eq!(
            kpca_is_anomaly(&model0, x.as_ptr(), 3, &mut flag),
            KPCA_ERR_THRESHOLD_UNSET
        );
    }
    assert_eq!(out, [7.0; 2]);
    assert_eq!(score, 7.0);
    assert_eq!(flag, 7);
}

#[test]
fn misaligned_blob_is_reported() {
    let tm = TestModel::random(Kernel::Linear, 3, 5, 2, false, 47);
    let blob = tm.blob();
    let mut words = vec![0u32; blob.len() / 4 + 1];
    // SAFETY: byte view of u32 storage.
    let bytes =
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 4) };
    bytes[1..1 + blob.len()].copy_from_slice(&blob);
    let mut model = std::mem::MaybeUninit::<kpca_model>::zeroed();
    // SAFETY: valid pointers and length.
    let st =
        unsafe { kpca_model_from_bytes(model.as_mut_ptr(), bytes.as_ptr().add(1), blob.len()) };
    assert_eq!(st, KPCA_ERR_MISALIGNED);
}

#[test]
fn status_strings_cover_every_code() {
    let last = kpca_core::Error::ALL.len() as i32;
    for code in 0..=last + 1 {
        // SAFETY: static NUL-terminated strings.
        let s = unsafe { std::ffi::CStr::from_ptr(kpca_status_str(code)) }
            .to_str()
            .unwrap();
        assert!(!s.is_empty());
        if code == last + 1 {
            assert_eq!(s, "unknown status");
        }
    }
}

/// The header's version numbers against the crate version, parsed here from
/// the version string (the library checks the parts at compile time).
#[test]
fn header_version_is_the_crate_version() {
    let parts: Vec<u32> = env!("CARGO_PKG_VERSION")
        .split(['.', '-', '+'])
        .take(3)
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(
        parts,
        [KPCA_VERSION_MAJOR, KPCA_VERSION_MINOR, KPCA_VERSION_PATCH]
    );
    assert_eq!(
        KPCA_VERSION,
        parts[0] * 10000 + parts[1] * 100 + parts[2],
        "{}",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(kpca_version(), KPCA_VERSION);
}

/// The sizes the header states for both pointer widths, from this build's
/// layout: the 4-byte fields come first, then the pointers (checked), so the
/// other width's size is the same fields with pointers of the other size.
/// (The stated size of this build's width is also a compile-time assertion in
/// the library, on every target it is built for, and a static assertion in
/// the C tests and firmware.)
#[test]
fn header_states_the_size_of_kpca_model_for_both_pointer_widths() {
    use std::mem::{offset_of, size_of};
    let ptr = size_of::<*const f32>();
    let scalars = offset_of!(kpca_model, mean);
    let size = size_of::<kpca_model>();
    assert_eq!(offset_of!(kpca_model, front), size - ptr, "pointers last");
    assert_eq!(scalars % 8, 0, "no padding before the pointers on LP64");
    let pointers = (size - scalars) / ptr;
    let (ilp32, lp64) = (scalars + 4 * pointers, scalars + 8 * pointers);
    assert_eq!(
        (KPCA_MODEL_SIZE_ILP32, KPCA_MODEL_SIZE_LP64),
        (ilp32, lp64),
        "set KPCA_MODEL_SIZE_ILP32 = {ilp32}, KPCA_MODEL_SIZE_LP64 = {lp64} and run `cargo xtask header`"
    );
}
