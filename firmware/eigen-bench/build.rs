//! Puts memory.x where the linker finds it and writes the benchmark's
//! settings from the environment: EIGEN_N (matrix size, default 32) and
//! EIGEN_SOLVER (none, kpca or nalgebra; default kpca).
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("memory.x"), include_bytes!("memory.x")).expect("write memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    let n: usize = std::env::var("EIGEN_N").ok().and_then(|v| v.parse().ok()).unwrap_or(32);
    let solver = std::env::var("EIGEN_SOLVER").unwrap_or_else(|_| "kpca".into());
    let id = match solver.as_str() {
        "none" => 0,
        "kpca" => 1,
        "nalgebra" => 2,
        other => panic!("EIGEN_SOLVER={other}: use none, kpca or nalgebra"),
    };
    println!("cargo::rustc-check-cfg=cfg(nalgebra_solver)");
    if id == 2 {
        println!("cargo:rustc-cfg=nalgebra_solver");
    }
    std::fs::write(out.join("settings.rs"), format!("pub const N: usize = {n};\npub const SOLVER: u32 = {id};\n"))
        .expect("write settings.rs");
    println!("cargo:rerun-if-env-changed=EIGEN_N");
    println!("cargo:rerun-if-env-changed=EIGEN_SOLVER");
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");
}
