//! Running the `kpca` binary from the integration tests (each test file takes
//! what it needs, so some helpers are unused in some of them).
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The built `kpca` binary, ready for arguments.
pub fn kpca() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kpca"))
}

/// (exit code, stdout, stderr) of a finished run; -1 for a signal.
pub fn decode(out: Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs the binary with `args`; returns (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    decode(kpca().args(args).output().expect("kpca runs"))
}

/// Runs with `stdin` as standard input; returns the whole output.
pub fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = kpca()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kpca starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin)
        .expect("stdin written");
    child.wait_with_output().expect("kpca finishes")
}

/// Runs with `stdin` as standard input; returns (exit code, stdout, stderr).
pub fn run_stdin(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    decode(run_with_stdin(args, stdin))
}

/// Runs, asserts exit code 0 and returns stdout.
pub fn ok(args: &[&str]) -> String {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "kpca {args:?} failed:\n{stdout}\n{stderr}");
    stdout
}

/// A fixture's 2-D array as rows.
pub fn matrix(v: &serde_json::Value) -> Vec<Vec<f64>> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|r| {
            r.as_array()
                .expect("row")
                .iter()
                .map(|x| x.as_f64().expect("number"))
                .collect()
        })
        .collect()
}

/// Writes `rows` as CSV, every value in the shortest form that reads back to it.
pub fn write_csv(path: &std::path::Path, rows: &[Vec<f64>]) {
    let text: String = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        })
        .collect();
    std::fs::write(path, text).expect("csv written");
}
