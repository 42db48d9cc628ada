//! `cargo xtask release [OUT_DIR]`: the C library for every target in one
//! folder (default `$CARGO_TARGET_DIR/kpca-release`, `target/kpca-release`):
//!
//! ```text
//! include/kpca.h
//! lib/<target>/libkpca.a          every RELEASE_TARGETS entry and the host
//! lib/<target>/size/libkpca.a     the size-first build of each (KPCA_OPTIMIZE=size)
//! lib/cmake/kpca/                 kpcaConfig.cmake, kpcaConfigVersion.cmake, kpcaTarget.cmake
//! kpcaConfig.cmake, kpcaConfigVersion.cmake   forwarders, for kpca_DIR=<folder>
//! lib/pkgconfig/kpca.pc
//! share/kpca/toolchains/          CMake toolchain files (arm-none-eabi, riscv32-unknown-elf)
//! share/doc/kpca/C-LIBRARY.md
//! kpca-release.txt                version, targets, toolchain, commit
//! ```
//!
//! Each library is built by scripts/build-firmware-lib.sh (only the kpca_*
//! functions global) and all are checked again by scripts/check-lib-symbols.sh.

use crate::tasks::{ensure_firmware_packages, ensure_targets, RELEASE_TARGETS};
use crate::util::{cmd, heading, root, run, script, target_dir, user_path, Result};
use std::path::{Path, PathBuf};

/// Marks a folder as a release, so that a rerun may replace it.
const MARKER: &str = "kpca-release.txt";

/// The default release folder.
pub fn default_dir() -> PathBuf {
    target_dir().join("kpca-release")
}

/// This machine's Rust target triple (`rustc -vV`).
pub fn host_triple() -> Result<String> {
    let out = cmd("rustc")
        .arg("-vV")
        .output()
        .map_err(|e| format!("rustc -vV: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| "rustc -vV printed no host line".into())
}

pub fn run_task(args: &[String]) -> Result {
    let out = match args {
        [] => default_dir(),
        [dir] if !dir.starts_with('-') => user_path(dir),
        _ => return Err("usage: cargo xtask release [OUT_DIR]".into()),
    };
    build(&out)
}

/// Builds the release folder `out`.
pub fn build(out: &Path) -> Result {
    ensure_targets(&RELEASE_TARGETS)?;
    ensure_firmware_packages(true)?;
    prepare(out)?;
    let host = host_triple()?;
    let mut targets: Vec<&str> = RELEASE_TARGETS.to_vec();
    targets.push(&host);
    for t in &targets {
        heading(1, &format!("release: libkpca.a for {t}"));
        run(script("build-firmware-lib.sh")
            .arg("--out")
            .arg(out.join("lib").join(t))
            .arg(t))?;
        heading(1, &format!("release: libkpca.a for {t}, size-first build"));
        run(script("build-firmware-lib.sh")
            .arg("--out")
            .arg(out.join("lib").join(t).join("size"))
            .arg(t)
            .arg("size"))?;
    }
    heading(1, "release: header, CMake package, pkg-config file");
    copy(&root().join("include/kpca.h"), &out.join("include/kpca.h"))?;
    write_package(out, &host)?;
    let mut check = script("check-lib-symbols.sh");
    for t in &targets {
        check.arg(out.join("lib").join(t).join("libkpca.a"));
        check.arg(out.join("lib").join(t).join("size/libkpca.a"));
    }
    run(&mut check)?;
    write_manifest(out, &targets)?;
    println!(
        "\nrelease: {} ({} libraries, kpca {})",
        out.display(),
        targets.len(),
        env!("CARGO_PKG_VERSION")
    );
    Ok(())
}

/// `cargo xtask clib-test [RELEASE_DIR]`: scripts/clib-test.sh on a release
/// folder, made first (the default one) when none is given.
pub fn clib_test(args: &[String]) -> Result {
    let dir = match args {
        [] => {
            let dir = default_dir();
            build(&dir)?;
            dir
        }
        [dir] if !dir.starts_with('-') => {
            ensure_targets(&RELEASE_TARGETS)?;
            ensure_firmware_packages(true)?;
            user_path(dir)
        }
        _ => return Err("usage: cargo xtask clib-test [RELEASE_DIR]".into()),
    };
    run(script("clib-test.sh").arg(dir))
}

/// Creates `out`, or empties it when it is an earlier release; refuses any
/// other non-empty folder.
fn prepare(out: &Path) -> Result {
    let io = |e: std::io::Error| format!("{}: {e}", out.display());
    if out.exists() {
        let empty = std::fs::read_dir(out).map_err(io)?.next().is_none();
        if !empty && !out.join(MARKER).is_file() {
            return Err(format!(
                "{} exists and is not a kpca release folder (no {MARKER}); choose another OUT_DIR",
                out.display()
            ));
        }
        // lib/<target>/libkpca.a stay (replaced only when cargo's library
        // changed); everything else is written again.
        for sub in ["include", "share", "lib/cmake", "lib/pkgconfig"] {
            let dir = out.join(sub);
            if dir.exists() {
                std::fs::remove_dir_all(&dir).map_err(io)?;
            }
        }
        for file in ["kpcaConfig.cmake", "kpcaConfigVersion.cmake", MARKER] {
            let _ = std::fs::remove_file(out.join(file));
        }
    }
    std::fs::create_dir_all(out).map_err(io)
}

fn copy(from: &Path, to: &Path) -> Result {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))
}

/// `template` (a file under cmake/) with @KPCA_VERSION@ and friends replaced.
fn fill(template: &str, host: &str) -> Result<String> {
    let path = root().join("cmake").join(template);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .replace("@KPCA_VERSION@", env!("CARGO_PKG_VERSION"))
        .replace("@KPCA_VERSION_MAJOR@", env!("CARGO_PKG_VERSION_MAJOR"))
        .replace("@KPCA_VERSION_MINOR@", env!("CARGO_PKG_VERSION_MINOR"))
        .replace("@KPCA_HOST_TARGET@", host))
}

fn write_file(path: &Path, text: &str) -> Result {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The CMake package, the pkg-config file, the toolchain files and the docs.
fn write_package(out: &Path, host: &str) -> Result {
    let cmake = out.join("lib/cmake/kpca");
    write_file(
        &cmake.join("kpcaConfig.cmake"),
        &fill("kpcaConfig.cmake.in", host)?,
    )?;
    write_file(
        &cmake.join("kpcaConfigVersion.cmake"),
        &fill("kpcaConfigVersion.cmake.in", host)?,
    )?;
    copy(
        &root().join("cmake/kpcaTarget.cmake"),
        &cmake.join("kpcaTarget.cmake"),
    )?;
    // kpca_DIR may name the folder itself, not only lib/cmake/kpca.
    for file in ["kpcaConfig.cmake", "kpcaConfigVersion.cmake"] {
        write_file(
            &out.join(file),
            &format!(
                "# kpca_DIR=<release folder>: the package is lib/cmake/kpca/{file}.\n\
                 include(\"${{CMAKE_CURRENT_LIST_DIR}}/lib/cmake/kpca/{file}\")\n"
            ),
        )?;
    }
    write_file(
        &out.join("lib/pkgconfig/kpca.pc"),
        &fill("kpca.pc.in", host)?,
    )?;
    for toolchain in ["arm-none-eabi.cmake", "riscv32-unknown-elf.cmake"] {
        copy(
            &root().join("cmake/toolchains").join(toolchain),
            &out.join("share/kpca/toolchains").join(toolchain),
        )?;
    }
    copy(
        &root().join("docs/C-LIBRARY.md"),
        &out.join("share/doc/kpca/C-LIBRARY.md"),
    )
}

/// kpca-release.txt: what is in the folder and what made it.
fn write_manifest(out: &Path, targets: &[&str]) -> Result {
    let output = |c: &mut std::process::Command| {
        c.output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    };
    let rustc = output(cmd("rustc").arg("--version"));
    let commit = output(cmd("git").args(["describe", "--always", "--dirty"]));
    let mut text = format!(
        "kpca {}\nrustc: {rustc}\ncommit: {commit}\ntargets:\n",
        env!("CARGO_PKG_VERSION")
    );
    for t in targets {
        text += &format!("  lib/{t}/libkpca.a\n  lib/{t}/size/libkpca.a (size-first build)\n");
    }
    write_file(&out.join(MARKER), &text)
}
