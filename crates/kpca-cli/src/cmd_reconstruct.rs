//! `kpca reconstruct`: the pre-image of every input row in input space, with
//! the device's f32 code ([`kpca_core::ModelRef::reconstruct`], what
//! kpca_reconstruct computes), then for rbf models optional fixed-point steps
//! of Mika et al. on the host ([`kpca_fit::preimage::fixed_point`]) over the
//! model's own stored points and expansion weights.

use crate::cmd_project::check_one_stdin;
use crate::error::{CliError, CliResult};
use crate::model_file::ModelFile;
use crate::output::Sink;
use crate::projection::read_rows_for;
use clap::Args;
use kpca_core::{Kernel, ModelParts, ModelRef};
use kpca_fit::preimage::{expansion_weights, fixed_point};
use std::path::PathBuf;

/// Arguments of `kpca reconstruct`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Every input row gives one output row of d values: its pre-image x-hat, in \
    the data's units (with --residual: x - x-hat, the per-feature residual, which input channel \
    is off). With \
    --iterate 0 (the default) this is the learned map's answer computed by the core's f32 \
    code (ModelRef::reconstruct), exactly what kpca_reconstruct computes on the device; with \
    --iterate N (rbf models only) up to N fixed-point steps of Mika et al. (1999) follow, in \
    f64, from that answer (they stop early once a step moves less than 1e-12 (1 + |z|)).\n\n\
    Example:\n  kpca fit --input train.csv --kernel rbf --components 4 --inverse-transform \
    --output model.kpca\n  kpca reconstruct --model model.kpca --input test.csv --output \
    x_hat.csv --iterate 20"
)]
pub struct ReconstructArgs {
    /// Model blob written by `kpca fit --inverse-transform`, or `-` for standard
    /// input (required).
    #[arg(long, value_name = "FILE")]
    pub model: PathBuf,
    /// Data: a CSV or NPY file with the model's d features per row, or `-` for
    /// standard input (required).
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// Where to write the CSV of pre-images, `-` for standard output.
    #[arg(long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// Fixed-point steps after the learned map (rbf models only) [default: 0].
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub iterate: usize,
    /// Write the per-feature residual x - x-hat instead of x-hat: which input
    /// channel is off [default: off].
    #[arg(long)]
    pub residual: bool,
    /// Write a header line first: the input's column names when it has a
    /// header line, else x1,...,xd [default: off].
    #[arg(long)]
    pub header: bool,
}

/// The f64 copies of what the fixed-point iteration needs from a model.
struct Expansion {
    gamma: f64,
    points: Vec<f64>,
    a: Vec<f64>,
    c: Vec<f64>,
    mean: Vec<f64>,
    inv_std: Vec<f64>,
}

impl Expansion {
    /// The expansion of an rbf model, or an error naming the kernel.
    fn of(model: &ModelRef<'_>, name: &str) -> CliResult<Expansion> {
        let parts: ModelParts<'_> = model.parts();
        let Kernel::Rbf { gamma } = parts.kernel else {
            return Err(CliError::input(format!(
                "{name}: --iterate needs an rbf model (Mika's fixed-point iteration is for the \
                 Gaussian kernel); this model's kernel is {}",
                crate::model_summary::device_kernel_text(&parts.kernel)
            )));
        };
        let wide = |s: &[f32]| s.iter().map(|&v| f64::from(v)).collect::<Vec<f64>>();
        let d = parts.dim;
        let (mean, inv_std) = match parts.standardize {
            Some((m, s)) => (wide(m), wide(s)),
            None => (vec![0.0; d], vec![1.0; d]),
        };
        Ok(Expansion {
            gamma: f64::from(gamma),
            points: wide(parts.points),
            a: wide(parts.a),
            c: wide(parts.c),
            mean,
            inv_std,
        })
    }

    /// `steps` fixed-point steps from `start` (data units) for a point with
    /// coordinates `y`; the answer in data units.
    fn refine(&self, y: &[f32], start: &[f32], steps: usize) -> Vec<f64> {
        let y: Vec<f64> = y.iter().map(|&v| f64::from(v)).collect();
        let g = expansion_weights(&self.c, &self.a, &y);
        let z0: Vec<f64> = start
            .iter()
            .zip(self.mean.iter().zip(&self.inv_std))
            .map(|(&x, (m, s))| (f64::from(x) - m) * s)
            .collect();
        let z = fixed_point(&self.points, z0.len(), &g, self.gamma, &z0, steps);
        z.iter()
            .zip(self.mean.iter().zip(&self.inv_std))
            .map(|(v, (m, s))| v / s + m)
            .collect()
    }
}

/// Runs `kpca reconstruct`.
pub fn run(args: &ReconstructArgs) -> CliResult<()> {
    check_one_stdin(&args.model, &args.input)?;
    let file = ModelFile::read(&args.model)?;
    let model = file.model();
    if model.n_preimage_rows() == 0 {
        return Err(CliError::input(format!(
            "{}: the model has no pre-image section: fit it with `kpca fit ... \
             --inverse-transform`",
            file.name
        )));
    }
    let expansion = match args.iterate {
        0 => None,
        _ => Some(Expansion::of(model, &file.name)?),
    };
    let table = read_rows_for(model, &args.input)?;
    let d = model.dim();
    let mut sink = Sink::create(&args.output)?;
    if args.header {
        let names: Vec<String> = match &table.header {
            Some(h) if h.len() == d => h.clone(),
            _ => (1..=d).map(|j| format!("x{j}")).collect(),
        };
        sink.text_row(&names)?;
    }
    let mut x_hat = vec![0.0f32; d];
    let mut y = vec![0.0f32; model.n_components()];
    for (row, origin) in table.rows().zip(&table.origins) {
        let fail = |e: kpca_core::Error| {
            CliError::input(format!("{}: {origin}: cannot reconstruct: {e}", table.name))
        };
        model.reconstruct(row, &mut x_hat).map_err(fail)?;
        let residual = |x: f32, r: f32| if args.residual { x - r } else { r };
        match &expansion {
            None => {
                let out: Vec<f32> = row
                    .iter()
                    .zip(&x_hat)
                    .map(|(&x, &r)| residual(x, r))
                    .collect();
                sink.float_row(&out)?;
            }
            Some(ex) => {
                model.project(row, &mut y).map_err(fail)?;
                let z = ex.refine(&y, &x_hat, args.iterate);
                let out: Vec<f64> = row
                    .iter()
                    .zip(&z)
                    .map(|(&x, &r)| if args.residual { f64::from(x) - r } else { r })
                    .collect();
                sink.float_row(&out)?;
            }
        }
    }
    sink.finish()
}
