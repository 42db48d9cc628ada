//! The optional model sections (pre-image map and regression head): the
//! device's `reconstruct` and `predict` against f64 formulas, the blob round
//! trip with sections, and every rejection of a hostile section table.

use kpca_core::crc32::crc32;
use kpca_core::format::{blob_len_for, FLAG_SECTIONS, SECTION_PREIMAGE, SECTION_REGRESSION};
use kpca_core::{Error, Header, Heads, ModelRef, PreImageParts, RegressionParts, MAX_TARGETS};
use kpca_testkit::{all_kernels, AlignedBytes, Lcg, TestModel};

/// f32 result against the f64 formula, relative to the sum of the magnitudes
/// of its terms (the scale its rounding is relative to).
const HEAD_REL_TOL: f64 = 2e-5;

/// Random pre-image and regression sections for `model` (n pre-image rows,
/// t targets), owned.
struct TestHeads {
    scores: Vec<f32>,
    coef: Vec<f32>,
    weights: Vec<f32>,
    intercept: Vec<f32>,
}

impl TestHeads {
    fn random(model: &TestModel, n: usize, t: usize, seed: u64) -> TestHeads {
        let mut g = Lcg(seed);
        TestHeads {
            scores: g.vec(n * model.k, 0.8),
            coef: g.vec((n + 1) * model.dim, 1.5),
            weights: g.vec(model.k * t, 2.0),
            intercept: g.vec(t, 3.0),
        }
    }

    fn heads(&self) -> Heads<'_> {
        Heads {
            preimage: Some(PreImageParts {
                scores: &self.scores,
                coef: &self.coef,
            }),
            regression: Some(RegressionParts {
                weights: &self.weights,
                intercept: &self.intercept,
            }),
        }
    }
}

/// x-hat of the f64 formulas: sum_i k(y, t_i) beta_i plus the offset row, with
/// the scale of each output (the sum of its terms' magnitudes).
fn reference_reconstruct(model: &TestModel, h: &TestHeads, x: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let (y, _) = model.reference(x);
    let (d, k) = (model.dim, model.k);
    let mut sums = vec![0.0f64; d];
    let mut scale = vec![0.0f64; d];
    for (t, beta) in h.scores.chunks(k).zip(h.coef.chunks(d)) {
        let t: Vec<f64> = t.iter().map(|&v| v as f64).collect();
        let kv = model.kernel64(&y, &t);
        for ((s, sc), &b) in sums.iter_mut().zip(&mut scale).zip(beta) {
            *s += kv * b as f64;
            *sc += (kv * b as f64).abs() + kv.abs();
        }
    }
    let offset = &h.coef[h.coef.len() - d..];
    for ((s, sc), &o) in sums.iter_mut().zip(&mut scale).zip(offset) {
        *s += o as f64;
        *sc += (o as f64).abs();
    }
    (sums, scale)
}

fn reference_predict(model: &TestModel, h: &TestHeads, x: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let (y, _) = model.reference(x);
    let t = h.intercept.len();
    let mut p: Vec<f64> = h.intercept.iter().map(|&v| v as f64).collect();
    let mut scale: Vec<f64> = p.iter().map(|v| v.abs()).collect();
    for (yl, row) in y.iter().zip(h.weights.chunks(t)) {
        for ((pj, sj), &w) in p.iter_mut().zip(&mut scale).zip(row) {
            *pj += yl * w as f64;
            *sj += (yl * w as f64).abs() + yl.abs();
        }
    }
    (p, scale)
}

fn assert_close(what: &str, got: &[f32], want: &[f64], scale: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for ((&g, &w), &s) in got.iter().zip(want).zip(scale) {
        let err = (g as f64 - w).abs();
        // A NaN difference fails too.
        assert!(
            err <= HEAD_REL_TOL * (1.0 + s),
            "{what}: {g} vs {w} (scale {s})"
        );
    }
}

#[test]
fn reconstruct_and_predict_match_the_f64_formulas_for_every_kernel() {
    let mut g = Lcg(5);
    for kernel in all_kernels() {
        for &(d, m, k, n, t, standardized) in &[
            (3, 7, 2, 9, 1, false),
            (8, 20, 4, 30, 3, true),
            (70, 12, 5, 15, 2, false),
            (5, 9, 16, 11, MAX_TARGETS, true),
        ] {
            let model = TestModel::random(kernel, d, m, k, standardized, (d * 7 + n) as u64);
            let h = TestHeads::random(&model, n, t, (m + t) as u64);
            let view = model.view().with_heads(h.heads()).expect("valid sections");
            assert_eq!((view.n_preimage_rows(), view.n_targets()), (n, t));
            let x = g.vec(d, 1.0);
            let mut xhat = vec![0.0f32; d];
            view.reconstruct(&x, &mut xhat).expect("reconstruct");
            let (want, scale) = reference_reconstruct(&model, &h, &x);
            assert_close(
                &format!("{kernel:?} d={d} reconstruct"),
                &xhat,
                &want,
                &scale,
            );
            let mut p = vec![0.0f32; t];
            view.predict(&x, &mut p).expect("predict");
            let (want, scale) = reference_predict(&model, &h, &x);
            assert_close(&format!("{kernel:?} d={d} predict"), &p, &want, &scale);
        }
    }
}

#[test]
fn a_model_without_sections_says_so_and_writes_nothing() {
    let model = TestModel::random(kpca_core::Kernel::Rbf { gamma: 0.5 }, 4, 6, 2, false, 1);
    let view = model.view();
    let mut out = [7.0f32; 4];
    assert_eq!(
        view.reconstruct(&[0.1; 4], &mut out),
        Err(Error::NoPreImage)
    );
    assert_eq!(view.predict(&[0.1; 4], &mut out), Err(Error::NoRegression));
    assert_eq!(out, [7.0; 4]);
    // One section without the other.
    let h = TestHeads::random(&model, 5, 2, 3);
    let only_reg = view
        .with_heads(Heads {
            preimage: None,
            ..h.heads()
        })
        .unwrap();
    assert_eq!(
        only_reg.reconstruct(&[0.1; 4], &mut out),
        Err(Error::NoPreImage)
    );
    assert!(only_reg.predict(&[0.1; 4], &mut out).is_ok());
    let mut short = [0.0f32; 1];
    assert_eq!(
        only_reg.predict(&[0.1; 4], &mut short),
        Err(Error::OutputLength)
    );
    assert_eq!(
        only_reg.predict(&[0.1; 3], &mut out),
        Err(Error::InputLength)
    );
    assert_eq!(
        only_reg.predict(&[f32::NAN; 4], &mut out),
        Err(Error::NonFiniteInput)
    );
}

#[test]
fn bad_sections_are_refused_when_attached() {
    let model = TestModel::random(kpca_core::Kernel::Linear, 3, 5, 2, false, 2);
    let h = TestHeads::random(&model, 4, 2, 9);
    let view = model.view();
    let pre = |scores: &'static [f32], coef: &'static [f32]| Heads {
        preimage: Some(PreImageParts { scores, coef }),
        regression: None,
    };
    let reg = |weights: &'static [f32], intercept: &'static [f32]| Heads {
        preimage: None,
        regression: Some(RegressionParts { weights, intercept }),
    };
    assert_eq!(
        view.with_heads(pre(&[], &[])).err(),
        Some(Error::ZeroDimension)
    );
    assert_eq!(
        view.with_heads(pre(&[1.0; 3], &[1.0; 6])).err(),
        Some(Error::PartsLength)
    );
    assert_eq!(
        view.with_heads(pre(&[1.0; 2], &[1.0; 7])).err(),
        Some(Error::PartsLength)
    );
    assert_eq!(
        view.with_heads(pre(&[f32::NAN, 1.0], &[1.0; 6])).err(),
        Some(Error::NonFiniteModel)
    );
    assert_eq!(
        view.with_heads(reg(&[], &[])).err(),
        Some(Error::ZeroDimension)
    );
    assert_eq!(
        view.with_heads(reg(&[1.0; 3], &[1.0; 2])).err(),
        Some(Error::PartsLength)
    );
    assert_eq!(
        view.with_heads(reg(&[1.0; 34], &[1.0; 17])).err(),
        Some(Error::DimensionTooLarge)
    );
    assert_eq!(
        view.with_heads(reg(&[f32::INFINITY; 2], &[1.0])).err(),
        Some(Error::NonFiniteModel)
    );
    // Attaching no sections drops those attached.
    let with = view.with_heads(h.heads()).unwrap();
    let without = with.with_heads(Heads::NONE).unwrap();
    assert!(without.heads().is_empty());
    assert_eq!(without.blob_len(), model.blob().len());
}

#[test]
fn blobs_with_sections_round_trip_exactly() {
    for (i, kernel) in all_kernels().into_iter().enumerate() {
        let model = TestModel::random(kernel, 5, 8, 3, i % 2 == 1, 40 + i as u64);
        let h = TestHeads::random(&model, 6, 2, 50 + i as u64);
        for heads in [
            h.heads(),
            Heads {
                regression: None,
                ..h.heads()
            },
            Heads {
                preimage: None,
                ..h.heads()
            },
        ] {
            let view = model.view().with_heads(heads).unwrap();
            let mut blob = AlignedBytes::zeroed(view.blob_len());
            assert_eq!(view.write_to(&mut blob), Ok(blob.len()));
            let core = blob_len_for(5, 8, 3, i % 2 == 1).unwrap();
            let words = heads.preimage.map_or(0, |_| 2 + 6 * 3 + 7 * 5)
                + heads.regression.map_or(0, |_| 2 + 2 * (3 + 1));
            assert_eq!(blob.len(), core + 4 * words);
            let header = Header::parse(&blob).unwrap();
            assert_eq!(header.version, 4);
            assert_ne!(header.flags & FLAG_SECTIONS, 0);
            let loaded = ModelRef::from_bytes(&blob).expect("loads");
            assert_eq!(loaded.heads(), heads);
            // The writer's record of the blob is the loader's, pointer for pointer.
            let written = view.record_in(&blob).expect("the written layout");
            assert_eq!(format!("{written:?}"), format!("{:?}", loaded.as_raw()));
            assert_eq!(
                view.record_in(&blob[..8]).err(),
                Some(Error::LengthMismatch)
            );
            let x = [0.3f32, -0.2, 0.9, 0.0, 1.1];
            let (mut a, mut b) = ([0.0f32; 5], [0.0f32; 5]);
            if heads.preimage.is_some() {
                view.reconstruct(&x, &mut a).unwrap();
                loaded.reconstruct(&x, &mut b).unwrap();
                assert_eq!(a, b);
            }
            if heads.regression.is_some() {
                view.predict(&x, &mut a).unwrap();
                loaded.predict(&x, &mut b).unwrap();
                assert_eq!(a, b);
            }
        }
        // Without sections the flag stays clear and the blob is the core's.
        let plain = model.blob();
        assert_eq!(Header::parse(&plain).unwrap().flags & FLAG_SECTIONS, 0);
    }
}

/// The blob of `model` with `words` (u32 bit patterns) as its section table,
/// the flag set or not, the CRC recomputed.
fn with_table(model: &TestModel, words: &[u32], flag: bool) -> AlignedBytes {
    let core = model.blob();
    let mut bytes = core[..core.len() - 4].to_vec();
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    let mut header = Header::parse(&bytes).unwrap();
    if flag {
        header.flags |= FLAG_SECTIONS;
    }
    header.total_len = (bytes.len() + 4) as u32;
    let mut head = [0u8; kpca_core::format::HEADER_LEN];
    header.write_to(&mut head);
    bytes[..head.len()].copy_from_slice(&head);
    let crc = crc32(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    AlignedBytes::from_bytes(&bytes)
}

#[test]
fn every_hostile_section_table_has_its_error() {
    let model = TestModel::random(kpca_core::Kernel::Rbf { gamma: 0.7 }, 2, 4, 2, false, 8);
    let one = 1.0f32.to_bits();
    // A valid table: regression, t = 1, k = 2 weights and one intercept.
    let good = [SECTION_REGRESSION, 1, one, one, one];
    assert!(ModelRef::from_bytes(&with_table(&model, &good, true)).is_ok());
    // A pre-image map of one point: k = 2 scores, (1 + 1) x d = 4 coefficients.
    let pre = [SECTION_PREIMAGE, 1, one, one, one, one, one, one];
    assert!(ModelRef::from_bytes(&with_table(&model, &pre, true)).is_ok());
    let cases: Vec<(&str, Vec<u32>, bool, Error)> = vec![
        ("flag with no table", vec![], true, Error::LengthMismatch),
        (
            "table with no flag",
            good.to_vec(),
            false,
            Error::LengthMismatch,
        ),
        ("unknown tag", vec![3, 1, one], true, Error::BadSection),
        ("tag zero", vec![0, 1, one], true, Error::BadSection),
        (
            "zero count",
            vec![SECTION_REGRESSION, 0],
            true,
            Error::BadSection,
        ),
        (
            "too many targets",
            vec![SECTION_REGRESSION, 17, one],
            true,
            Error::BadSection,
        ),
        (
            "huge count",
            vec![SECTION_PREIMAGE, u32::MAX, one],
            true,
            Error::BadSection,
        ),
        (
            "count past the data",
            vec![SECTION_PREIMAGE, 2, one, one, one, one, one, one],
            true,
            Error::LengthMismatch,
        ),
        (
            "repeated tag",
            [&good[..], &good[..]].concat(),
            true,
            Error::BadSection,
        ),
        (
            "out of order",
            [&good[..], &pre[..]].concat(),
            true,
            Error::BadSection,
        ),
        (
            "trailing word",
            [&good[..], &[one][..]].concat(),
            true,
            Error::LengthMismatch,
        ),
        (
            "half a header",
            vec![SECTION_REGRESSION],
            true,
            Error::LengthMismatch,
        ),
        (
            "non-finite weight",
            vec![SECTION_REGRESSION, 1, f32::NAN.to_bits(), one, one],
            true,
            Error::NonFiniteModel,
        ),
        (
            "non-finite pre-image",
            vec![
                SECTION_PREIMAGE,
                1,
                one,
                one,
                one,
                f32::INFINITY.to_bits(),
                one,
                one,
            ],
            true,
            Error::NonFiniteModel,
        ),
    ];
    for (what, words, flag, want) in cases {
        let blob = with_table(&model, &words, flag);
        assert_eq!(ModelRef::from_bytes(&blob).err(), Some(want), "{what}");
    }
    // Version 3 did not know the flag: a version-3 header with it is refused.
    let mut blob = with_table(&model, &good, true).to_vec();
    let mut header = Header::parse(&blob).unwrap();
    header.version = 3;
    let mut head = [0u8; kpca_core::format::HEADER_LEN];
    header.write_to(&mut head);
    blob[..head.len()].copy_from_slice(&head);
    let n = blob.len();
    let crc = crc32(&blob[..n - 4]);
    blob[n - 4..].copy_from_slice(&crc.to_le_bytes());
    assert_eq!(
        ModelRef::from_bytes(&AlignedBytes::from_bytes(&blob)).err(),
        Some(Error::BadHeader)
    );
}
