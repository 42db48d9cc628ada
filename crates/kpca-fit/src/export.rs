//! Export a model blob as C or Rust source, for firmware that keeps the model in
//! flash: the blob, read in place (zero-copy) with `kpca_model_from_bytes` /
//! [`kpca_core::ModelRef::from_bytes`], and the generated model, a ready
//! `const kpca_model` (C) or `static` [`kpca_core::ModelRef`] (Rust) over
//! arrays in flash that needs no loader.

use kpca_blob::source as model_source;
pub use kpca_blob::source::c_float;

use crate::error::FitError;
use kpca_blob::ModelBlob;
use kpca_core::format::BLOB_ALIGN;
use std::fmt::Write as _;
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

/// The generating parameters written as comments at the top of the sources
/// (name, value pairs). [`crate::FittedKpca::export_info`] fills it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportInfo {
    /// (name, value) pairs, in order.
    pub parameters: Vec<(String, String)>,
}

/// Longest accepted name (the longest generated C identifier, `NAME_blob_len`,
/// stays within C99's 63 significant characters).
pub const MAX_NAME_LEN: usize = 48;

const C_KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Bool",
    "_Complex",
    "_Generic",
    "_Imaginary",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "bool",
    "true",
    "false",
    "alignas",
    "alignof",
    "static_assert",
    "thread_local",
    "nullptr",
    "typeof",
    "constexpr",
];

const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Checks that `name` is an identifier made of ASCII letters, digits and `_`, not
/// starting with a digit, not reserved (`__x`, `_X`), not a keyword in `keywords`.
fn check_name(name: &str, keywords: &[&str]) -> Result<(), FitError> {
    let bad = |reason: &'static str| FitError::BadName {
        name: name.to_string(),
        reason,
    };
    let first = name.chars().next().ok_or_else(|| bad("it is empty"))?;
    if name.len() > MAX_NAME_LEN {
        return Err(bad("it is longer than 48 characters"));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(bad("only ASCII letters, digits and '_' are allowed"));
    }
    if first.is_ascii_digit() {
        return Err(bad("it starts with a digit"));
    }
    if name.starts_with("__")
        || (first == '_' && name.chars().nth(1).is_some_and(|c| c.is_ascii_uppercase()))
    {
        return Err(bad(
            "names starting with '__' or '_' and a capital letter are reserved",
        ));
    }
    if keywords.contains(&name) {
        return Err(bad("it is a keyword"));
    }
    Ok(())
}

/// What the exports write of a blob's model: (dim, n_points, n_components,
/// kernel name, gamma, degree, coef0, threshold), read from its view.
struct BlobSummary {
    dim: usize,
    n_points: usize,
    n_components: usize,
    kernel: &'static str,
    /// The stem of the kernel's C entry points (`kpca_<stem>_project`).
    c_stem: &'static str,
    gamma: f32,
    degree: u32,
    coef0: f32,
    threshold: f32,
    standardized: bool,
}

fn summarize(blob: &ModelBlob) -> BlobSummary {
    // The blob was validated when it was made: its view is read, not the bytes.
    let model = blob.model();
    let (gamma, degree, coef0) = model.kernel().params();
    BlobSummary {
        dim: model.dim(),
        n_points: model.n_points(),
        n_components: model.n_components(),
        kernel: model.kernel().id().name(),
        c_stem: model.kernel().id().c_name(),
        gamma,
        degree,
        coef0,
        threshold: model.threshold(),
        standardized: model.is_standardized(),
    }
}

/// `word` with its first letter in capitals.
fn camel_case(word: &str) -> String {
    let mut cs = word.chars();
    match cs.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + cs.as_str(),
        None => String::new(),
    }
}

/// Text safe inside a C or Rust block comment.
fn comment_safe(text: &str) -> String {
    text.replace("*/", "* /")
        .replace("/*", "/ *")
        .replace(['\n', '\r'], " ")
}

fn hex_lines(blob: &[u8], indent: &str) -> String {
    let mut out = String::new();
    for chunk in blob.chunks(16) {
        out.push_str(indent);
        let line: Vec<String> = chunk.iter().map(|b| format!("0x{b:02x}")).collect();
        out.push_str(&line.join(", "));
        out.push_str(",\n");
    }
    out
}

/// The C header (`.h`) and source (`.c`) defining the model twice: the
/// generated model `const kpca_model NAME_model`, ready, over `static const`
/// arrays in flash (so a firmware that uses it links no loader), and the blob
/// `const uint8_t NAME_blob[]`, 4-byte aligned for zero-copy loading at run
/// time, with `const size_t NAME_blob_len`.
///
/// The generated model's numbers are the f32s the loader gives from the blob
/// (taken from its validated view), written as round-tripping literals
/// ([`c_float`]). The source checks at compile time, each check failing with
/// its name (`NAME_check_...`): that the format version it was generated for
/// is the header's `KPCA_FORMAT_VERSION`, that `sizeof(kpca_model)` is
/// `KPCA_MODEL_SIZE`, and the length of every array (defined without a size,
/// so a missing value is not zero-filled silently); `_Static_assert` under
/// C11, a negative-size array typedef under C99.
///
/// The header includes `kpca.h` (for `kpca_model`) and has include guards,
/// `extern` declarations only, and the macros
/// `NAME_DIM`, `NAME_N_POINTS`, `NAME_N_COMPONENTS`, `NAME_KERNEL` (`"rbf"`, ...),
/// `NAME_GAMMA`, `NAME_DEGREE`, `NAME_COEF0`, `NAME_THRESHOLD` (floats written so
/// they round-trip, with an `f` suffix) and `NAME_BLOB_LEN` (NAME in capitals),
/// and `NAME_PROJECT`, `NAME_ANOMALY_SCORE`, `NAME_PROJECT_AND_SCORE`,
/// `NAME_IS_ANOMALY`: the model's kernel's entry points (`kpca_rbf_project`
/// and so on), so a firmware that calls them links one kernel's code; the
/// generating parameters are listed in a comment. The source holds the one
/// definition, 16 bytes per line, aligned with `__attribute__((aligned(4)))` under
/// GCC and Clang and C11 `_Alignas(4)` elsewhere. `name` must be a valid C
/// identifier of at most [`MAX_NAME_LEN`] characters (else [`FitError::BadName`]);
/// the blob is a [`ModelBlob`], validated once when it was made.
///
/// ```
/// use kpca_fit::{export, Dataset, KernelPca, KernelSpec};
/// let data = Dataset::new((0..60).map(|i| (i as f64 * 0.37).sin()).collect::<Vec<_>>(), 3)?;
/// let fitted = KernelPca::params().kernel(KernelSpec::rbf(None)).n_components(2).fit(&data)?;
/// let (h, c) = export::c_source(&fitted.to_blob()?, "sensor_model", &fitted.export_info())?;
/// assert!(h.contains("extern const uint8_t sensor_model_blob[];"));
/// assert!(h.contains("extern const kpca_model sensor_model_model;"));
/// assert!(c.contains("const kpca_model sensor_model_model = {"));
/// assert!(h.contains("#define SENSOR_MODEL_KERNEL \"rbf\""));
/// assert!(h.contains("#define SENSOR_MODEL_PROJECT kpca_rbf_project"));
/// assert!(c.contains("#include \"sensor_model.h\""));
/// assert!(export::c_source(&fitted.to_blob()?, "2bad", &fitted.export_info()).is_err());
/// # Ok::<(), kpca_fit::FitError>(())
/// ```
pub fn c_source(
    blob: &ModelBlob,
    name: &str,
    info: &ExportInfo,
) -> Result<(String, String), FitError> {
    check_name(name, C_KEYWORDS)?;
    let upper = name.to_ascii_uppercase();
    let mut params = String::new();
    for (k, v) in &info.parameters {
        let _ = writeln!(params, " *   {}: {}", comment_safe(k), comment_safe(v));
    }
    let h = c_header(blob, name, &upper, &params);
    let mut c = String::new();
    let _ = write!(
        c,
        "/* {name}.c: a kpca model (blob and generated model), generated by kpca {version}. Do not edit.\n\
         * Generating parameters:\n{params} */\n\
         #include \"{name}.h\"\n\
         \n\
         #if defined(__GNUC__) || defined(__clang__)\n\
         #define {upper}_ALIGNED __attribute__((aligned({BLOB_ALIGN})))\n\
         #elif defined(__STDC_VERSION__) && (__STDC_VERSION__ >= 201112L)\n\
         #define {upper}_ALIGNED _Alignas({BLOB_ALIGN})\n\
         #else\n\
         #error \"{name}.c needs GCC/Clang or C11 to align the model blob to {BLOB_ALIGN} bytes\"\n\
         #endif\n\
         \n\
         {upper}_ALIGNED const uint8_t {name}_blob[{upper}_BLOB_LEN] = {{\n\
         {hex}}};\n\
         \n\
         const size_t {name}_blob_len = {upper}_BLOB_LEN;\n",
        version = env!("CARGO_PKG_VERSION"),
        hex = hex_lines(blob.as_bytes(), "    "),
    );
    c.push_str(&model_source::c_model(blob, name, &upper));
    Ok((h, c))
}

/// The `.h` of [`c_source`].
fn c_header(blob: &ModelBlob, name: &str, upper: &str, params: &str) -> String {
    let sum = summarize(blob);
    let guard = format!("KPCA_MODEL_{upper}_H");
    let mut h = String::new();
    let _ = write!(
        h,
        "/* {name}.h: a kpca model, generated by kpca {version}. Do not edit.\n\
         *\n\
         * Two forms of the same model. {name}_model: a ready kpca_model over arrays in\n\
         * flash, checked by the exporter; pass &{name}_model to the entry points, no\n\
         * loader is linked. {name}_blob: the model blob, for the run-time route; load\n\
         * it in place (no copy) with kpca_model_from_bytes(&model, {name}_blob,\n\
         * {name}_blob_len). The blob is {BLOB_ALIGN}-byte aligned.\n\
         *\n\
         * Model: kernel {kernel}, d = {dim}, m = {m} stored points, k = {k} components{std}.\n\
         * Generating parameters:\n{params} */\n\
         #ifndef {guard}\n\
         #define {guard}\n\
         \n\
         #include <stddef.h>\n\
         #include <stdint.h>\n\
         #include \"kpca.h\"\n\
         \n\
         #ifdef __cplusplus\n\
         extern \"C\" {{\n\
         #endif\n\
         \n\
         #define {upper}_DIM {dim}u\n\
         #define {upper}_N_POINTS {m}u\n\
         #define {upper}_N_COMPONENTS {k}u\n\
         #define {upper}_KERNEL \"{kernel}\"\n\
         #define {upper}_GAMMA {gamma}\n\
         #define {upper}_DEGREE {degree}u\n\
         #define {upper}_COEF0 {coef0}\n\
         #define {upper}_THRESHOLD {threshold}\n\
         #define {upper}_BLOB_LEN {len}u\n\
         \n\
         /* This model's kernel's entry points (include/kpca.h): a firmware that\n\
          * projects only through these links only the {kernel} kernel's code. */\n\
         #define {upper}_PROJECT kpca_{stem}_project\n\
         #define {upper}_ANOMALY_SCORE kpca_{stem}_anomaly_score\n\
         #define {upper}_PROJECT_AND_SCORE kpca_{stem}_project_and_score\n\
         #define {upper}_IS_ANOMALY kpca_{stem}_is_anomaly\n\
         \n\
         /** The model blob ({len} bytes, {BLOB_ALIGN}-byte aligned). */\n\
         extern const uint8_t {name}_blob[];\n\
         /** Its length in bytes ({upper}_BLOB_LEN). */\n\
         extern const size_t {name}_blob_len;\n\
         /** The generated model: ready, in flash, checked by the exporter (no loader). */\n\
         extern const kpca_model {name}_model;\n\
         \n\
         #ifdef __cplusplus\n\
         }}\n\
         #endif\n\
         \n\
         #endif /* {guard} */\n",
        version = env!("CARGO_PKG_VERSION"),
        kernel = sum.kernel,
        stem = sum.c_stem,
        dim = sum.dim,
        m = sum.n_points,
        k = sum.n_components,
        std = if sum.standardized {
            ", standardised input"
        } else {
            ""
        },
        gamma = c_float(sum.gamma),
        degree = sum.degree,
        coef0 = c_float(sum.coef0),
        threshold = c_float(sum.threshold),
        len = blob.len(),
    );
    h
}

/// Rust source defining the blob as a `static` of a `#[repr(C, align(4))]` wrapper
/// around `[u8; N]`, so it can be read in place:
///
/// ```text
/// include!("sensor_model.rs");
/// let model = kpca::ModelRef::from_bytes(&SENSOR_MODEL.0)?;
/// ```
///
/// The static is `NAME` in capitals and the wrapper type `NAMEBlob` in CamelCase;
/// `name` must be a valid Rust identifier of at most [`MAX_NAME_LEN`] characters.
/// The constants of the C header come with it (each `#[allow(dead_code)]`, so
/// a firmware that uses some of them builds without warnings): `NAME_DIM`,
/// `NAME_N_POINTS`, `NAME_N_COMPONENTS`, `NAME_BLOB_LEN` (usize),
/// `NAME_KERNEL` (`&str`), `NAME_GAMMA`, `NAME_COEF0`, `NAME_THRESHOLD` (f32,
/// written so they round-trip) and `NAME_DEGREE` (u32), for sizing buffers
/// at compile time (`[f32; SENSOR_MODEL_N_COMPONENTS]`).
///
/// And the generated model, `pub static NAME_MODEL: kpca::ModelRef<'static>`,
/// a ready view over `static` arrays (the f32s the loader gives from the
/// blob) built at compile time with [`kpca_core::ModelRef::from_trusted_raw`]:
/// no load and no check at start-up, no loader linked. The source names the
/// crate `kpca` (the one a firmware adds).
pub fn rust_source(blob: &ModelBlob, name: &str) -> Result<String, FitError> {
    check_name(name, RUST_KEYWORDS)?;
    let sum = summarize(blob);
    let upper = name.to_ascii_uppercase();
    let camel: String = name
        .split('_')
        .filter(|p| !p.is_empty())
        .map(camel_case)
        .collect();
    let ty = format!("{camel}Blob");
    let mut out = String::new();
    let _ = write!(
        out,
        "// {name}: a kpca model blob, generated by kpca {version}. Do not edit.\n\
         // Model: kernel {kernel}, d = {dim}, m = {m} stored points, k = {k} components.\n\
         \n\
         /// The model blob, {align}-byte aligned so it is read in place (no copy).\n\
         ///\n\
         /// Load it with `kpca::ModelRef::from_bytes(&{upper}.0)`, which validates it\n\
         /// (header, CRC-32, dimensions) and borrows the floats straight from flash.\n\
         #[repr(C, align({align}))]\n\
         pub struct {ty}(pub [u8; {len}]);\n\
         \n\
         /// The `{name}` model ({len} bytes).\n\
         pub static {upper}: {ty} = {ty}([\n\
         {hex}]);\n",
        version = env!("CARGO_PKG_VERSION"),
        kernel = sum.kernel,
        dim = sum.dim,
        m = sum.n_points,
        k = sum.n_components,
        align = BLOB_ALIGN,
        len = blob.len(),
        hex = hex_lines(blob.as_bytes(), "    "),
    );
    rust_constants(&mut out, &upper, &sum, blob.len());
    out.push_str(&model_source::rust_model(blob, name, &upper));
    Ok(out)
}

/// The constants of [`rust_source`], one `pub const` each.
fn rust_constants(out: &mut String, upper: &str, sum: &BlobSummary, len: usize) {
    let rows: [(&str, &str, &str, String); 9] = [
        ("DIM", "usize", "Input dimension d.", sum.dim.to_string()),
        (
            "N_POINTS",
            "usize",
            "Stored points m.",
            sum.n_points.to_string(),
        ),
        (
            "N_COMPONENTS",
            "usize",
            "Components k.",
            sum.n_components.to_string(),
        ),
        (
            "KERNEL",
            "&str",
            "Kernel name.",
            format!("{:?}", sum.kernel),
        ),
        (
            "GAMMA",
            "f32",
            "Kernel gamma (0 where unused).",
            format!("{:?}", sum.gamma),
        ),
        (
            "DEGREE",
            "u32",
            "Polynomial degree (0 where unused).",
            sum.degree.to_string(),
        ),
        (
            "COEF0",
            "f32",
            "Kernel coef0 (0 where unused).",
            format!("{:?}", sum.coef0),
        ),
        (
            "THRESHOLD",
            "f32",
            "Anomaly threshold (0 when unset).",
            format!("{:?}", sum.threshold),
        ),
        (
            "BLOB_LEN",
            "usize",
            "Blob length in bytes.",
            len.to_string(),
        ),
    ];
    out.push('\n');
    for (field, ty, doc, value) in rows {
        let _ = writeln!(
            out,
            "/// {doc}\n#[allow(dead_code)]\npub const {upper}_{field}: {ty} = {value};"
        );
    }
}
