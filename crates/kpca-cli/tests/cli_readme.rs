//! The README's quick start and worked example, run as written: every `$ ...`
//! line of the block after `<!-- quick-start -->` (all `kpca` commands) and
//! after `<!-- worked-example -->` (`kpca` with `cut`, `sed` and `awk`), from a
//! fresh directory that holds the repository's `data/`, with the built `kpca`
//! first on PATH.

use std::path::Path;
use std::process::Command;

/// The commands of the block after `marker` and the output shown under each.
fn block_steps(readme: &str, marker: &str) -> Vec<(String, Vec<String>)> {
    let start = readme
        .find(marker)
        .unwrap_or_else(|| panic!("README has the marker {marker}"));
    let block = &readme[start..];
    let body = block
        .split("```")
        .nth(1)
        .expect("a code block after the marker");
    let mut steps: Vec<(String, Vec<String>)> = Vec::new();
    for line in body.lines() {
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

/// Runs `steps` in a fresh directory holding `data/`, checking each
/// command's output against the README's, line by line up to the first number.
fn run_steps(steps: &[(String, Vec<String>)], only_kpca: bool) {
    let root = kpca_testkit::repo_root();
    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(root.join("data"), dir.path().join("data")).expect("link data/");
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
            .current_dir(dir.path())
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
            assert_eq!(shape(got), shape(want), "{cmd}: {got:?} vs README {want:?}");
        }
    }
}

fn readme() -> String {
    std::fs::read_to_string(kpca_testkit::repo_root().join("README.md")).expect("README.md")
}

#[test]
fn readme_quick_start_runs_as_written() {
    let steps = block_steps(&readme(), "<!-- quick-start -->");
    assert!(
        steps.len() >= 5,
        "the quick start has its five commands: {steps:?}"
    );
    run_steps(&steps, true);
}

#[test]
fn readme_worked_example_runs_as_written() {
    let steps = block_steps(&readme(), "<!-- worked-example -->");
    let uses = |sub: &str| {
        steps
            .iter()
            .any(|(c, _)| c.starts_with(&format!("kpca {sub} ")))
    };
    assert!(
        uses("predict") && uses("reconstruct"),
        "the worked example predicts and reconstructs: {steps:?}"
    );
    run_steps(&steps, false);
}
