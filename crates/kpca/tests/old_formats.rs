//! Blobs of older format versions (testdata/format-v1, written by the format-1
//! writer) load with the current loader and project to the numbers that
//! writer's version computed.

use kpca::{FitInfo, ModelRef};
use kpca_testkit::AlignedBlob;

/// Largest difference from the old version's output, relative to each
/// column's largest magnitude: the projection code may be rearranged between
/// versions (other rounding), never its results.
const OLD_OUTPUT_REL_TOL: f32 = 1e-5;

fn floats(line: &str) -> Vec<f32> {
    line.split(',')
        .map(|v| v.trim().parse::<f32>().expect("an f32"))
        .collect()
}

#[test]
fn format_1_blobs_load_and_project_as_they_did() {
    // Compiled in (not read at run time), so that Miri runs this test too.
    let test = include_str!("../../../testdata/format-v1/test.csv");
    let rows: Vec<Vec<f32>> = test.lines().map(floats).collect();
    assert_eq!(rows.len(), 20);
    let cases: [(&str, &[u8], &str); 2] = [
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
    ];
    for (name, bytes, want) in cases {
        let blob = AlignedBlob::from_bytes(bytes);
        assert_eq!(kpca::Header::parse(&blob).expect("header").version, 1);
        let model = ModelRef::from_bytes(&blob).expect("a format-1 blob loads");
        assert_eq!(model.fit_info(), FitInfo::NOT_RECORDED, "{name}");
        let want: Vec<Vec<f32>> = want.lines().map(floats).collect();
        assert_eq!(want.len(), rows.len());
        let k = model.n_components();
        let mut scale = vec![0.0f32; k + 1];
        for w in &want {
            for (s, v) in scale.iter_mut().zip(w) {
                *s = s.max(v.abs());
            }
        }
        for (x, w) in rows.iter().zip(&want) {
            let mut y = vec![0.0f32; k];
            let e = model.project_and_score(x, &mut y).expect("project");
            y.push(e);
            for ((got, want), s) in y.iter().zip(w).zip(&scale) {
                // A NaN difference fails the comparison too.
                let err = (got - want).abs();
                assert!(err <= OLD_OUTPUT_REL_TOL * s, "{name}: {got} vs {want}");
            }
        }
    }
}
