//! `cargo xtask test package`: the publishable crates package their sources
//! and docs only, and build from the packaged sources.

use crate::util::{cargo, run, target_dir, Result};

/// The crates meant for crates.io (the others have `publish = false`).
pub const PUBLISHED: [&str; 6] = [
    "kpca-core",
    "kpca-blob",
    "kpca-capi",
    "kpca-fit",
    "kpca-cli",
    "kpca",
];

/// Largest .crate file accepted: sources and docs are tens of KiB; data,
/// fixtures or scripts would be hundreds.
const MAX_CRATE_BYTES: u64 = 200 * 1024;

/// Whether a packaged path is one a crate may ship.
fn allowed(path: &str) -> bool {
    path.starts_with("src/")
        || matches!(
            path,
            "Cargo.toml"
                | "Cargo.toml.orig"
                | "Cargo.lock"
                | ".cargo_vcs_info.json"
                | "README.md"
                | "LICENSE-MIT"
                | "LICENSE-APACHE"
                | "cbindgen.toml"
        )
}

/// Lists each crate's files (`cargo package --list`) and refuses anything
/// outside [`allowed`], then packages them (building the core from its
/// .crate file) and checks the sizes.
pub fn check() -> Result {
    for name in PUBLISHED {
        let out = cargo()
            .args(["package", "--list", "--allow-dirty", "-p", name])
            .output()
            .map_err(|e| format!("cargo package --list -p {name}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cargo package --list -p {name} failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let listing = String::from_utf8_lossy(&out.stdout);
        let extra: Vec<&str> = listing.lines().filter(|p| !allowed(p)).collect();
        if !extra.is_empty() {
            return Err(format!("{name} would package {extra:?}"));
        }
        if !listing.lines().any(|p| p == "LICENSE-MIT")
            || !listing.lines().any(|p| p == "LICENSE-APACHE")
        {
            return Err(format!("{name} does not package both licence files"));
        }
    }
    // The core is built from its package (cargo's verification). The others
    // are packaged without that build: one that depends on the core would
    // compile it from a local registry that cargo unpacks once per version
    // and path and then reuses, stale after any change to the core; and the
    // host crates would compile their dependencies (faer, rayon, clap,
    // plotters) a second time, minutes of CI. Their packages hold the same
    // src/ trees that the other steps build, and no crate has a build script.
    run(cargo().args(["package", "--allow-dirty", "-p", "kpca-core"]))?;
    let mut rest = cargo();
    // All four in one command: cargo resolves each one's dependencies on the
    // others against the packages it has just made.
    rest.args(["package", "--allow-dirty", "--no-verify"]);
    for name in PUBLISHED {
        rest.args(["-p", name]);
    }
    run(&mut rest)?;
    let version = env!("CARGO_PKG_VERSION");
    for name in PUBLISHED {
        let file = target_dir().join(format!("package/{name}-{version}.crate"));
        let len = std::fs::metadata(&file)
            .map_err(|e| format!("{}: {e}", file.display()))?
            .len();
        println!("{name}: {len} bytes packaged");
        if len > MAX_CRATE_BYTES {
            return Err(format!(
                "{name}: {len} bytes packaged (at most {MAX_CRATE_BYTES})"
            ));
        }
    }
    Ok(())
}
