//! Blobs of older format versions (testdata/format-v1 and format-v2, written
//! by those versions' writers) load with the current loader and project to
//! the numbers that writer's version computed.

use kpca_core::{FitInfo, ModelRef};
use kpca_testkit::AlignedBytes;

/// Largest difference from the old version's output, relative to each
/// column's largest magnitude: the projection code may be rearranged between
/// versions (other rounding), never its results.
const OLD_OUTPUT_REL_TOL: f32 = 1e-5;

fn floats(line: &str) -> Vec<f32> {
    line.split(',')
        .map(|v| v.trim().parse::<f32>().expect("an f32"))
        .collect()
}

/// Each blob of `cases` (name, bytes, the old version's output) has format
/// `version`, loads, and projects the 20 test rows as that version did.
fn check_old_blobs(version: u16, cases: &[(&str, &[u8], &str)]) -> Vec<FitInfo> {
    // Compiled in (not read at run time), so that Miri runs this test too.
    let test = include_str!("../../../testdata/format-v1/test.csv");
    let rows: Vec<Vec<f32>> = test.lines().map(floats).collect();
    assert_eq!(rows.len(), 20);
    let mut records = Vec::new();
    for &(name, bytes, want) in cases {
        let blob = AlignedBytes::from_bytes(bytes);
        assert_eq!(
            kpca_core::Header::parse(&blob).expect("header").version,
            version
        );
        let model = ModelRef::from_bytes(&blob).expect("an old blob loads");
        records.push(model.fit_info());
        let want: Vec<Vec<f32>> = want.lines().map(floats).collect();
        assert_eq!(want.len(), rows.len());
        let k = model.n_components();
        // Each output's largest magnitude, NaN when any is NaN.
        let scale: Vec<f32> = (0..=k)
            .map(|l| {
                let column = want
                    .iter()
                    .map(|w| w.get(l).map_or(f64::NAN, |v| f64::from(v.abs())));
                kpca_testkit::max_of(column) as f32
            })
            .collect();
        for (x, w) in rows.iter().zip(&want) {
            let mut y = vec![0.0f32; k];
            let e = model.project_and_score(x, &mut y).expect("project");
            y.push(e);
            assert_eq!(y.len(), w.len(), "{name}: columns");
            for ((got, want), s) in y.iter().zip(w).zip(&scale) {
                // A NaN difference fails the comparison too.
                let err = (got - want).abs();
                assert!(err <= OLD_OUTPUT_REL_TOL * s, "{name}: {got} vs {want}");
            }
        }
    }
    records
}

#[test]
fn format_1_blobs_load_and_project_as_they_did() {
    let records = check_old_blobs(
        1,
        &[
            (
                "full_rbf",
                include_bytes!("../../../testdata/format-v1/full_rbf.kpca"),
                include_str!("../../../testdata/format-v1/full_rbf.scores.csv"),
            ),
            (
                "nystrom_poly",
                include_bytes!("../../../testdata/format-v1/nystrom_poly.kpca"),
                include_str!("../../../testdata/format-v1/nystrom_poly.scores.csv"),
            ),
        ],
    );
    assert!(records.iter().all(|r| *r == FitInfo::NOT_RECORDED));
}

#[test]
fn format_2_blobs_load_and_project_as_they_did() {
    let records = check_old_blobs(
        2,
        &[
            (
                "full_linear",
                include_bytes!("../../../testdata/format-v2/full_linear.kpca"),
                include_str!("../../../testdata/format-v2/full_linear.scores.csv"),
            ),
            (
                "nystrom_cosine",
                include_bytes!("../../../testdata/format-v2/nystrom_cosine.kpca"),
                include_str!("../../../testdata/format-v2/nystrom_cosine.scores.csv"),
            ),
        ],
    );
    assert_eq!(records[0].n_train, 128);
    assert_eq!(records[1].method, kpca_core::FitMethod::Nystrom);
}

#[test]
fn format_3_blobs_load_and_project_as_they_did() {
    let records = check_old_blobs(
        3,
        &[
            (
                "full_rbf_centred",
                include_bytes!("../../../testdata/format-v3/full_rbf_centred.kpca"),
                include_str!("../../../testdata/format-v3/full_rbf_centred.scores.csv"),
            ),
            (
                "full_linear_map",
                include_bytes!("../../../testdata/format-v3/full_linear_map.kpca"),
                include_str!("../../../testdata/format-v3/full_linear_map.scores.csv"),
            ),
            (
                "nystrom_laplacian",
                include_bytes!("../../../testdata/format-v3/nystrom_laplacian.kpca"),
                include_str!("../../../testdata/format-v3/nystrom_laplacian.scores.csv"),
            ),
        ],
    );
    assert_eq!(records[0].n_train, 128);
    assert_eq!(records[2].method, kpca_core::FitMethod::Nystrom);
}
