//! The command-line text of the README and of docs/COMMAND-LINE.md, run as
//! written: every `$ ...` line of the block after a marker, from a fresh
//! directory that holds the repository's `data/`, with the built `kpca` first
//! on PATH, each output line's words (numbers aside) as the page shows them.
//!
//! - README.md, `<!-- quick-start -->`: the command-line quick start;
//! - docs/COMMAND-LINE.md, `<!-- command-tour -->`: every subcommand on the
//!   bundled data (all `kpca` commands);
//! - docs/COMMAND-LINE.md, `<!-- worked-example -->`: the soft sensor and the
//!   per-channel residual (`kpca` with `cut`, `sed` and `awk`).
//!
//! And the README's C quick start (the ```c block after
//! `<!-- c-quick-start -->`): compiled, not linked or run, with
//! `cc -std=c99 -Wall -Wextra -Wpedantic -Werror -Wdouble-promotion
//! -Wfloat-conversion -c` against `include/kpca.h` and the model header the
//! command-line quick start exports (`fw/walking_model.h`), so its syntax,
//! the names it uses and their types are checked; the same calls run on the
//! emulated Cortex-M4F in `c-examples/firmware/kpca_fw.c`. The same for
//! the C block of docs/ON-DEVICE-LEARNING.md (after `<!-- c-compiles -->`),
//! which needs `include/kpca.h` only.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The text of a page of the repository (`README.md`, `docs/...`).
fn page(path: &str) -> String {
    std::fs::read_to_string(kpca_testkit::repo_root().join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The body of the first fenced code block after `marker` in `text` (its
/// lines after the opening fence's line).
fn block_after<'a>(text: &'a str, marker: &str) -> &'a str {
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("the page has the marker {marker}"));
    let fenced = text[start..]
        .split("```")
        .nth(1)
        .expect("a code block after the marker");
    // Drop the info string (`console`, `c`) on the opening fence's line.
    fenced.split_once('\n').map_or("", |(_, body)| body)
}

/// The commands of the block after `marker` and the output shown under each.
fn block_steps(text: &str, marker: &str) -> Vec<(String, Vec<String>)> {
    let mut steps: Vec<(String, Vec<String>)> = Vec::new();
    for line in block_after(text, marker).lines() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            steps.push((cmd.to_string(), Vec::new()));
        } else if let Some((_, out)) = steps.last_mut() {
            if !line.trim().is_empty() {
                out.push(line.to_string());
            }
        }
    }
    steps
}

/// A line's text before its first number: what must not change from run to
/// run (the numbers may, in their last digits, and timings do).
fn shape(line: &str) -> String {
    let cut = line
        .char_indices()
        .find(|&(i, c)| {
            c.is_ascii_digit()
                && !line[..i].ends_with(|p: char| p.is_ascii_alphabetic() || p == '_')
        })
        .map_or(line.len(), |(i, _)| i);
    line[..cut].trim_end_matches('-').to_string()
}

/// Runs `steps` in `dir` (which holds `data/`), checking each command's
/// output against the page's, line by line up to the first number.
fn run_steps_in(dir: &Path, steps: &[(String, Vec<String>)], only_kpca: bool) {
    let bin = Path::new(env!("CARGO_BIN_EXE_kpca"));
    let path = format!(
        "{}:{}",
        bin.parent().expect("bin dir").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (cmd, shown) in steps {
        assert!(!only_kpca || cmd.starts_with("kpca "), "{cmd}");
        let out = Command::new("sh")
            .args(["-c", cmd])
            .current_dir(dir)
            .env("PATH", &path)
            .output()
            .expect("sh runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{cmd}:\n{text}");
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), shown.len(), "{cmd}: got\n{text}");
        for (got, want) in lines.iter().zip(shown) {
            assert_eq!(
                shape(got),
                shape(want),
                "{cmd}: {got:?} vs the page's {want:?}"
            );
        }
    }
}

/// A fresh directory holding a link to the repository's `data/`.
fn fresh_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = kpca_testkit::repo_root().join("data");
    std::os::unix::fs::symlink(data, dir.path().join("data")).expect("link data/");
    dir
}

fn uses(steps: &[(String, Vec<String>)], sub: &str) -> bool {
    steps
        .iter()
        .any(|(c, _)| c.starts_with(&format!("kpca {sub} ")))
}

#[test]
fn readme_quick_start_runs_as_written() {
    let steps = block_steps(&page("README.md"), "<!-- quick-start -->");
    assert!(
        ["fit", "project", "export"].iter().all(|s| uses(&steps, s)),
        "the quick start fits, projects and exports: {steps:?}"
    );
    let dir = fresh_dir();
    run_steps_in(dir.path(), &steps, true);
}

#[test]
fn command_line_tour_runs_as_written() {
    let steps = block_steps(&page("docs/COMMAND-LINE.md"), "<!-- command-tour -->");
    assert!(
        ["fit", "inspect", "project", "export", "plot"]
            .iter()
            .all(|s| uses(&steps, s)),
        "the tour has its five subcommands: {steps:?}"
    );
    let dir = fresh_dir();
    run_steps_in(dir.path(), &steps, true);
}

#[test]
fn worked_example_runs_as_written() {
    let steps = block_steps(&page("docs/COMMAND-LINE.md"), "<!-- worked-example -->");
    assert!(
        uses(&steps, "predict") && uses(&steps, "reconstruct"),
        "the worked example predicts and reconstructs: {steps:?}"
    );
    let dir = fresh_dir();
    run_steps_in(dir.path(), &steps, false);
}

/// `cc` with the strict flags, compile only (`-c`), include paths first.
fn cc_compile(includes: &[PathBuf], source: &Path, object: &Path) {
    let out = Command::new("cc")
        .args(kpca_testkit::STRICT_C_FLAGS)
        .arg("-c")
        .args(includes.iter().flat_map(|i| [Path::new("-I"), i.as_path()]))
        .arg(source)
        .arg("-o")
        .arg(object)
        .output()
        .expect("cc runs");
    assert!(
        out.status.success(),
        "cc -c {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn readme_c_quick_start_compiles() {
    let readme = page("README.md");
    let code = block_after(&readme, "<!-- c-quick-start -->");
    assert!(
        code.contains("#include \"kpca.h\"")
            && code.contains("kpca_model_from_bytes")
            && code.contains("&walking_model_model"),
        "the C quick start shows both routes, the generated model and a loaded blob: {code}"
    );
    // The model header it includes comes from the command-line quick start.
    let dir = fresh_dir();
    run_steps_in(
        dir.path(),
        &block_steps(&readme, "<!-- quick-start -->"),
        true,
    );
    let fw = dir.path().join("fw");
    let source = dir.path().join("quick_start.c");
    std::fs::write(&source, code).expect("write quick_start.c");
    let includes = [kpca_testkit::repo_root().join("include"), fw.clone()];
    cc_compile(&includes, &source, &dir.path().join("quick_start.o"));
    cc_compile(
        &includes,
        &fw.join("walking_model.c"),
        &dir.path().join("walking_model.o"),
    );
}

#[test]
fn on_device_learning_c_block_compiles() {
    let text = page("docs/ON-DEVICE-LEARNING.md");
    let code = block_after(&text, "<!-- c-compiles -->");
    assert!(
        code.contains("kpca_fit("),
        "the block fits on the device: {code}"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let source = dir.path().join("learn.c");
    std::fs::write(&source, code).expect("write learn.c");
    cc_compile(
        &[kpca_testkit::repo_root().join("include")],
        &source,
        &dir.path().join("learn.o"),
    );
}
