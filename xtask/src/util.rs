//! Running commands from the repository root, tool checks, timing.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub type Result<T = ()> = std::result::Result<T, String>;

/// The repository root (this crate's parent directory).
pub fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask/ has a parent")
            .to_path_buf();
        dir.canonicalize().unwrap_or(dir)
    })
}

/// The directory `xtask` was started from (paths given on the command line are
/// relative to it; every command runs from the root).
pub fn invocation_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| std::env::current_dir().unwrap_or_else(|_| root().to_path_buf()))
}

/// A path argument, made absolute against the directory `xtask` was started from.
pub fn user_path(arg: &str) -> PathBuf {
    invocation_dir().join(arg)
}

/// Makes a relative `CARGO_TARGET_DIR` absolute (against the invocation
/// directory, as cargo reads it) so that commands run from the root and the
/// scripts agree on it. Called once at start, before any thread exists.
pub fn pin_target_dir() {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        let dir = PathBuf::from(dir);
        if dir.is_relative() {
            std::env::set_var("CARGO_TARGET_DIR", invocation_dir().join(dir));
        }
    }
}

/// Cargo's target directory: `CARGO_TARGET_DIR` or `<root>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => invocation_dir().join(dir),
        _ => root().join("target"),
    }
}

/// A command that will run from the repository root.
pub fn cmd(program: impl AsRef<OsStr>) -> Command {
    let mut c = Command::new(program);
    c.current_dir(root());
    c
}

/// `cargo` (the rustup proxy on PATH, so that `+nightly` and toolchain files work).
pub fn cargo() -> Command {
    cmd("cargo")
}

/// One of the repository's scripts, `scripts/NAME`.
pub fn script(name: &str) -> Command {
    cmd(root().join("scripts").join(name))
}

/// Prints the command (paths under the root shown relative to it), runs it and
/// fails on a non-zero exit.
pub fn run(c: &mut Command) -> Result {
    let shown = show(c);
    println!("$ {shown}");
    let status = c
        .status()
        .map_err(|e| format!("{shown}: could not start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown}: {status}"))
    }
}

fn show(c: &Command) -> String {
    let rel = |s: &OsStr| -> String {
        let p = Path::new(s);
        p.strip_prefix(root())
            .map(|r| r.display().to_string())
            .unwrap_or_else(|_| s.to_string_lossy().into_owned())
    };
    let mut out: Vec<String> = c
        .get_envs()
        .filter_map(|(k, v)| v.map(|v| format!("{}={}", k.to_string_lossy(), rel(v))))
        .collect();
    out.push(rel(c.get_program()));
    out.extend(c.get_args().map(rel));
    out.join(" ")
}

/// Whether `tool --version` runs and succeeds.
pub fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

pub fn heading(level: u8, text: &str) {
    match level {
        0 => println!("\n=== {text}"),
        _ => println!("\n--- {text}"),
    }
}

/// Runs `f`, returning its result and how long it took.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

pub fn secs(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}
