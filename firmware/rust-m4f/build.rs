//! Puts memory.x where the linker finds it (cortex-m-rt's link.x includes it)
//! and checks that the generated model files exist.
use std::path::{Path, PathBuf};

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("memory.x"), include_bytes!("memory.x")).expect("write memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=generated");
    let generated = Path::new("generated");
    for file in ["dims.rs", "model.kpca", "xs.bin", "expected.bin"] {
        if !generated.join(file).is_file() {
            panic!(
                "firmware/rust-m4f/generated/{file} is missing: run scripts/firmware-rust.sh \
                 (or `cargo xtask gen-model rust-fw rbf 32 8 4 firmware/rust-m4f/generated` \
                 from the repository root) first"
            );
        }
    }
}
