//! `kpca fit --stream`: the file is read in chunks, four times, and the model
//! is the in-memory fit's (same report, projections equal to f32 rounding),
//! from CSV (header, comments, blank lines, more rows than one chunk and
//! more bytes than one read block) and NPY (f64, big-endian f32); bad input
//! is named as the in-memory reader names it; the flags that cannot stream
//! are refused.

mod common;

use common::*;
use kpca_fit::ModelBlob;
use kpca_testkit::col_rel_err;
use std::path::Path;

/// Projections of the streamed model against the in-memory one, relative to
/// each output's scale: f32 outputs of two f64 fits that differ by the
/// rounding of their sums.
const PROJECTION_REL_TOL: f64 = 1e-5;

/// n rows of three offset blobs, d = 3.
fn blobs(n: usize) -> Vec<Vec<f64>> {
    let mut next = kpca_testkit::uniform_stream(42);
    (0..n)
        .map(|i| {
            let c = (i % 3) as f64;
            vec![100.0 + c + next(), -3.0 * c + next(), 0.5 * next()]
        })
        .collect()
}

/// An NPY file of `rows` with dtype `descr` ('<f8' or '>f4').
fn write_npy(path: &Path, rows: &[Vec<f64>], descr: &str) {
    let d = rows[0].len();
    let dict = format!(
        "{{'descr': '{descr}', 'fortran_order': False, 'shape': ({}, {d}), }}",
        rows.len()
    );
    let mut header = dict.into_bytes();
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(&header);
    for v in rows.iter().flatten() {
        match descr {
            "<f8" => bytes.extend_from_slice(&v.to_le_bytes()),
            ">f4" => bytes.extend_from_slice(&(*v as f32).to_be_bytes()),
            _ => panic!("descr {descr}"),
        }
    }
    std::fs::write(path, bytes).expect("npy written");
}

/// The report lines that describe the fit (not the output, time or stream lines).
fn fit_lines(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| {
            !l.starts_with("model:") && !l.starts_with("time:") && !l.starts_with("streamed:")
        })
        .map(str::to_string)
        .collect()
}

/// Largest difference of the two models' projections and anomaly scores
/// over `rows`, relative to each output's largest magnitude; NaN when any
/// output of either model is NaN.
fn model_difference(a: &Path, b: &Path, rows: &[Vec<f64>]) -> f64 {
    let (ba, bb) = (ModelBlob::read(a).unwrap(), ModelBlob::read(b).unwrap());
    let (ma, mb) = (ba.model(), bb.model());
    let k = ma.n_components();
    // Row-major outputs, k projections and the anomaly score per row.
    let (mut outs_a, mut outs_b) = (Vec::new(), Vec::new());
    for row in rows.iter().step_by(97) {
        let x: Vec<f32> = row.iter().map(|&v| v as f32).collect();
        for (model, outs) in [(&ma, &mut outs_a), (&mb, &mut outs_b)] {
            let mut y = vec![0.0f32; k];
            model.project(&x, &mut y).unwrap();
            y.push(model.anomaly_score(&x).unwrap());
            outs.extend(y.iter().map(|&v| f64::from(v)));
        }
    }
    col_rel_err(&outs_a, &outs_b, k + 1)
}

#[test]
fn a_streamed_fit_gives_the_in_memory_model_from_csv_and_npy() {
    let dir = tempfile::tempdir().unwrap();
    let rows = blobs(150_000);
    let csv = dir.path().join("train.csv");
    let mut text = String::from("# sensor log\nx,y,z\n\n");
    for (i, r) in rows.iter().enumerate() {
        text += &format!("{:?},{:?},{:?}", r[0], r[1], r[2]);
        text += if i % 1000 == 0 {
            "  # a comment\n\n"
        } else {
            "\n"
        };
    }
    assert!(text.len() > (4 << 20), "more than one read block");
    std::fs::write(&csv, text).unwrap();
    let npy = dir.path().join("train.npy");
    write_npy(&npy, &rows, "<f8");
    let f32be = dir.path().join("train_f4.npy");
    write_npy(&f32be, &rows, ">f4");
    for input in [&csv, &npy, &f32be] {
        let fit = |stream: bool, out: &Path| {
            let mut args = vec![
                "fit",
                "--input",
                input.to_str().unwrap(),
                "--kernel",
                "rbf",
                "--components",
                "3",
                "--nystrom",
                "60",
                "--standardize",
                "--output",
                out.to_str().unwrap(),
            ];
            if stream {
                args.push("--stream");
            }
            ok(&args)
        };
        let (mem, streamed) = (dir.path().join("mem.kpca"), dir.path().join("str.kpca"));
        let report_mem = fit(false, &mem);
        let report_str = fit(true, &streamed);
        assert!(report_str.contains("streamed: "), "{report_str}");
        assert_eq!(
            fit_lines(&report_str),
            fit_lines(&report_mem),
            "{}",
            input.display()
        );
        let diff = model_difference(&streamed, &mem, &rows);
        assert!(diff <= PROJECTION_REL_TOL, "{}: {diff:e}", input.display());
    }
}

#[test]
fn the_streamed_report_says_what_needs_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("train.npy");
    write_npy(&npy, &blobs(3000), "<f8");
    let (model, report) = (dir.path().join("m.kpca"), dir.path().join("r.json"));
    ok(&[
        "fit",
        "--input",
        npy.to_str().unwrap(),
        "--kernel",
        "rbf",
        "--components",
        "2",
        "--nystrom",
        "40",
        "--stream",
        "--output",
        model.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(json["n_train"], 3000);
    assert!(json["reconstruction_errors"].is_null());
    let why = json["reconstruction_errors_undefined"].as_str().unwrap();
    assert!(why.contains("training data"), "{why}");
    assert_eq!(json["eigenvalues"].as_array().unwrap().len(), 2);
}

#[test]
fn bad_rows_are_named_as_the_in_memory_reader_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let fit = |path: &Path| {
        run(&[
            "fit",
            "--input",
            path.to_str().unwrap(),
            "--kernel",
            "rbf",
            "--components",
            "2",
            "--nystrom",
            "10",
            "--stream",
            "--output",
            dir.path().join("m.kpca").to_str().unwrap(),
        ])
    };
    let mut rows = blobs(20_000);
    let csv = dir.path().join("nan.csv");
    let mut text: String = rows
        .iter()
        .map(|r| format!("{},{},{}\n", r[0], r[1], r[2]))
        .collect();
    text += "1,nan,2\n";
    std::fs::write(&csv, &text).unwrap();
    let (code, _, err) = fit(&csv);
    assert_eq!(code, 1);
    assert!(
        err.contains("line 20001, column 2") && err.contains("NaN"),
        "{err}"
    );
    std::fs::write(&csv, format!("{text}1,2\n").replace("1,nan,2\n", "")).unwrap();
    let (code, _, err) = fit(&csv);
    assert_eq!(code, 1);
    assert!(err.contains("line 20001: ragged row"), "{err}");
    rows[17_000][2] = 1e300;
    let npy = dir.path().join("big.npy");
    write_npy(&npy, &rows, "<f8");
    let (code, _, err) = fit(&npy);
    assert_eq!(code, 1);
    assert!(
        err.contains("row 17001 (numpy index 17000)") && err.contains("f32"),
        "{err}"
    );
    let bytes = std::fs::read(&npy).unwrap();
    std::fs::write(&npy, &bytes[..bytes.len() - 8]).unwrap();
    let (code, _, err) = fit(&npy);
    assert_eq!(code, 1);
    assert!(err.contains("truncated"), "{err}");
}

#[test]
fn flags_that_cannot_stream_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("train.npy");
    write_npy(&npy, &blobs(100), "<f8");
    let input = npy.to_str().unwrap();
    let out = dir.path().join("m.kpca");
    let base = [
        "fit",
        "--kernel",
        "rbf",
        "--components",
        "2",
        "--output",
        out.to_str().unwrap(),
        "--stream",
    ];
    let cases: [(&[&str], &str); 3] = [
        (&["--input", input], "needs --nystrom"),
        (&["--input", "-", "--nystrom", "10"], "standard input"),
        (
            &["--input", input, "--nystrom", "10", "--target", input],
            "--target",
        ),
    ];
    for (extra, says) in cases {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
