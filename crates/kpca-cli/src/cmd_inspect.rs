//! `kpca inspect`: what a model file holds, and whether it is valid.

use crate::error::{count, CliError, CliResult};
use crate::hints::{self, ModelShape};
use crate::model_summary::{device_kernel_text, variance_shares, VarianceBasis};
use crate::output::{float_text, Console};
use crate::table::Source;
use clap::Args;
use kpca_core::crc32::crc32;
use kpca_core::format::{CRC_LEN, HEADER_LEN};
use kpca_core::Header;
use kpca_core::{FitMethod, KernelId, ModelRef};
use kpca_fit::ModelBlob;
use std::path::PathBuf;

/// Arguments of `kpca inspect`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Prints the kernel and its parameters, the dimensions, the size of \
    each section, the flash size, the explained variance (from the stored eigenvalues, as a \
    proportion among the k stored components), the anomaly threshold, and the result of the \
    CRC-32 and full validation (OK, or the core's error). Exits 1 when the model is invalid \
    (with --quiet that exit code is the only output). A hint on standard error flags a model \
    larger than a typical microcontroller's flash.\n\n\
    Example:\n  kpca inspect model.kpca"
)]
pub struct InspectArgs {
    /// Model blob to describe, or `-` for standard input (required).
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,
    /// Print nothing but warnings and errors: the exit code says whether the
    /// model is valid [default: off].
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The little-endian u32 at `at` (the stored CRC), if the bytes are there.
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)?.try_into().ok().map(u32::from_le_bytes)
}

/// What the stored points are.
fn stored_points_text(model: &ModelRef<'_>) -> String {
    let m = model.n_points();
    if model.is_linear_map() {
        format!(
            "{m} (a folded linear map: the {} columns of W = Z'A and the score's centring \
             vector)",
            model.n_components()
        )
    } else {
        format!("{m} (training points for full kernel PCA, landmarks for Nyström)")
    }
}

/// The report of a valid model.
fn print_valid(out: &Console, model: &ModelRef<'_>, len: usize, version: u16) -> CliResult<()> {
    let parts = model.parts();
    let (d, m, k) = (model.dim(), model.n_points(), model.n_components());
    out.report(&format!("kernel: {}", device_kernel_text(&model.kernel())))?;
    out.report(&format!("input dimension d: {d}"))?;
    out.report(&format!("stored points m: {}", stored_points_text(model)))?;
    out.report(&format!("components k: {k}"))?;
    out.report(&format!("standardised input: {}", input_map_text(model)))?;
    let std_bytes = if model.is_standardized() {
        2 * d * 4
    } else {
        0
    };
    out.report(&format!(
        "sections (bytes): header {HEADER_LEN}, standardisation {std_bytes}, points {}, norms {}, \
         A {}, b {}, c {}, eigenvalues {}, CRC {CRC_LEN}",
        m * d * 4,
        m * 4,
        m * k * 4,
        k * 4,
        m * 4,
        k * 4
    ))?;
    out.report(&optional_sections_text(model))?;
    out.report(&format!("flash: {len} bytes (the blob, read in place)"))?;
    out.report(&format!(
        "per-vector cost: {m} kernel evaluations ({} multiply-adds) + {} multiply-adds{}",
        m * d,
        m * k,
        if model.is_linear_map() {
            " (the d x k map and the score's d-vector)"
        } else {
            ""
        }
    ))?;
    out.report(&fit_line(model, version))?;
    let ev: Vec<String> = parts.eigenvalues.iter().map(|&v| float_text(v)).collect();
    out.report(&format!("{}: {}", eigenvalue_label(model), ev.join("  ")))?;
    out.report(&explained_line(model, version))?;
    out.report(&format!("centring constant s: {}", float_text(parts.s)))?;
    if model.threshold() > 0.0 {
        out.report(&format!(
            "anomaly threshold: {}",
            float_text(model.threshold())
        ))
    } else {
        out.report("anomaly threshold: unset (0)")
    }
}

/// The optional sections line: which sections the model has, their sizes
/// and what each costs per vector after the projection.
fn optional_sections_text(model: &ModelRef<'_>) -> String {
    let (d, k) = (model.dim(), model.n_components());
    let mut parts = Vec::new();
    let n = model.n_preimage_rows();
    if n > 0 {
        parts.push(format!(
            "pre-image map for kpca_reconstruct ({}, {} bytes; {n} kernel evaluations on \
             k-vectors + {} multiply-adds per vector)",
            count(n, "score vector"),
            8 + 4 * (n * k + (n + 1) * d),
            n * d
        ));
    }
    let t = model.n_targets();
    if t > 0 {
        parts.push(format!(
            "regression head for kpca_predict ({}, {} bytes; {} multiply-adds per vector)",
            count(t, "target"),
            8 + 4 * (k * t + t),
            k * t
        ));
    }
    if parts.is_empty() {
        "optional sections: none".into()
    } else {
        format!("optional sections: {}", parts.join("; "))
    }
}

/// How the device maps an input before the kernel: standardised, only
/// centred (1/std = 1: how the fit stores rbf and laplacian models without
/// standardisation, for f32 accuracy far from the origin), or as given.
fn input_map_text(model: &ModelRef<'_>) -> &'static str {
    match model.standardization() {
        Some((_, inv_std)) if inv_std.iter().all(|&v| v == 1.0) && model.is_linear_map() => {
            "centred only (a stored centre is subtracted on the device, 1/std = 1: the \
             folded linear map works on x - centre, which keeps f32 accurate far from the \
             origin)"
        }
        Some((_, inv_std)) if inv_std.iter().all(|&v| v == 1.0) => {
            "centred only (a stored centre is subtracted on the device, 1/std = 1: the \
             points of this shift-invariant kernel are stored relative to their centre, \
             which keeps f32 accurate far from the origin)"
        }
        Some(_) => "yes (per-feature mean and 1/std stored, applied on the device)",
        None => "no (rows are used as given)",
    }
}

/// What the model records of its fit.
fn fit_line(model: &ModelRef<'_>, version: u16) -> String {
    let info = model.fit_info();
    let method = match info.method {
        FitMethod::Full => "full kernel PCA",
        FitMethod::Nystrom => "Nyström kernel PCA",
        _ => return format!("fit: not recorded (format {version})"),
    };
    format!(
        "fit: {method} on n = {} training rows, total variance {}",
        info.n_train,
        float_text(info.total_variance)
    )
}

/// The eigenvalue line's label: the convention, when the model records it.
fn eigenvalue_label(model: &ModelRef<'_>) -> &'static str {
    match model.fit_info().method {
        FitMethod::Full | FitMethod::Nystrom => {
            "eigenvalues (of the centred kernel matrix, scikit-learn's eigenvalues_)"
        }
        _ => {
            "eigenvalues (fit not recorded; format 1 stored those of the centred kernel matrix \
             for a full fit, score variances for Nyström)"
        }
    }
}

/// The explained-variance line: shares of the fit's total variance when the
/// model stores it, else proportions among the k stored components.
fn explained_line(model: &ModelRef<'_>, version: u16) -> String {
    let shares = variance_shares(model);
    let mut cumulative = 0.0;
    let mut text = Vec::new();
    for r in &shares.shares {
        cumulative += r;
        text.push(format!("{r:.4} (cum. {cumulative:.4})"));
    }
    let what = match shares.basis {
        VarianceBasis::FitTotal => "share of the fit's total variance".to_string(),
        _ => format!(
            "proportion among the {} stored; the fit's total variance is not stored in this \
             model, format {version}",
            model.n_components()
        ),
    };
    format!("explained variance ({what}): {}", text.join("  "))
}

/// What the header of a blob that failed to load claims, and its CRC.
fn describe_damaged(out: &Console, bytes: &[u8], h: &Header) -> CliResult<()> {
    let kernel = KernelId::try_from(h.kernel)
        .map(|id| id.name())
        .unwrap_or("unknown");
    out.report(&format!(
        "header: version {}, kernel {kernel}, d = {}, m = {}, k = {}, standardised: {}, \
         declared length {}",
        h.version,
        h.dim,
        h.n_points,
        h.n_components,
        h.is_standardized(),
        h.total_len
    ))?;
    let declared = usize::try_from(h.total_len).unwrap_or(0);
    if declared >= HEADER_LEN + CRC_LEN && declared <= bytes.len() {
        let stored = u32_at(bytes, declared - CRC_LEN).unwrap_or(0);
        let computed = crc32(&bytes[..declared - CRC_LEN]);
        let verdict = if stored == computed {
            "match"
        } else {
            "MISMATCH"
        };
        out.report(&format!(
            "CRC-32: stored 0x{stored:08x}, computed 0x{computed:08x} ({verdict})"
        ))?;
    }
    Ok(())
}

/// Runs `kpca inspect`.
pub fn run(args: &InspectArgs) -> CliResult<()> {
    let out = Console::new(false, args.quiet);
    // The raw bytes, so that a damaged file can still be described.
    let source = Source::from_arg(&args.model);
    let raw = source.read_all()?;
    let bytes = &raw[..];
    let name = source.name();
    out.report(&format!("model: {name}"))?;
    out.report(&format!("size: {} bytes", bytes.len()))?;
    match ModelBlob::from_bytes(bytes) {
        Ok(blob) => {
            let model = blob.model();
            let crc = u32_at(bytes, bytes.len().saturating_sub(CRC_LEN)).unwrap_or(0);
            let version = Header::read(bytes).map_or(Header::of(model).version, |h| h.version);
            out.report(&format!("format: version {version}, CRC-32 0x{crc:08x}"))?;
            print_valid(&out, model, bytes.len(), version)?;
            out.report("check: OK (CRC-32 matches; header, dimensions, kernel and values valid)")?;
            if let Some(hint) = hints::flash_hint(&ModelShape::of(model)) {
                out.hint(&hint);
            }
            Ok(())
        }
        Err(e) => {
            // Say what the header claims, as far as it can be read.
            if let Some(h) = Header::read(bytes).filter(|_| bytes.len() >= HEADER_LEN + CRC_LEN) {
                describe_damaged(&out, bytes, &h)?;
            }
            out.report(&format!(
                "check: FAILED: {e} (kpca status {} {:?})",
                e.code(),
                e
            ))?;
            Err(CliError::input(format!(
                "{name}: not a valid kpca model: {e}"
            )))
        }
    }
}
