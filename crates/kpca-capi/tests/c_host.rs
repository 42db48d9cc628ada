//! The C surface, from C: the host example program is built with strict flags
//! against the host static library and its output is compared with the f64
//! formulas; the header also compiles as C++.

use kpca_testkit as common;

use common::{all_kernels, Lcg, TestModel};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The C program prints 9 significant digits of f32 results; the comparison
/// with the f64 formulas uses the same relative scale as tests/core_model.rs.
const C_OUTPUT_REL_TOL: f64 = 2e-5;

use kpca_testkit::STRICT_C_FLAGS;

fn root() -> &'static Path {
    kpca_testkit::repo_root()
}

fn run(cmd: &mut Command) {
    let status = cmd.status().expect("command runs");
    assert!(status.success(), "{cmd:?} failed");
}

/// Builds libkpca.a for the host once (release profile: panic = abort).
fn host_staticlib() -> &'static PathBuf {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let target = kpca_testkit::target_dir().join("c-tests");
        run(Command::new(env!("CARGO"))
            .args([
                "build",
                "-p",
                "kpca-staticlib",
                "--release",
                "--quiet",
                "--target-dir",
            ])
            .arg(&target)
            .current_dir(root()));
        target.join("release/libkpca.a")
    })
}

fn compile_c(sources: &[&str], out_name: &str, extra: &[&str]) -> PathBuf {
    let out = kpca_testkit::target_dir().join("c-tests").join(out_name);
    let mut cmd = Command::new("cc");
    cmd.args(STRICT_C_FLAGS)
        .args(extra)
        .arg("-I")
        .arg(root().join("include"));
    for s in sources {
        cmd.arg(root().join(s));
    }
    cmd.arg(host_staticlib()).args(["-lm", "-o"]).arg(&out);
    run(&mut cmd);
    out
}

fn example_binary() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        compile_c(
            &["c-examples/host/kpca_project.c"],
            "kpca_project",
            &["-O2"],
        )
    })
}

/// Runs the example on `blob` with `csv` on stdin; returns (status, stdout, stderr).
fn run_example(blob: &[u8], csv: &str, tag: &str) -> (i32, String, String) {
    let bin = example_binary();
    let path = kpca_testkit::target_dir()
        .join("c-tests")
        .join(format!("{tag}.kpca"));
    std::fs::write(&path, blob).unwrap();
    let mut child = Command::new(bin)
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    // The program may stop reading early (a bad model, a bad row): a broken
    // pipe here is part of the behaviour under test, not a test failure.
    let _ = child.stdin.take().unwrap().write_all(csv.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn c_example_matches_the_f64_formulas_for_every_kernel() {
    let mut g = Lcg(1234);
    for (i, kernel) in all_kernels().into_iter().enumerate() {
        let model = TestModel::random(kernel, 6, 40, 4, i % 2 == 1, 100 + i as u64);
        let rows: Vec<Vec<f32>> = (0..10).map(|_| g.vec(6, 1.3)).collect();
        let mut csv = String::from("# a comment\nf0,f1,f2,f3,f4,f5\n");
        for r in &rows {
            csv += &r
                .iter()
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>()
                .join(",");
            csv += "\n";
        }
        let (code, stdout, stderr) = run_example(&model.blob(), &csv, &format!("kernel{i}"));
        assert_eq!(code, 0, "{stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), rows.len());
        for (line, x) in lines.iter().zip(&rows) {
            let got: Vec<f64> = line.split(',').map(|v| v.parse().unwrap()).collect();
            let (y, e) = model.reference(x);
            let scale = 1.0
                + model.a.iter().map(|v| v.abs() as f64).sum::<f64>()
                + kpca_testkit::max_abs(&y);
            for (g, w) in got[..4].iter().zip(&y) {
                assert!(
                    (g - w).abs() <= C_OUTPUT_REL_TOL * scale,
                    "{kernel:?}: {g} vs {w}"
                );
            }
            assert!(
                (got[4] - e).abs() <= C_OUTPUT_REL_TOL * scale * scale,
                "{kernel:?}: score {} vs {e}",
                got[4]
            );
        }
    }
}

#[test]
fn c_example_reports_library_errors_with_their_status_text() {
    let model = TestModel::random(kpca_core::Kernel::Rbf { gamma: 0.5 }, 3, 8, 2, false, 9);
    let mut blob = model.blob();
    let (code, _, stderr) = run_example(&blob, "1,2,3,4\n", "wrong_dim");
    assert_eq!(code, 1);
    assert!(stderr.contains("input length"), "{stderr}");
    let last = blob.len() - 1;
    blob[last] ^= 1;
    let (code, _, stderr) = run_example(&blob, "1,2,3\n", "bad_crc");
    assert_eq!(code, 1);
    assert!(
        stderr.contains("CRC") && stderr.contains("status 9"),
        "{stderr}"
    );
}

#[test]
fn header_compiles_as_cpp() {
    let src = kpca_testkit::target_dir().join("c-tests/header_check.cpp");
    std::fs::create_dir_all(src.parent().unwrap()).unwrap();
    std::fs::write(
        &src,
        "#include \"kpca.h\"\nint main() { kpca_model m; (void)m; return kpca_version() == 0 ? 1 : 0; }\n",
    )
    .unwrap();
    run(Command::new("c++")
        .args([
            "-std=c++11",
            "-Wall",
            "-Wextra",
            "-Wpedantic",
            "-Werror",
            "-I",
        ])
        .arg(root().join("include"))
        .arg(&src)
        .arg(host_staticlib())
        .arg("-o")
        .arg(kpca_testkit::target_dir().join("c-tests/header_check")));
}
