//! `cargo xtask test package`: the publishable crates package their sources
//! and docs only, and build from the packaged sources.

use crate::util::{cargo, run, target_dir, Result};

/// The crates meant for crates.io (the others have `publish = false`).
pub const PUBLISHED: [&str; 4] = ["kpca", "kpca-capi", "kpca-fit", "kpca-cli"];

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
/// outside [`allowed`], then packages and verifies them all (cargo builds each
/// from its .crate, against the others packaged alongside) and checks the
/// sizes.
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
    let mut all = cargo();
    all.args(["package", "--allow-dirty"]);
    for name in PUBLISHED {
        all.args(["-p", name]);
    }
    run(&mut all)?;
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
