//! The BasicMotions anomaly-detection demo, a user of the `kpca_cli` library:
//! it follows the DEMO PROTOCOL of `data/README.md`, reports the ROC AUC next to
//! the peers of `scripts/peers/demo_peers.json`, and writes the model, its C
//! export and the data that `scripts/firmware-demo.sh` runs on the emulated
//! Cortex-M4F.
//!
//! ```text
//! cargo run --release -p kpca-cli --example demo -- [--output-dir DIR]
//! ```
//!
//! The recordings and the peers' numbers are built into the program, so it runs
//! from any directory. The steps are in the `demo` module (examples/demo/),
//! which tests/cli_demo.rs runs as well.

#[path = "demo/mod.rs"]
mod demo;

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs the BasicMotions anomaly-detection demo (data/README.md).
#[derive(Debug, Parser)]
#[command(
    name = "demo",
    about = "Kernel PCA anomaly detection on the bundled BasicMotions recordings (data/README.md)",
    after_help = "Follows the DEMO PROTOCOL of data/README.md: windows of 20 steps \
    (stride 10), 24 features per window (mean, std, min, max of each of the 6 channels), \
    normal class Walking, train on the 90 Walking windows of the training split, test on all \
    360 windows of the test split, standardised input, RBF kernel with gamma = 1/24, k = 4, \
    threshold = 99th percentile of the training scores (1% false alarms on the training \
    data). Scores are the device model's f32 scores.\n\n\
    Writes into the output directory: demo_model.kpca (model blob), demo_model.h and \
    demo_model.c (C export), demo.svg (test windows on the first two components, coloured \
    normal/anomalous, and the scree plot), test_vectors.csv (the 360 test feature vectors), \
    expected_scores.csv (their f32 coordinates and anomaly scores), test_labels.csv \
    (0 normal, 1 anomalous).\n\n\
    Example:\n  cargo run --release -p kpca-cli --example demo -- --output-dir kpca-demo"
)]
struct Args {
    /// Directory for the outputs (created if missing).
    #[arg(long, value_name = "DIR", default_value = "kpca-demo")]
    output_dir: PathBuf,
    /// The caller runs the firmware step next (scripts/demo.sh does): say so
    /// instead of printing the command to run.
    #[arg(long)]
    firmware_follows: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match demo::run(&args.output_dir, args.firmware_follows) {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("demo: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
