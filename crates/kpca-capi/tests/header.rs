//! The committed C header must be exactly what the pinned cbindgen generates
//! from src/ with cbindgen.toml, and src/status.rs (the status constants that
//! cbindgen reads) exactly what the core's status table generates.
//! Regenerate both with scripts/gen-header.sh (or, with no cbindgen binary,
//! `KPCA_BLESS=1 cargo test -p kpca-capi --test header`, which writes both
//! from the same pinned cbindgen; run it twice after a change to the status
//! table, since the header is generated from the status.rs on disk).

use kpca_core::Error;
use std::fmt::Write;

#[test]
fn committed_header_is_current() {
    let root = env!("CARGO_MANIFEST_DIR");
    let config =
        cbindgen::Config::from_file(format!("{root}/cbindgen.toml")).expect("cbindgen.toml");
    let include = kpca_testkit::repo_root().join("include/kpca.h");
    let bindings = cbindgen::Builder::new()
        .with_crate(root)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    if bless() {
        std::fs::write(&include, &generated).expect("write include/kpca.h");
        return;
    }
    let committed = std::fs::read(&include).expect("include/kpca.h");
    assert!(
        generated == committed,
        "include/kpca.h is stale: run scripts/gen-header.sh and commit the result"
    );
}

/// src/status.rs as the core's status table (kpca_core::error) writes it.
fn status_source() -> String {
    let mut s = String::from(
        "//! The status codes of the C ABI (`KPCA_OK`, `KPCA_ERR_*`): generated from the\n\
         //! table in crates/kpca-core/src/error.rs, so that cbindgen (which does not\n\
         //! expand macros) sees them as constants. Do not edit: regenerate with\n\
         //! scripts/gen-header.sh; tests/header.rs fails when this file is stale.\n\
         \n\
         use crate::kpca_status;\n\
         \n\
         /// Success.\n\
         pub const KPCA_OK: kpca_status = 0;\n",
    );
    for e in Error::ALL {
        for line in e.doc().lines() {
            // Intra-doc links of the Rust docs read as plain code in C.
            let line = line.replace("[`", "`").replace("`]", "`");
            let _ = writeln!(s, "///{}", line.trim_end());
        }
        let _ = writeln!(s, "pub const {}: kpca_status = {};", e.c_name(), e.code());
    }
    s
}

/// Whether to write the generated files instead of comparing with them
/// (`KPCA_BLESS=1`; scripts/gen-header.sh sets it for src/status.rs before it
/// runs cbindgen).
fn bless() -> bool {
    std::env::var_os("KPCA_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn status_constants_are_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/status.rs");
    let generated = status_source();
    if bless() {
        std::fs::write(path, &generated).expect("write src/status.rs");
        return;
    }
    let committed = std::fs::read_to_string(path).expect("src/status.rs");
    assert!(
        generated == committed,
        "crates/kpca-capi/src/status.rs is stale: run scripts/gen-header.sh and commit the result"
    );
}
