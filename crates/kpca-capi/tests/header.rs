//! The committed C header must be exactly what the pinned cbindgen generates
//! from src/capi.rs with cbindgen.toml. Regenerate with scripts/gen-header.sh.

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
    let committed = std::fs::read(&include).expect("include/kpca.h");
    assert!(
        generated == committed,
        "include/kpca.h is stale: run scripts/gen-header.sh and commit the result"
    );
}
