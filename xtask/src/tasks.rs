//! The tasks that are one or a few commands each.

use crate::util::{cargo, cmd, have, heading, root, run, script, target_dir, Result};

/// Every bare-metal target the project builds for.
pub const FIRMWARE_TARGETS: [&str; 3] = [
    "thumbv7em-none-eabihf",
    "thumbv6m-none-eabi",
    "riscv32imac-unknown-none-elf",
];

/// The bare-metal targets of a release (the host's library comes too).
pub const RELEASE_TARGETS: [&str; 6] = [
    "thumbv6m-none-eabi",
    "thumbv7m-none-eabi",
    "thumbv7em-none-eabi",
    "thumbv7em-none-eabihf",
    "thumbv8m.main-none-eabihf",
    "riscv32imac-unknown-none-elf",
];

/// `rustup target add` for the targets that are not installed yet (no network
/// access when they all are).
pub fn ensure_targets(targets: &[&str]) -> Result {
    let out = cmd("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map_err(|e| format!("rustup: {e} (the tests need rustup to add the firmware targets)"))?;
    let installed = String::from_utf8_lossy(&out.stdout);
    let missing: Vec<&str> = targets
        .iter()
        .copied()
        .filter(|t| !installed.lines().any(|l| l.trim() == *t))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    run(cmd("rustup").args(["target", "add"]).args(&missing))
}

/// The Debian packages of the firmware checks (scripts/install-firmware-deps.sh
/// --plugin: arm-none-eabi-gcc, newlib, QEMU, make, cmake, pkg-config, the
/// QEMU plugin's build dependencies and its deb-src entry; with `riscv` also
/// the RISC-V gcc, picolibc and qemu-system-riscv32). Installs only what is
/// missing; prints the tool versions.
pub fn ensure_firmware_packages(riscv: bool) -> Result {
    let mut c = script("install-firmware-deps.sh");
    c.arg("--plugin");
    if riscv {
        c.arg("--riscv");
    }
    run(&mut c)
}

/// `cargo xtask deps`: everything `cargo xtask test` needs from outside the
/// repository, except the nightly toolchain, Miri and cargo-fuzz, which the
/// miri and fuzz steps install themselves when missing.
pub fn deps() -> Result {
    run(cmd("rustup").args(["component", "add", "rustfmt", "clippy"]))?;
    // FIRMWARE_TARGETS and the release's (a superset).
    ensure_targets(&FIRMWARE_TARGETS)?;
    ensure_targets(&RELEASE_TARGETS)?;
    ensure_firmware_packages(true)
}

/// `cargo xtask header [--check]`.
pub fn header(args: &[String]) -> Result {
    match args {
        [] => run(&mut script("gen-header.sh")),
        // The same comparison as the test suite: the pinned cbindgen (a
        // dev-dependency of kpca-capi) against the committed header; no
        // cbindgen binary to install.
        [flag] if flag == "--check" => {
            run(cargo().args(["test", "--quiet", "-p", "kpca-capi", "--test", "header"])).map_err(
                |e| format!("{e}\ninclude/kpca.h is stale: run `cargo xtask header` and commit it"),
            )?;
            println!("header: include/kpca.h is what the pinned cbindgen generates");
            Ok(())
        }
        _ => Err("usage: cargo xtask header [--check]".into()),
    }
}

/// `cargo xtask examples`: the crate kpca-examples (examples/): a
/// `#![no_std]` library, built for the Cortex-M4F target, and a host example
/// that fits, exports, loads and projects, run here.
pub fn examples() -> Result {
    ensure_targets(&["thumbv7em-none-eabihf"])?;
    let target = target_dir();
    let in_examples = |subcommand: &str| {
        let mut c = cargo();
        c.arg(subcommand).args(["-p", "kpca-examples"]);
        c
    };
    heading(
        1,
        "examples: lints (formatting is checked with the workspace)",
    );
    run(in_examples("clippy").args([
        "--lib",
        "--target",
        "thumbv7em-none-eabihf",
        "--",
        "-D",
        "warnings",
    ]))?;
    run(in_examples("clippy").args(["--all-targets", "--", "-D", "warnings"]))?;
    heading(
        1,
        "examples: the no_std library (examples/no_std_detector.rs) for thumbv7em-none-eabihf",
    );
    run(in_examples("build").args(["--lib", "--release", "--target", "thumbv7em-none-eabihf"]))?;
    heading(
        1,
        "examples: run the host example (examples/fit_and_project.rs)",
    );
    run(in_examples("run")
        .args(["--example", "fit_and_project", "--"])
        .arg(target.join("examples-out")))?;
    heading(
        1,
        "examples: kpca added to fresh crates outside the repository (no_std device, std host)",
    );
    run(&mut script("fresh-crate.sh"))
}

pub fn sanitize() -> Result {
    run(&mut script("c-sanitize.sh"))
}

pub fn miri() -> Result {
    run(&mut script("miri.sh"))
}

/// `cargo xtask fuzz [SECONDS]`.
pub fn fuzz(args: &[String]) -> Result {
    let mut c = script("fuzz-smoke.sh");
    match args {
        [] => {}
        [secs] if secs.parse::<u32>().is_ok_and(|s| s > 0) => {
            c.env("FUZZ_SECONDS", secs);
        }
        _ => return Err("usage: cargo xtask fuzz [SECONDS]".into()),
    }
    run(&mut c)
}

/// `cargo xtask fixtures`: scripts/make_fixtures.py with the versions of
/// scripts/requirements-fixtures.txt, in a virtual environment under the
/// target directory (installed once, again when the requirements change).
pub fn fixtures() -> Result {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    if !have(&python) {
        return Err(format!(
            "{python} not found (PYTHON selects the interpreter; the pins are for Python 3.11)"
        ));
    }
    let venv = target_dir().join("fixtures-venv");
    let requirements = root().join("scripts/requirements-fixtures.txt");
    let wanted = std::fs::read_to_string(&requirements)
        .map_err(|e| format!("{}: {e}", requirements.display()))?;
    let stamp = venv.join("requirements-fixtures.txt");
    let vpython = venv.join("bin/python");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        heading(1, "fixtures: virtual environment with the pinned versions");
        run(cmd(&python).arg("-m").arg("venv").arg(&venv))?;
        run(cmd(&vpython)
            .args(["-m", "pip", "install", "--quiet", "-r"])
            .arg(&requirements))?;
        std::fs::write(&stamp, &wanted).map_err(|e| format!("{}: {e}", stamp.display()))?;
    }
    heading(
        1,
        "fixtures: scripts/make_fixtures.py -> testdata/fixtures/",
    );
    run(cmd(&vpython).arg(root().join("scripts/make_fixtures.py")))?;
    // Show what changed, so a regeneration with other library versions is seen.
    run(cmd("git").args(["status", "--short", "--", "testdata/fixtures"]))
}

pub fn demo() -> Result {
    run(&mut script("demo.sh"))
}

pub fn bench_fit() -> Result {
    run(&mut script("bench-fit.sh"))
}
