//! Hostile C-ABI cases from Rust (also run under Miri, scripts/miri.sh): lengths
//! past isize::MAX, every truncation and single-bit flip leaving the model
//! struct untouched, outputs untouched for every failing call, the anomaly flag
//! exactly 0 or 1, a copied model struct, concurrent use of one model, and a
//! misaligned score with a valid out (a bug these tests found, fixed in
//! 19c1089), and every misaligned caller array with its own status (not the
//! blob's), nothing written. Case counts are reduced under Miri.

use kpca_testkit as common;

use common::{all_kernels, path_kernels, Lcg, TestModel};
use kpca_capi::*;
use kpca_core::Kernel;
use std::mem::{size_of, MaybeUninit};
use std::ptr::{null, null_mut};

const SENTINEL: f32 = -12345.5;

/// The blob as 4-byte-aligned words.
fn words(model: &TestModel) -> Vec<u32> {
    model
        .blob()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn as_bytes(words: &[u32]) -> &[u8] {
    // SAFETY: u32 storage viewed as its bytes.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 4) }
}

fn struct_bytes(m: &kpca_model) -> Vec<u8> {
    // SAFETY: kpca_model is repr(C) without padding (u32/f32 fields, then pointers).
    unsafe {
        std::slice::from_raw_parts(
            (m as *const kpca_model).cast::<u8>(),
            size_of::<kpca_model>(),
        )
    }
    .to_vec()
}

/// Loads `len` bytes at `ptr` into a struct pre-filled with 0xA5; returns the
/// status and whether the struct is unchanged.
fn try_load(ptr: *const u8, len: usize) -> (kpca_status, bool, kpca_model) {
    let mut slot = MaybeUninit::<kpca_model>::uninit();
    // SAFETY: fills the whole struct; every field accepts any bit pattern.
    let before = unsafe {
        slot.as_mut_ptr()
            .cast::<u8>()
            .write_bytes(0xA5, size_of::<kpca_model>());
        slot.assume_init()
    };
    let mut model = before;
    // SAFETY: `model` is writable; `ptr` is valid for `len` bytes (callers).
    let st = unsafe { kpca_model_from_bytes(&mut model, ptr, len) };
    (st, struct_bytes(&model) == struct_bytes(&before), model)
}

fn loaded(words: &[u32]) -> kpca_model {
    let (st, _, m) = try_load(words.as_ptr().cast(), words.len() * 4);
    assert_eq!(st, KPCA_OK);
    m
}

#[test]
fn lengths_past_isize_max_are_refused_without_reading() {
    let tm = TestModel::random(Kernel::Rbf { gamma: 0.5 }, 3, 5, 2, false, 3);
    let w = words(&tm);
    let model = loaded(&w);
    let x = [0.1f32; 3];
    let mut out = [SENTINEL; 2];
    let mut score = SENTINEL;
    let huge = [
        usize::MAX,
        isize::MAX as usize,
        (isize::MAX as usize) / 2 + 1,
    ];
    for len in huge {
        // SAFETY: the library refuses these lengths before forming any slice
        // (checked in slice_in/slice_out); under Miri any read would be reported.
        unsafe {
            assert_eq!(
                kpca_project(&model, x.as_ptr(), len, out.as_mut_ptr(), 2),
                KPCA_ERR_INPUT_LENGTH
            );
            assert_eq!(
                kpca_project(&model, x.as_ptr(), 3, out.as_mut_ptr(), len),
                KPCA_ERR_OUTPUT_LENGTH
            );
            assert_eq!(
                kpca_anomaly_score(&model, x.as_ptr(), len, &mut score),
                KPCA_ERR_INPUT_LENGTH
            );
            assert_eq!(
                kpca_project_batch(&model, x.as_ptr(), len, out.as_mut_ptr(), 2),
                KPCA_ERR_INPUT_LENGTH
            );
            // NULL with any non-zero length is a NULL pointer, whatever the length.
            assert_eq!(
                kpca_project(&model, null(), len, out.as_mut_ptr(), 2),
                KPCA_ERR_NULL_POINTER
            );
            assert_eq!(
                kpca_anomaly_score_batch(&model, x.as_ptr(), 3, null_mut(), len),
                KPCA_ERR_NULL_POINTER
            );
        }
    }
    // A blob length that no allocation can have (bytes: past isize::MAX).
    for len in [usize::MAX, isize::MAX as usize + 1] {
        let (st, untouched, _) = try_load(as_bytes(&w).as_ptr(), len);
        assert_ne!(st, KPCA_OK);
        assert!(untouched);
    }
    assert_eq!(out, [SENTINEL; 2]);
    assert_eq!(score, SENTINEL);
}

#[test]
fn every_truncation_and_bit_flip_leaves_the_struct_untouched() {
    let tm = TestModel::random(
        Kernel::Sigmoid {
            gamma: 0.2,
            coef0: 0.1,
        },
        3,
        4,
        2,
        true,
        5,
    );
    let w = words(&tm);
    let bytes = as_bytes(&w);
    let len = bytes.len();
    for n in 0..len {
        let (st, untouched, _) = try_load(bytes.as_ptr(), n);
        assert_eq!(st, KPCA_ERR_TRUNCATED, "truncated to {n}");
        assert!(untouched, "struct written for a truncation to {n}");
    }
    let step = if cfg!(miri) { 37 } else { 1 };
    let mut flipped = w.clone();
    for bit in (0..len * 8).step_by(step) {
        flipped[bit / 32] ^= 1 << (bit % 32);
        let (st, untouched, _) = try_load(flipped.as_ptr().cast(), len);
        assert_ne!(st, KPCA_OK, "bit {bit} flipped and accepted");
        assert!(untouched, "struct written for bit {bit}");
        if bit / 8 >= 64 {
            assert_eq!(st, KPCA_ERR_CRC_MISMATCH, "payload bit {bit}");
        }
        flipped[bit / 32] ^= 1 << (bit % 32);
    }
    assert_eq!(flipped, w);
}

#[test]
fn failing_calls_write_nothing_and_flags_are_zero_or_one() {
    let mut g = Lcg(17);
    let n_inputs = if cfg!(miri) { 2 } else { 16 };
    for (i, kernel) in all_kernels().into_iter().enumerate() {
        let tm = TestModel::random(kernel, 5, 7, 3, i % 2 == 0, 100 + i as u64);
        let w = words(&tm);
        let model = loaded(&w);
        for _ in 0..n_inputs {
            let x = g.vec(5, 2.0);
            let mut flag = 0xEEu8;
            // SAFETY: valid pointers and lengths.
            let st = unsafe { kpca_is_anomaly(&model, x.as_ptr(), 5, &mut flag) };
            assert_eq!(st, KPCA_OK);
            assert!(flag <= 1, "flag {flag}");
            let score = tm.view().anomaly_score(&x).unwrap();
            assert_eq!(flag == 1, score > tm.threshold);
            // Bad inputs in every position: nothing written by any call.
            for (j, bad) in [(0, f32::NAN), (4, f32::INFINITY), (2, f32::NEG_INFINITY)] {
                let mut xb = x.clone();
                xb[j] = bad;
                let mut out = [SENTINEL; 4];
                let mut s = SENTINEL;
                let mut f = 0xEEu8;
                // SAFETY: valid pointers and lengths.
                unsafe {
                    assert_eq!(
                        kpca_project_and_score(&model, xb.as_ptr(), 5, out.as_mut_ptr(), 4, &mut s),
                        KPCA_ERR_NON_FINITE_INPUT
                    );
                    assert_eq!(
                        kpca_is_anomaly(&model, xb.as_ptr(), 5, &mut f),
                        KPCA_ERR_NON_FINITE_INPUT
                    );
                    assert_eq!(
                        kpca_anomaly_score_batch(&model, xb.as_ptr(), 5, out.as_mut_ptr(), 4),
                        KPCA_ERR_NON_FINITE_INPUT
                    );
                }
                assert_eq!((out, s, f), ([SENTINEL; 4], SENTINEL, 0xEE));
            }
        }
    }
}

/// The C entry points on the shapes that reach every projection path
/// (tests/numeric_edges.rs, PATH_SHAPES) give the Rust API's results bit for bit.
#[test]
fn every_projection_path_through_the_c_api_is_the_rust_one() {
    let shapes = [
        (1, 1, 1, false),
        (3, 1, 4, true),
        (4, 5, 4, false),
        (7, 3, 5, true),
        (8, 9, 3, false),
        (8, 2, 16, true),
        (9, 5, 4, false),
        (13, 6, 2, true),
        (17, 4, 16, false),
    ];
    let mut g = Lcg(29);
    for (i, kernel) in path_kernels().into_iter().enumerate() {
        for (j, &(d, m, k, standardized)) in shapes.iter().enumerate() {
            let tm = TestModel::random(kernel, d, m, k, standardized, (10 * i + j) as u64);
            let w = words(&tm);
            let model = loaded(&w);
            let view = tm.view();
            let xs = g.vec(2 * d, 1.3);
            let mut outs = vec![SENTINEL; 2 * k];
            let mut scores = [SENTINEL; 2];
            // SAFETY: valid pointers and lengths; `w` outlives `model`.
            unsafe {
                assert_eq!(
                    kpca_project_batch(&model, xs.as_ptr(), 2 * d, outs.as_mut_ptr(), 2 * k),
                    KPCA_OK
                );
                assert_eq!(
                    kpca_anomaly_score_batch(&model, xs.as_ptr(), 2 * d, scores.as_mut_ptr(), 2),
                    KPCA_OK
                );
            }
            for (r, x) in xs.chunks(d).enumerate() {
                let mut y = vec![SENTINEL; k];
                let mut s = SENTINEL;
                // SAFETY: as above.
                let st = unsafe {
                    kpca_project_and_score(&model, x.as_ptr(), d, y.as_mut_ptr(), k, &mut s)
                };
                assert_eq!(st, KPCA_OK);
                let mut want = vec![0.0f32; k];
                let e = view.project_and_score(x, &mut want).unwrap();
                assert_eq!(y, want, "{kernel:?} d={d} m={m} k={k}");
                assert_eq!(s.to_bits(), e.to_bits());
                assert_eq!(&outs[r * k..(r + 1) * k], &want[..]);
                assert_eq!(scores[r].to_bits(), e.to_bits());
            }
        }
    }
}

#[test]
fn a_copied_model_struct_is_the_same_model() {
    let tm = TestModel::random(Kernel::Rbf { gamma: 0.3 }, 4, 6, 2, true, 9);
    let w = words(&tm);
    let model = loaded(&w);
    let copy: Box<kpca_model> = Box::new(model);
    let x = [0.3f32, -0.2, 0.1, 0.9];
    let (mut a, mut b) = ([0.0f32; 2], [0.0f32; 2]);
    // SAFETY: valid pointers; both structs point into `w`, which outlives them.
    unsafe {
        assert_eq!(
            kpca_project(&model, x.as_ptr(), 4, a.as_mut_ptr(), 2),
            KPCA_OK
        );
        assert_eq!(
            kpca_project(&*copy, x.as_ptr(), 4, b.as_mut_ptr(), 2),
            KPCA_OK
        );
    }
    assert_eq!(a, b);
}

/// A record whose precision is not f32 (an integer model) or whose front end
/// is not "none" is refused by the f32 entry points, each with its own
/// status, the output untouched; the record as loaded projects.
#[test]
fn integer_precision_and_unknown_front_end_are_refused_with_their_statuses() {
    let tm = TestModel::random(Kernel::Rbf { gamma: 0.3 }, 4, 6, 2, true, 9);
    let w = words(&tm);
    let model = loaded(&w);
    assert_eq!(model.precision, KPCA_PRECISION_F32);
    assert_eq!(model.front_end, KPCA_FRONT_END_NONE);
    assert!(model.integer.is_null() && model.front.is_null());
    let x = [0.3f32, -0.2, 0.1, 0.9];
    let q15 = kpca_model {
        precision: KPCA_PRECISION_Q15,
        ..model
    };
    let framed = kpca_model {
        front_end: 1,
        ..model
    };
    for (m, want) in [
        (&model, KPCA_OK),
        (&q15, KPCA_ERR_PRECISION_MISMATCH),
        (&framed, KPCA_ERR_UNKNOWN_FRONT_END),
    ] {
        let (mut a, mut b) = ([SENTINEL; 2], [SENTINEL; 2]);
        // SAFETY: valid pointers; the records point into `w`, which outlives them.
        let (st_any, st_rbf) = unsafe {
            (
                kpca_project(m, x.as_ptr(), 4, a.as_mut_ptr(), 2),
                kpca_rbf_project(m, x.as_ptr(), 4, b.as_mut_ptr(), 2),
            )
        };
        assert_eq!((st_any, st_rbf), (want, want));
        if want != KPCA_OK {
            assert_eq!((a, b), ([SENTINEL; 2], [SENTINEL; 2]), "output written");
        }
    }
}

#[test]
fn one_model_used_from_several_threads_gives_the_same_results() {
    let tm = TestModel::random(Kernel::Laplacian { gamma: 0.4 }, 6, 20, 4, false, 11);
    let w = words(&tm);
    let model = loaded(&w);
    let xs = Lcg(3).vec(6 * 8, 1.5);
    let expected: Vec<[f32; 4]> = xs
        .chunks(6)
        .map(|x| {
            let mut y = [0.0f32; 4];
            tm.view().project(x, &mut y).unwrap();
            y
        })
        .collect();
    let (threads, rounds) = if cfg!(miri) { (2, 1) } else { (4, 50) };
    // kpca_model holds raw pointers; share it by reference through a wrapper.
    struct Shared<'a>(&'a kpca_model);
    // SAFETY: the struct and the blob are only read while the threads run
    // (the library keeps no state and is documented reentrant).
    unsafe impl Sync for Shared<'_> {}
    let shared = Shared(&model);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let m = &shared;
                for _ in 0..rounds {
                    for (x, want) in xs.chunks(6).zip(&expected) {
                        let mut y = [0.0f32; 4];
                        // SAFETY: valid pointers and lengths.
                        let st = unsafe { kpca_project(m.0, x.as_ptr(), 6, y.as_mut_ptr(), 4) };
                        assert_eq!(st, KPCA_OK);
                        assert_eq!(&y, want);
                    }
                }
            });
        }
    });
}

#[test]
fn status_text_is_static_and_total() {
    let codes = if cfg!(miri) {
        vec![i32::MIN, -1, 0, 1, 26, 27, i32::MAX]
    } else {
        (-1000..1000).chain([i32::MIN, i32::MAX]).collect()
    };
    for code in codes {
        let p = kpca_status_str(code);
        assert!(!p.is_null());
        // SAFETY: documented to be a static NUL-terminated string.
        let s = unsafe { std::ffi::CStr::from_ptr(p) }.to_str().unwrap();
        assert!(s.is_ascii() && !s.is_empty());
        assert_eq!(
            s == "unknown status",
            !(0..=kpca_core::Error::ALL.len() as i32).contains(&code),
            "{code}: {s}"
        );
    }
}

/// The header promises "Outputs are written only when the call returns KPCA_OK":
/// a misaligned `score` must not let `out` be written first (it was, until
/// 19c1089).
#[test]
fn project_and_score_with_a_misaligned_score_writes_nothing() {
    let tm = TestModel::random(Kernel::Rbf { gamma: 0.5 }, 3, 5, 2, false, 21);
    let w = words(&tm);
    let model = loaded(&w);
    let x = [0.1f32, 0.2, 0.3];
    let mut out = [SENTINEL; 2];
    let mut raw = [0u32; 4];
    let score = raw.as_mut_ptr().cast::<u8>().wrapping_add(1).cast::<f32>();
    // SAFETY: valid pointers; `score` is misaligned on purpose (refused, never written).
    let st = unsafe { kpca_project_and_score(&model, x.as_ptr(), 3, out.as_mut_ptr(), 2, score) };
    assert_eq!(st, KPCA_ERR_MISALIGNED_BUFFER);
    assert_eq!(out, [SENTINEL; 2], "out written on failure");
    assert_eq!(raw, [0; 4]);
}

/// A caller's array 1..3 bytes past a 4-byte boundary, for `n` floats (or
/// `n` of any 4-byte type): `store` keeps it alive.
fn misaligned(store: &mut Vec<u32>, n: usize, shift: usize) -> *mut u8 {
    *store = vec![0; n + 2];
    store.as_mut_ptr().cast::<u8>().wrapping_add(1 + shift % 3)
}

/// A misaligned input, output, score, getter output, batch array, scratch or
/// threshold is reported as a misaligned caller buffer (its own status, whose
/// text names those arrays), not as the blob's misalignment; the blob keeps
/// `KPCA_ERR_MISALIGNED`. Nothing is written on any of these failures (the
/// recalibration's blob included: a misaligned threshold used to be found only
/// after the blob had been rewritten).
#[test]
fn each_misaligned_caller_buffer_has_its_own_status() {
    let want = KPCA_ERR_MISALIGNED_BUFFER;
    let tm = TestModel::random(Kernel::Rbf { gamma: 0.5 }, 3, 5, 2, false, 23);
    let mut w = words(&tm);
    let model = loaded(&w);
    let x = [0.1f32, 0.2, 0.3];
    let mut out = [SENTINEL; 6];
    let mut score = SENTINEL;
    let mut flag = 7u8;
    for shift in 0..3 {
        let mut store = Vec::new();
        let mis = misaligned(&mut store, 6, shift);
        let (mx, mf) = (mis.cast_const().cast::<f32>(), mis.cast::<f32>());
        let o = out.as_mut_ptr();
        // SAFETY: valid pointers or misaligned ones (refused, never dereferenced).
        let statuses = unsafe {
            [
                kpca_project(&model, mx, 3, o, 2),
                kpca_project(&model, mx, 0, o, 2),
                kpca_project(&model, x.as_ptr(), 3, mf, 2),
                kpca_anomaly_score(&model, mx, 3, &mut score),
                kpca_anomaly_score(&model, x.as_ptr(), 3, mf),
                kpca_project_and_score(&model, mx, 3, o, 2, &mut score),
                kpca_project_and_score(&model, x.as_ptr(), 3, mf, 2, &mut score),
                kpca_project_and_score(&model, x.as_ptr(), 3, o, 2, mf),
                kpca_is_anomaly(&model, mx, 3, &mut flag),
                kpca_project_batch(&model, mx, 3, o, 2),
                kpca_project_batch(&model, x.as_ptr(), 3, mf, 2),
                kpca_anomaly_score_batch(&model, mx, 3, o, 1),
                kpca_anomaly_score_batch(&model, x.as_ptr(), 3, mf, 1),
                kpca_rbf_project(&model, mx, 3, o, 2),
                kpca_model_threshold(&model, mf),
                kpca_model_kernel(&model, mis.cast::<u32>()),
            ]
        };
        for (i, st) in statuses.into_iter().enumerate() {
            assert_eq!(st, want, "call {i}, shift {shift}");
        }
        assert_eq!(out, [SENTINEL; 6]);
        assert_eq!((score, flag), (SENTINEL, 7));
        assert!(
            store.iter().all(|&v| v == 0),
            "written through a misaligned pointer"
        );
        // The recalibration: misaligned vectors, scratch and threshold.
        let before = w.clone();
        let xs = [0.1f32, 0.2, 0.3, 0.4, 0.5, 0.6];
        let (mut scratch, mut t) = ([0f32; 2], SENTINEL);
        let blob = w.as_mut_ptr().cast::<u8>();
        let len = w.len() * 4;
        // SAFETY: as above; the blob is `w`, valid for `len` bytes.
        let statuses = unsafe {
            [
                kpca_recalibrate(blob, len, mx, 6, 0.5, scratch.as_mut_ptr(), 2, &mut t),
                kpca_recalibrate(blob, len, xs.as_ptr(), 6, 0.5, mf, 2, &mut t),
                kpca_recalibrate(blob, len, xs.as_ptr(), 6, 0.5, scratch.as_mut_ptr(), 2, mf),
            ]
        };
        assert_eq!(statuses, [want; 3], "shift {shift}");
        assert_eq!(w, before, "blob rewritten on failure");
        assert_eq!(t, SENTINEL);
    }
    // The blob itself keeps its status.
    let mut store = Vec::new();
    let mis = misaligned(&mut store, w.len(), 0);
    // SAFETY: `mis` is valid for the blob's bytes (w.len() + 1 words after it).
    unsafe { std::ptr::copy_nonoverlapping(w.as_ptr().cast::<u8>(), mis, w.len() * 4) };
    assert_eq!(try_load(mis, w.len() * 4).0, KPCA_ERR_MISALIGNED);
    // SAFETY: static NUL-terminated string.
    let text = unsafe { std::ffi::CStr::from_ptr(kpca_status_str(want)) }.to_str();
    let text = text.unwrap();
    for word in ["input", "output", "score"] {
        assert!(text.contains(word), "{text:?} should name the {word}");
    }
    assert!(!text.contains("blob"), "{text:?}");
}
