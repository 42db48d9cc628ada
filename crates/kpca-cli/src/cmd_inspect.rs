//! `kpca inspect`: what a model file holds, and whether it is valid.

use crate::error::{CliError, CliResult};
use crate::model_file::ModelFile;
use crate::model_summary::{device_kernel_text, explained_among_stored};
use crate::output::float_text;
use clap::Args;
use kpca::crc32::crc32;
use kpca::format::HEADER_LEN;
use kpca::Header;
use kpca::{KernelId, ModelRef};
use std::path::PathBuf;

/// Arguments of `kpca inspect`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Prints the kernel and its parameters, the dimensions, the size of \
    each section, the flash size, the explained variance (from the stored eigenvalues, as a \
    proportion among the k stored components), the anomaly threshold, and the result of the \
    CRC-32 and full validation (OK, or the core's error). Exits 1 when the model is invalid.\n\n\
    Example:\n  kpca inspect model.kpca"
)]
pub struct InspectArgs {
    /// Model blob to describe (required).
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,
}

/// The little-endian u32 at `at` (the stored CRC), if the bytes are there.
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)?.try_into().ok().map(u32::from_le_bytes)
}

fn print_valid(model: &ModelRef<'_>, len: usize) {
    let parts = model.parts();
    let (d, m, k) = (model.dim(), model.n_points(), model.n_components());
    println!("kernel: {}", device_kernel_text(&model.kernel()));
    println!("input dimension d: {d}");
    println!("stored points m: {m} (training points for full kernel PCA, landmarks for Nyström)");
    println!("components k: {k}");
    println!(
        "standardised input: {}",
        if model.is_standardized() {
            "yes (per-feature mean and 1/std stored, applied on the device)"
        } else {
            "no (rows are used as given)"
        }
    );
    let std_bytes = if model.is_standardized() {
        2 * d * 4
    } else {
        0
    };
    println!(
        "sections (bytes): header {HEADER_LEN}, standardisation {std_bytes}, points {}, norms {}, \
         A {}, b {}, c {}, eigenvalues {}, CRC 4",
        m * d * 4,
        m * 4,
        m * k * 4,
        k * 4,
        m * 4,
        k * 4
    );
    println!("flash: {len} bytes (the blob, read in place)");
    println!(
        "per-vector cost: {m} kernel evaluations ({} multiply-adds) + {} multiply-adds",
        m * d,
        m * k
    );
    let ev: Vec<String> = parts.eigenvalues.iter().map(|&v| float_text(v)).collect();
    println!("eigenvalues: {}", ev.join("  "));
    let ratio = explained_among_stored(parts.eigenvalues);
    let mut cumulative = 0.0;
    let mut text = Vec::new();
    for r in &ratio {
        cumulative += r;
        text.push(format!("{r:.4} (cum. {cumulative:.4})"));
    }
    println!(
        "explained variance (proportion among the {k} stored): {}",
        text.join("  ")
    );
    println!("centring constant s: {}", float_text(parts.s));
    if model.threshold() > 0.0 {
        println!("anomaly threshold: {}", float_text(model.threshold()));
    } else {
        println!("anomaly threshold: unset (0)");
    }
}

/// What the header of a blob that failed to load claims, and its CRC.
fn describe_damaged(bytes: &[u8], h: &Header) {
    let kernel = KernelId::try_from(h.kernel)
        .map(|id| id.name())
        .unwrap_or("unknown");
    println!(
        "header: version {}, kernel {kernel}, d = {}, m = {}, k = {}, standardised: {}, \
         declared length {}",
        h.version,
        h.dim,
        h.n_points,
        h.n_components,
        h.is_standardized(),
        h.total_len
    );
    let declared = usize::try_from(h.total_len).unwrap_or(0);
    if declared >= HEADER_LEN + 4 && declared <= bytes.len() {
        let stored = u32_at(bytes, declared - 4).unwrap_or(0);
        let computed = crc32(&bytes[..declared - 4]);
        let verdict = if stored == computed {
            "match"
        } else {
            "MISMATCH"
        };
        println!("CRC-32: stored 0x{stored:08x}, computed 0x{computed:08x} ({verdict})");
    }
}

/// Runs `kpca inspect`.
pub fn run(args: &InspectArgs) -> CliResult<()> {
    let file = ModelFile::read(&args.model)?;
    let bytes = file.bytes();
    println!("model: {}", file.name);
    println!("size: {} bytes", bytes.len());
    match ModelRef::from_bytes(bytes) {
        Ok(model) => {
            let crc = u32_at(bytes, bytes.len().saturating_sub(4)).unwrap_or(0);
            let version = Header::of(&model).version;
            println!("format: version {version}, CRC-32 0x{crc:08x}");
            print_valid(&model, bytes.len());
            println!("check: OK (CRC-32 matches; header, dimensions, kernel and values valid)");
            Ok(())
        }
        Err(e) => {
            // Say what the header claims, as far as it can be read.
            if let Some(h) = Header::read(bytes).filter(|_| bytes.len() >= HEADER_LEN + 4) {
                describe_damaged(bytes, &h);
            }
            println!("check: FAILED: {e} (kpca status {} {:?})", e.code(), e);
            Err(CliError::input(format!(
                "{}: not a valid kpca model: {e}",
                file.name
            )))
        }
    }
}
