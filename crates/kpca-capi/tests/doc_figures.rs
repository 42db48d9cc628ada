//! The figures the C pages state about the header are the header's own:
//! `sizeof(kpca_model)` on 32- and 64-bit targets (`KPCA_MODEL_SIZE_ILP32`,
//! `KPCA_MODEL_SIZE_LP64`) and how many `kpca_*` functions it declares (the
//! set the libraries export, checked by scripts/check-lib-symbols.sh), and the
//! range of status codes TESTING.md and the C status test cover.

use kpca_testkit::repo_root;

/// A file of the repository as one line: runs of white space (line breaks
/// of wrapped prose included) folded to one space.
fn text(path: &str) -> String {
    let raw = std::fs::read_to_string(repo_root().join(path)).expect("readable file");
    raw.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Asserts that the file at `path` (whitespace folded) says each of `wants`.
fn assert_says(path: &str, wants: &[String]) {
    let body = text(path);
    for want in wants {
        assert!(body.contains(want.as_str()), "{path} should say {want}");
    }
}

/// The value of `#define NAME VALUE` in include/kpca.h.
fn define(header: &str, name: &str) -> u32 {
    let key = format!("#define {name} ");
    let at = header
        .find(&key)
        .unwrap_or_else(|| panic!("{name} in the header"));
    let value = header[at + key.len()..].split(' ').next().expect("a value");
    value
        .parse()
        .unwrap_or_else(|_| panic!("{name} = {value:?}"))
}

/// The distinct `kpca_*` functions the header declares.
fn functions(header: &str) -> usize {
    let mut names: Vec<&str> = header
        .match_indices("kpca_")
        .filter_map(|(at, _)| {
            let rest = &header[at..];
            let end = rest.find(|c: char| !(c.is_ascii_lowercase() || c == '_'))?;
            rest[end..].starts_with('(').then(|| &rest[..end])
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}

#[test]
fn the_c_pages_state_the_headers_model_size_and_function_count() {
    let header = text("include/kpca.h");
    let (ilp32, lp64) = (
        define(&header, "KPCA_MODEL_SIZE_ILP32"),
        define(&header, "KPCA_MODEL_SIZE_LP64"),
    );
    let n = functions(&header);
    assert!(n > 0 && ilp32 > 0 && lp64 > ilp32, "{n} {ilp32} {lp64}");
    assert_says(
        "docs/C-FIRMWARE.md",
        &[format!(
            "(`sizeof(kpca_model)`: {ilp32} bytes on 32-bit targets, {lp64} on 64-bit hosts)"
        )],
    );
    assert_says(
        "docs/C-LIBRARY.md",
        &[
            format!("`KPCA_MODEL_SIZE_ILP32` {ilp32} on every 32-bit target"),
            format!("`KPCA_MODEL_SIZE_LP64` {lp64} on 64-bit hosts"),
            format!("are the {n} `kpca_*` functions of the header"),
        ],
    );
}

/// TESTING.md's "every status 1–N produced" and the C status test's table
/// (`N_CODES`, its last row) name the last status code: a new code must reach
/// both (the table was left at 35 when codes 36 and 37 were added).
#[test]
fn the_status_range_of_testing_md_and_the_c_test_is_every_code() {
    let last = kpca_core::Error::ALL.len();
    let last_name = kpca_core::Error::ALL[last - 1].c_name();
    assert_says(
        "TESTING.md",
        &[format!(
            "every status 1–{last} produced by at least one call"
        )],
    );
    assert_says(
        "c-examples/tests/status_tests.c",
        &[
            format!("#define N_CODES {last} "),
            format!("every status code 1..{last} was produced"),
            format!("{{ {last_name}, \"{last_name}\" }}, }};"),
        ],
    );
}
