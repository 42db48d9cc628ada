//! The generated model of the C and Rust exports (the fit's
//! `export::c_source` and `export::rust_source`, and xtask's bench model):
//! the model's record and its sections as source (`static const` arrays and
//! a `const kpca_model` in C, `static` arrays and a `static`
//! [`kpca_core::ModelRef`] in Rust), written from the view of a validated
//! [`ModelBlob`], so a firmware that uses it links no loader and runs no load
//! at start-up. Here, on the blob owner, so that xtask writes it without
//! building the fit.

use crate::ModelBlob;
use kpca_core::format::FORMAT_VERSION;
use kpca_core::{ModelRef, RawModel};
use std::fmt::Write as _;

/// A float literal for C that reads back to the same f32: Rust's shortest
/// round-trip representation with a `.0` or exponent, and the `f` suffix.
pub fn c_float(v: f32) -> String {
    let mut s = format!("{v:?}");
    if !(s.contains('.') || s.contains('e') || s.contains("inf") || s.contains("NaN")) {
        s.push_str(".0");
    }
    s.push('f');
    s
}

/// Floats per line of a generated array.
const PER_LINE: usize = 8;

/// One section of the record: its field name in `kpca_model` / `RawModel`
/// and its values (`None`: the field is NULL).
struct Field<'a> {
    name: &'static str,
    values: Option<&'a [f32]>,
}

/// The record's sections in field order, taken from the validated view
/// (the same f32s the loader gives).
fn fields<'a>(model: &ModelRef<'a>) -> Vec<Field<'a>> {
    let parts = model.parts();
    let heads = model.heads();
    let (mean, inv_std) = match parts.standardize {
        Some((m, s)) => (Some(m), Some(s)),
        None => (None, None),
    };
    let field = |name, values| Field { name, values };
    vec![
        field("mean", mean),
        field("inv_std", inv_std),
        field("points", Some(parts.points)),
        field("point_sq_norms", Some(parts.point_sq_norms)),
        field("a", Some(parts.a)),
        field("b", Some(parts.b)),
        field("c", Some(parts.c)),
        field("eigenvalues", Some(parts.eigenvalues)),
        field("preimage_scores", heads.preimage.map(|p| p.scores)),
        field("preimage_coef", heads.preimage.map(|p| p.coef)),
        field("reg_weights", heads.regression.map(|r| r.weights)),
        field("reg_intercept", heads.regression.map(|r| r.intercept)),
    ]
}

/// The record's numbers as (field, value) pairs of source text, in field
/// order, floats written by `float`.
fn scalars(raw: &RawModel, float: fn(f32) -> String) -> [(&'static str, String); 16] {
    let int = |v: u32| format!("{v}u");
    [
        ("kernel", int(raw.kernel)),
        ("dim", int(raw.dim)),
        ("n_points", int(raw.n_points)),
        ("n_components", int(raw.n_components)),
        ("degree", int(raw.degree)),
        ("gamma", float(raw.gamma)),
        ("coef0", float(raw.coef0)),
        ("threshold", float(raw.threshold)),
        ("s", float(raw.s)),
        ("fit_method", int(raw.fit_method)),
        ("n_train", int(raw.n_train)),
        ("total_variance", float(raw.total_variance)),
        ("flags", int(raw.flags)),
        ("n_preimage", int(raw.n_preimage)),
        ("n_targets", int(raw.n_targets)),
        ("precision", int(raw.precision)),
    ]
}

/// `values` as lines of `float` literals, `indent` before each line.
fn float_lines(values: &[f32], float: fn(f32) -> String, indent: &str) -> String {
    let mut out = String::new();
    for chunk in values.chunks(PER_LINE) {
        let line: Vec<String> = chunk.iter().map(|&v| float(v)).collect();
        let _ = writeln!(out, "{indent}{},", line.join(", "));
    }
    out
}

/// A Rust float literal that reads back to the same f32 (Rust's shortest
/// round-trip form; the array's type makes it an f32).
fn rust_float(v: f32) -> String {
    let s = format!("{v:?}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        s + ".0"
    }
}

/// The C of the generated model of `blob`, for a `.c` that has included
/// `kpca.h`: the compile-time check macro `UPPER_CHECK`, the checks of the
/// format version and of `sizeof(kpca_model)`, one `static const float`
/// array per section with the check of its length (each check fails naming
/// itself, `NAME_check_...`), and `const kpca_model NAME_model`. `name` must
/// be a valid C identifier and `upper` the prefix of its macros (the fit's
/// `export::c_source` checks the name).
pub fn c_model(blob: &ModelBlob, name: &str, upper: &str) -> String {
    let model = blob.model();
    let mut c = String::new();
    let _ = write!(
        c,
        "\n\
         /* The generated model: the record and its sections as the loader would\n\
          * give them from {name}_blob (the same f32s), checked by the exporter on\n\
          * the host. A firmware that projects with {name}_model links no loader.\n\
          * {upper}_CHECK(cond, name) fails to compile, naming the check, when cond\n\
          * is false: _Static_assert under C11, a negative-size array before. */\n\
         #if defined(__STDC_VERSION__) && (__STDC_VERSION__ >= 201112L)\n\
         #define {upper}_CHECK(cond, name) _Static_assert(cond, #name)\n\
         #else\n\
         #define {upper}_CHECK(cond, name) typedef char name[(cond) ? 1 : -1]\n\
         #endif\n\
         \n\
         /* The format version this file was generated for (kpca.h's KPCA_FORMAT_VERSION). */\n\
         #define {upper}_FORMAT_VERSION {FORMAT_VERSION}u\n\
         {upper}_CHECK({upper}_FORMAT_VERSION == KPCA_FORMAT_VERSION, {name}_check_format_version);\n\
         {upper}_CHECK(sizeof(kpca_model) == KPCA_MODEL_SIZE, {name}_check_model_size);\n"
    );
    let fields = fields(model);
    for f in &fields {
        let Some(values) = f.values else { continue };
        let _ = write!(
            c,
            "\nstatic const float {name}_{field}[] = {{\n{lines}}};\n\
             {upper}_CHECK(sizeof({name}_{field}) / sizeof({name}_{field}[0]) == {len}u, \
             {name}_check_{field}_length);\n",
            field = f.name,
            lines = float_lines(values, c_float, "    "),
            len = values.len(),
        );
    }
    let _ = write!(
        c,
        "\nconst kpca_model {name}_model = {{\n    .magic = KPCA_MODEL_MAGIC,\n"
    );
    for (field, value) in scalars(model.as_raw(), c_float) {
        let _ = writeln!(c, "    .{field} = {value},");
    }
    let _ = writeln!(c, "    .front_end = KPCA_FRONT_END_NONE,");
    for f in &fields {
        let value = match f.values {
            Some(_) => format!("{name}_{}", f.name),
            None => "NULL".into(),
        };
        let _ = writeln!(c, "    .{} = {value},", f.name);
    }
    c.push_str("    .integer = NULL,\n    .front = NULL,\n};\n");
    c
}

/// The Rust of the generated model of `blob`: a private module
/// `NAME_sections` of `static` arrays and `pub static UPPER_MODEL`, a
/// [`ModelRef`] built at compile time by [`ModelRef::from_trusted_raw`],
/// naming the crate `kpca`. `name` must be a valid Rust identifier and
/// `upper` the prefix of its statics (the fit's `export::rust_source` checks
/// the name).
pub fn rust_model(blob: &ModelBlob, name: &str, upper: &str) -> String {
    let model = blob.model();
    let module = format!("{name}_sections");
    let mut out = format!(
        "\n/// The sections of the generated model [`{upper}_MODEL`] (the f32s the\n\
         /// loader gives from [`{upper}`]).\n\
         #[allow(clippy::approx_constant, clippy::excessive_precision, clippy::unreadable_literal)]\n\
         mod {module} {{\n"
    );
    let fields = fields(model);
    for f in &fields {
        let Some(values) = f.values else { continue };
        let _ = write!(
            out,
            "    pub(super) static {field}: [f32; {len}] = [\n{lines}    ];\n",
            field = f.name.to_ascii_uppercase(),
            len = values.len(),
            lines = float_lines(values, rust_float, "        "),
        );
    }
    let _ = write!(
        out,
        "}}\n\n\
         /// The `{name}` model as a ready view over `static` arrays: no load and no\n\
         /// check at start-up (the exporter validated it on the host). Project with\n\
         /// `{upper}_MODEL.project(&x, &mut y)`.\n\
         // SAFETY: the exporter wrote this record and these arrays from the view of\n\
         // a validated blob, field for field; the arrays are 'static.\n\
         pub static {upper}_MODEL: kpca::ModelRef<'static> = unsafe {{\n\
         \x20   kpca::ModelRef::from_trusted_raw(kpca::RawModel {{\n\
         \x20       magic: kpca::LOADED_MAGIC,\n"
    );
    for (field, value) in scalars(model.as_raw(), rust_float) {
        let value = value.trim_end_matches('u');
        let _ = writeln!(out, "        {field}: {value},");
    }
    out.push_str("        front_end: kpca::FRONT_END_NONE,\n");
    for f in &fields {
        let value = match f.values {
            Some(_) => format!("{module}::{}.as_ptr()", f.name.to_ascii_uppercase()),
            None => "core::ptr::null()".into(),
        };
        let _ = writeln!(out, "        {}: {value},", f.name);
    }
    out.push_str(
        "        integer: core::ptr::null(),\n        front: core::ptr::null(),\n    })\n};\n",
    );
    out
}
