//! Standard output and exit codes of every subcommand, running the binary:
//! `-` writes the main output to standard output and moves the report to
//! standard error; a closed standard output (the reader of a pipe gone, as in
//! `| head -1`) ends every subcommand quietly with exit 0; and each
//! subcommand exits 0 on success, 1 on bad input and 2 on a usage error, as
//! docs/COMMAND-LINE.md says.
//!
//! A closed pipe is made without a shell: the child's standard output is a
//! pipe whose read end the test drops right after the spawn, and the child
//! reads its data from standard input, which the test writes only after that,
//! so the child cannot write anything before the pipe is closed.

mod common;

use common::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs with standard output a pipe whose read end is already closed, and
/// `stdin` as standard input; returns (exit code, stderr).
fn run_into_closed_pipe(args: &[&str], stdin: &[u8]) -> (Option<i32>, String) {
    let mut child = kpca()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kpca starts");
    drop(child.stdout.take().expect("stdout is piped"));
    let mut input = child.stdin.take().expect("stdin is piped");
    // The child may stop (quietly) before reading everything.
    let _ = input.write_all(stdin);
    drop(input);
    let out = child.wait_with_output().expect("kpca finishes");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A training set: a noisy ring in 2 of 4 features.
fn train_csv() -> String {
    let mut text = String::from("a,b,c,d\n");
    for i in 0..60 {
        let t = f64::from(i) * 0.41;
        let noise = f64::from((i * 37) % 11) / 11.0 - 0.5;
        text += &format!(
            "{:?},{:?},{:?},{:?}\n",
            t.cos() + 0.05 * noise,
            2.0 * t.sin(),
            0.3 * noise,
            0.1 * f64::from(i % 5)
        );
    }
    text
}

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    /// A directory with train.csv and a fitted model.kpca.
    fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("train.csv"), train_csv()).expect("written");
        let fx = Fixture { dir };
        let (code, _, stderr) = run(&[
            "fit",
            "--input",
            &fx.p("train.csv"),
            "--kernel",
            "rbf",
            "--gamma",
            "0.5",
            "--components",
            "2",
            "--standardize",
            "--output",
            &fx.p("model.kpca"),
        ]);
        assert_eq!(code, 0, "{stderr}");
        fx
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn p(&self, name: &str) -> String {
        self.path(name).to_str().expect("utf-8 path").to_string()
    }
    fn bytes(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }
}

const FIT: [&str; 8] = [
    "--kernel",
    "rbf",
    "--gamma",
    "0.5",
    "--components",
    "2",
    "--standardize",
    "-q",
];

fn assert_quiet_exit_0(what: &str, (code, stderr): (Option<i32>, String)) {
    assert_eq!(code, Some(0), "{what}: exit {code:?}, stderr:\n{stderr}");
    assert_eq!(stderr, "", "{what}: a closed stdout must end quietly");
}

#[test]
fn fit_output_dash_writes_the_blob_to_stdout_and_the_report_to_stderr() {
    let fx = Fixture::new();
    let mut args = vec!["fit", "--input", "-", "--output", "-"];
    args.extend_from_slice(&FIT[..7]);
    let out = run_with_stdin(&args, train_csv().as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The same model as the file written by the fixture, byte for byte.
    assert_eq!(out.stdout, fx.bytes("model.kpca"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("explained variance ratio"), "{stderr}");
    assert!(stderr.contains("model: <stdout> ("), "{stderr}");
    assert!(!fx.path("-").exists(), "no file named '-'");
}

#[test]
fn plot_output_dash_writes_the_svg_to_stdout() {
    let fx = Fixture::new();
    let model = fx.p("model.kpca");
    let out = run_with_stdin(
        &["plot", "--model", &model, "--input", "-", "--output", "-"],
        train_csv().as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8(out.stdout).expect("utf-8 SVG");
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
    roxmltree::Document::parse(&svg).expect("the SVG on stdout is valid XML");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("wrote <stdout>"), "{stderr}");
    // Only one of the two SVGs can go to standard output.
    let (code, _, stderr) = run(&[
        "plot",
        "--model",
        &model,
        "--input",
        &fx.p("train.csv"),
        "--output",
        "-",
        "--scree-output",
        "-",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("only one of them can be standard output"),
        "{stderr}"
    );
}

#[test]
fn export_output_dir_dash_writes_one_file_to_stdout() {
    let fx = Fixture::new();
    let model = fx.p("model.kpca");
    let blob = fx.bytes("model.kpca");
    let out = run_with_stdin(
        &[
            "export",
            "--model",
            "-",
            "--format",
            "blob",
            "--output-dir",
            "-",
        ],
        &blob,
    );
    assert!(out.status.success());
    assert_eq!(out.stdout, blob);
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote <stdout>"));
    // Rust: the same text as the file export.
    let dir = fx.path("rs");
    let (code, _, _) = run(&[
        "export",
        "--model",
        &model,
        "--format",
        "rust",
        "--name",
        "m",
        "--output-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let (code, stdout, _) = run(&[
        "export",
        "--model",
        &model,
        "--format",
        "rust",
        "--name",
        "m",
        "--output-dir",
        "-",
    ]);
    assert_eq!(code, 0);
    assert_eq!(stdout.as_bytes(), std::fs::read(dir.join("m.rs")).unwrap());
    // C: the header, then the source without its #include of the header.
    let (code, stdout, _) = run(&[
        "export",
        "--model",
        &model,
        "--format",
        "c",
        "--name",
        "m",
        "--output-dir",
        "-",
    ]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("extern const uint8_t m_blob[];"),
        "{stdout}"
    );
    assert!(
        stdout.contains("const size_t m_blob_len = M_BLOB_LEN;"),
        "{stdout}"
    );
    assert!(!stdout.contains("#include \"m.h\""), "{stdout}");
    compiles_as_c(&fx.path("one.c"), &stdout);
}

/// The text compiles as one C99 translation unit with strict warnings
/// (`include/` on the path: the generated header includes kpca.h).
fn compiles_as_c(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let status = Command::new("cc")
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Wpedantic",
            "-Werror",
            "-c",
            "-I",
        ])
        .arg(kpca_testkit::repo_root().join("include"))
        .arg("-o")
        .arg(path.with_extension("o"))
        .arg(path)
        .status()
        .expect("cc runs");
    assert!(status.success(), "the C on stdout does not compile");
}

#[test]
fn a_closed_stdout_ends_every_subcommand_quietly_with_exit_0() {
    let fx = Fixture::new();
    let train = train_csv().into_bytes();
    let blob = fx.bytes("model.kpca");
    let model = fx.p("model.kpca");
    let out_model = fx.p("out.kpca");
    let fit_to_stdout = [&["fit", "--input", "-", "--output", "-"][..], &FIT[..7]].concat();
    assert_quiet_exit_0(
        "fit --output -",
        run_into_closed_pipe(&fit_to_stdout, &train),
    );
    // The report on a closed stdout, the model in a file: the file is written.
    let fit_report = [
        &["fit", "--input", "-", "--output", &out_model][..],
        &FIT[..7],
    ]
    .concat();
    assert_quiet_exit_0("fit report", run_into_closed_pipe(&fit_report, &train));
    assert_eq!(fx.bytes("out.kpca"), blob);
    assert_quiet_exit_0("inspect", run_into_closed_pipe(&["inspect", "-"], &blob));
    let export_stdout = ["export", "--model", "-", "--output-dir", "-"];
    assert_quiet_exit_0("export to -", run_into_closed_pipe(&export_stdout, &blob));
    let dir = fx.p("exported");
    let export_report = ["export", "--model", "-", "--output-dir", &dir];
    assert_quiet_exit_0("export report", run_into_closed_pipe(&export_report, &blob));
    assert!(fx.path("exported/kpca_model.c").exists());
    let project = [
        "project",
        "--model",
        &model,
        "--input",
        "-",
        "--anomaly-score",
    ];
    assert_quiet_exit_0("project", run_into_closed_pipe(&project, &train));
    let plot_stdout = ["plot", "--model", &model, "--input", "-", "--output", "-"];
    assert_quiet_exit_0(
        "plot --output -",
        run_into_closed_pipe(&plot_stdout, &train),
    );
    let svg = fx.p("fig.svg");
    let plot_report = ["plot", "--model", &model, "--input", "-", "--output", &svg];
    assert_quiet_exit_0("plot report", run_into_closed_pipe(&plot_report, &train));
    assert!(fx.path("fig.svg").exists());
    // Help on a closed stdout, too.
    assert_quiet_exit_0("--help", run_into_closed_pipe(&["fit", "--help"], b""));
}

#[test]
fn a_long_output_into_a_pipe_closed_midway_ends_quietly() {
    // More rows than a pipe buffer holds: the reader takes one line and goes.
    let fx = Fixture::new();
    let rows: String = train_csv()
        .lines()
        .skip(1)
        .cycle()
        .take(20_000)
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(fx.path("many.csv"), rows).unwrap();
    let mut child = kpca()
        .args([
            "project",
            "--model",
            &fx.p("model.kpca"),
            "--input",
            &fx.p("many.csv"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kpca starts");
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).expect("some output");
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn every_subcommand_exits_0_1_or_2_as_documented() {
    let fx = Fixture::new();
    let (train, model) = (fx.p("train.csv"), fx.p("model.kpca"));
    let missing = fx.p("missing.csv");
    std::fs::write(fx.path("bad.kpca"), b"KPCA and then nothing").unwrap();
    let bad = fx.p("bad.kpca");
    let out = fx.p("o.kpca");
    let (svg, dir) = (fx.p("f.svg"), fx.p("e"));
    let fit = |input: &str, extra: &[&str]| -> Vec<String> {
        let mut v = vec!["fit", "--input", input, "--output", &out];
        v.extend_from_slice(&FIT);
        v.extend_from_slice(extra);
        v.iter().map(|s| s.to_string()).collect()
    };
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    let cases: Vec<(Vec<String>, i32)> = vec![
        (fit(&train, &[]), 0),
        (fit(&missing, &[]), 1),
        (fit(&train, &["--nystrom", "1000"]), 1),
        (fit(&train, &["--frobnicate"]), 2),
        (fit(&train, &["--false-alarm-rate", "2"]), 2),
        (owned(&["project", "--model", &model, "--input", &train]), 0),
        (owned(&["project", "--model", &bad, "--input", &train]), 1),
        (owned(&["project", "--model", "-", "--input", "-"]), 2),
        (owned(&["inspect", &model]), 0),
        (owned(&["inspect", &bad]), 1),
        (owned(&["inspect"]), 2),
        (
            owned(&["export", "--model", &model, "--output-dir", &dir]),
            0,
        ),
        (owned(&["export", "--model", &bad, "--output-dir", &dir]), 1),
        (owned(&["export", "--model", &model, "--name", "9x"]), 2),
        (
            owned(&[
                "plot", "--model", &model, "--input", &train, "--output", &svg,
            ]),
            0,
        ),
        (
            owned(&[
                "plot", "--model", &model, "--input", &missing, "--output", &svg,
            ]),
            1,
        ),
        (owned(&["plot", "--model", &model, "--input", &train]), 2),
    ];
    for (args, expected) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, expected, "kpca {args:?}:\n{stdout}\n{stderr}");
        match expected {
            0 => assert!(!stderr.contains("error"), "kpca {args:?}: {stderr}"),
            1 => assert!(stderr.contains("kpca: error: "), "kpca {args:?}: {stderr}"),
            _ => assert!(stderr.contains("error"), "kpca {args:?}: {stderr}"),
        }
    }
}

#[test]
fn quiet_silences_the_report_of_every_subcommand_that_prints_one() {
    let fx = Fixture::new();
    let (train, model) = (fx.p("train.csv"), fx.p("model.kpca"));
    let (out, svg, dir) = (fx.p("q.kpca"), fx.p("q.svg"), fx.p("q"));
    let mut fit = vec!["fit", "--input", &train, "--output", &out];
    fit.extend_from_slice(&FIT);
    let runs: [Vec<&str>; 4] = [
        fit,
        vec!["inspect", "-q", &model],
        vec!["export", "--model", &model, "--output-dir", &dir, "--quiet"],
        vec![
            "plot", "--model", &model, "--input", &train, "--output", &svg, "-q",
        ],
    ];
    for args in runs {
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 0, "kpca {args:?}: {stderr}");
        assert_eq!(
            (stdout.as_str(), stderr.as_str()),
            ("", ""),
            "kpca {args:?}"
        );
    }
    assert_eq!(fx.bytes("q.kpca"), fx.bytes("model.kpca"));
    // inspect --quiet: the exit code alone says whether the model is valid.
    std::fs::write(fx.path("bad.kpca"), b"not a model").unwrap();
    let (code, stdout, _) = run(&["inspect", "--quiet", &fx.p("bad.kpca")]);
    assert_eq!((code, stdout.as_str()), (1, ""));
}
