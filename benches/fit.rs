//! Fit benchmark, kpca side of the side-by-side comparison with scikit-learn and
//! nystrompca (run the whole comparison with `scripts/bench-fit.sh`).
//!
//! For each data set it times, as the median of several runs after one warm-up run:
//! - full kernel PCA with the dense solver (n <= 2000 only),
//! - full kernel PCA with the iterative (Lanczos) solver,
//! - Nyström kernel PCA on m = 200 landmarks (a seeded sample, written out),
//!
//! all with k = 8 components and the RBF kernel with gamma = 1/d. A warm-up run
//! taking 2 s or more counts as the first timed run. Each run times
//! the fit, then `transform` of the training set, separately, so both "fit" and
//! "fit + transform" medians come from the same runs.
//!
//! It writes the inputs it used to `target/bench-fit/` (`<name>_x.npy`, f64
//! row-major; `<name>_landmarks.npy`, int64) so the Python side fits the very same
//! data and landmarks, prints a table, and writes `target/bench-fit/rust.json`.
//!
//! Environment: `KPCA_BENCH_BUDGET` (seconds of timed runs per case, default 2;
//! the script sets 1), `KPCA_BENCH_OUT` (output directory, default
//! `<crate>/target/bench-fit`), `RAYON_NUM_THREADS` (rayon's own).

use kpca::fit::{sample_landmarks, Dataset, KernelPca, KernelSpec, Nystrom, SeededRng, Solver};
use kpca::fit::{FittedKpca, SolverReport};
use rand_core::SeedableRng;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

const K: usize = 8;
const M_LANDMARKS: usize = 200;
const LANDMARK_SEED: u64 = 2024;
const DATA_SEED: u64 = 0x6b70_6361; // "kpca"
const SYNTH_D: usize = 16;
const SYNTH_SIZES: [usize; 3] = [500, 2000, 5000];
const DENSE_MAX_N: usize = 2000;
const MIN_RUNS: usize = 3;
const MAX_RUNS: usize = 15;
/// A warm-up run at least this long (seconds) counts as the first timed run.
const WARMUP_KEEP_S: f64 = 2.0;

/// SplitMix64: a tiny deterministic generator for the synthetic data (the same
/// bytes on every platform).
struct SplitMix(u64);

impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in (0, 1).
    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    /// Standard normal (Box-Muller, one value per call).
    fn normal(&mut self) -> f64 {
        let u1 = self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// `n` rows of RBF-friendly synthetic data in d = 16: five clusters, each a curved
/// 2-D sheet (centre + A_c u + 0.4 sin(2 u_0 + j/2)) plus small isotropic noise.
/// Squared distances are O(d), so gamma = 1/d gives a kernel that is neither
/// diagonal nor constant, and a decaying spectrum with distinct top eigenvalues.
/// Rows are generated in order, so a smaller set is a prefix of a larger one.
fn synthetic(n: usize, d: usize) -> Vec<f64> {
    const CLUSTERS: usize = 5;
    let mut rng = SplitMix(DATA_SEED);
    let centres: Vec<f64> = (0..CLUSTERS * d).map(|_| 1.2 * rng.normal()).collect();
    let sheets: Vec<f64> = (0..CLUSTERS * d * 2).map(|_| 0.6 * rng.normal()).collect();
    let mut x = Vec::with_capacity(n * d);
    for _ in 0..n {
        let c = (rng.next_u64() % CLUSTERS as u64) as usize;
        let u = [rng.normal(), rng.normal()];
        for j in 0..d {
            let a0 = sheets[(c * d + j) * 2];
            let a1 = sheets[(c * d + j) * 2 + 1];
            let v = centres[c * d + j]
                + a0 * u[0]
                + a1 * u[1]
                + 0.4 * (2.0 * u[0] + 0.5 * j as f64).sin()
                + 0.15 * rng.normal();
            x.push(v);
        }
    }
    x
}

/// Writes a C-order .npy file (format 1.0) with descriptor `descr` ("<f8", "<i8").
fn write_npy(path: &Path, descr: &str, shape: &[usize], data: &[u8]) -> std::io::Result<()> {
    let shape_txt = match shape {
        [a] => format!("({a},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_txt}, }}");
    // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(b"\x93NUMPY\x01\x00")?;
    f.write_all(&(header.len() as u16).to_le_bytes())?;
    f.write_all(header.as_bytes())?;
    f.write_all(data)?;
    f.flush()
}

fn write_f64_matrix(path: &Path, values: &[f64], n: usize, d: usize) -> std::io::Result<()> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    write_npy(path, "<f8", &[n, d], &bytes)
}

fn write_i64_vector(path: &Path, values: &[usize]) -> std::io::Result<()> {
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|&v| (v as i64).to_le_bytes())
        .collect();
    write_npy(path, "<i8", &[values.len()], &bytes)
}

struct BenchSet {
    name: String,
    n: usize,
    d: usize,
    x: Vec<f64>,
    source: String,
}

fn digits(root: &Path) -> Option<BenchSet> {
    let path = root.join("tests/fixtures/full_digits_rbf.json");
    let text = std::fs::read_to_string(&path).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let rows = v.get("x_train")?.as_array()?;
    let d = rows.first()?.as_array()?.len();
    let mut x = Vec::with_capacity(rows.len() * d);
    for r in rows {
        let r = r.as_array()?;
        if r.len() != d {
            return None;
        }
        for e in r {
            x.push(e.as_f64()?);
        }
    }
    Some(BenchSet {
        name: "digits".into(),
        n: rows.len(),
        d,
        x,
        source: "tests/fixtures/full_digits_rbf.json x_train (sklearn digits / 16)".into(),
    })
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

struct Timing {
    fit: Vec<f64>,
    fit_transform: Vec<f64>,
    model: FittedKpca,
}

/// One warm-up run, then as many timed runs as fit in `budget` seconds
/// (between MIN_RUNS and MAX_RUNS). Each run: fit, then transform of the training set.
/// A warm-up of WARMUP_KEEP_S or more is kept as the first timed run (this keeps
/// the whole comparison within a few minutes; the Python side does the same).
fn time_case(
    params: &kpca::fit::KernelPcaParams,
    data: &Dataset<'_>,
    budget: f64,
) -> Result<Timing, String> {
    let one = |params: &kpca::fit::KernelPcaParams| -> Result<(f64, f64, FittedKpca), String> {
        let t0 = Instant::now();
        let model = params.fit(data).map_err(|e| e.to_string())?;
        let t_fit = t0.elapsed().as_secs_f64();
        let scores = model.transform(data).map_err(|e| e.to_string())?;
        let t_all = t0.elapsed().as_secs_f64();
        std::hint::black_box(&scores);
        Ok((t_fit, t_all, model))
    };
    let (warm_fit, warm_all, warm_model) = one(params)?;
    let runs = ((budget / warm_all.max(1e-9)).ceil() as usize).clamp(MIN_RUNS, MAX_RUNS);
    let mut fit = Vec::with_capacity(runs);
    let mut fit_transform = Vec::with_capacity(runs);
    let mut last = None;
    if warm_all >= WARMUP_KEEP_S {
        // A long first run has no first-run effects worth discarding.
        fit.push(warm_fit);
        fit_transform.push(warm_all);
        last = Some(warm_model);
    }
    while fit.len() < runs {
        let (a, b, model) = one(params)?;
        fit.push(a);
        fit_transform.push(b);
        last = Some(model);
    }
    let model = last.ok_or("no runs")?;
    Ok(Timing {
        fit,
        fit_transform,
        model,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `cargo bench` passes `--bench`; a filter argument selects data sets by name.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out_dir = std::env::var_os("KPCA_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target").join("bench-fit"));
    let budget: f64 = std::env::var("KPCA_BENCH_BUDGET")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    std::fs::create_dir_all(&out_dir)?;

    let mut sets = Vec::new();
    match digits(&root) {
        Some(s) => sets.push(s),
        None => eprintln!("warning: digits fixture not readable, skipped"),
    }
    let max_n = SYNTH_SIZES.iter().copied().max().unwrap_or(0);
    let all_synth = synthetic(max_n, SYNTH_D);
    for &n in &SYNTH_SIZES {
        sets.push(BenchSet {
            name: format!("synth{n}"),
            n,
            d: SYNTH_D,
            x: all_synth[..n * SYNTH_D].to_vec(),
            source: format!(
                "synthetic: 5 curved 2-D sheets in d = {SYNTH_D} + noise, SplitMix64 seed {DATA_SEED:#x}, first {n} rows"
            ),
        });
    }
    if let Some(f) = &filter {
        sets.retain(|s| s.name.contains(f.as_str()));
    }

    let threads = rayon::current_num_threads();
    println!(
        "kpca fit benchmark: k = {K}, rbf gamma = 1/d, Nyström m = {M_LANDMARKS} (seed {LANDMARK_SEED}), \
         rayon threads = {threads}, budget {budget} s per case"
    );
    println!(
        "{:<10} {:>5} {:>3}  {:<12} {:>5} {:>12} {:>14}  eigenvalues[0..3]",
        "data set", "n", "d", "method", "runs", "fit [ms]", "fit+tf [ms]"
    );

    let mut json_sets = Vec::new();
    let mut results = Vec::new();
    for set in &sets {
        let x_file = format!("{}_x.npy", set.name);
        let lm_file = format!("{}_landmarks.npy", set.name);
        write_f64_matrix(&out_dir.join(&x_file), &set.x, set.n, set.d)?;
        let mut rng = SeededRng::seed_from_u64(LANDMARK_SEED);
        let landmarks = sample_landmarks(&mut rng, set.n, M_LANDMARKS.min(set.n))?;
        write_i64_vector(&out_dir.join(&lm_file), &landmarks)?;
        let gamma = 1.0 / set.d as f64;
        json_sets.push(json!({
            "name": set.name, "n": set.n, "d": set.d, "gamma": gamma,
            "x_file": x_file, "landmarks_file": lm_file, "m": landmarks.len(),
            "source": set.source,
        }));

        let data = Dataset::new(&set.x[..], set.d)?;
        let base = KernelPca::params()
            .kernel(KernelSpec::rbf(Some(gamma)))
            .n_components(K);
        let mut cases = Vec::new();
        if set.n <= DENSE_MAX_N {
            cases.push(("dense", base.clone().solver(Solver::Dense)));
        }
        cases.push(("iterative", base.clone().solver(Solver::Iterative)));
        cases.push((
            "nystrom",
            base.clone().nystrom(Nystrom::indices(landmarks.clone())),
        ));
        for (method, params) in cases {
            let t = match time_case(&params, &data, budget) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("{} {method}: fit failed: {e}", set.name);
                    results.push(json!({"dataset": set.name, "method": method, "error": e}));
                    continue;
                }
            };
            let fit_med = median(&t.fit);
            let ft_med = median(&t.fit_transform);
            let eig = t.model.eigenvalues().to_vec();
            let solver = match t.model.solver() {
                SolverReport::Dense => json!({"kind": "dense"}),
                SolverReport::Lanczos {
                    matvecs,
                    max_residual,
                } => json!({"kind": "lanczos", "matvecs": matvecs, "max_residual": max_residual}),
                SolverReport::NystromDense => json!({"kind": "nystrom-dense"}),
            };
            println!(
                "{:<10} {:>5} {:>3}  {:<12} {:>5} {:>12.2} {:>14.2}  {:?}",
                set.name,
                set.n,
                set.d,
                method,
                t.fit.len(),
                fit_med * 1e3,
                ft_med * 1e3,
                eig.iter()
                    .take(3)
                    .map(|v| format!("{v:.6e}"))
                    .collect::<Vec<_>>()
            );
            results.push(json!({
                "dataset": set.name, "method": method, "runs": t.fit.len(),
                "fit_s": fit_med, "fit_transform_s": ft_med,
                "fit_all_s": t.fit, "fit_transform_all_s": t.fit_transform,
                // Full fits: eigenvalues of the centred kernel matrix (sklearn's
                // eigenvalues_); Nyström: score variances (nystrompca's explained_variance_).
                "eigenvalues": eig,
                "eigenvalue_convention": if method == "nystrom" { "variance (mu / n)" } else { "mu (centred kernel matrix)" },
                "solver": solver,
            }));
        }
    }

    let report = json!({
        "tool": "kpca",
        "version": env!("CARGO_PKG_VERSION"),
        "k": K, "m": M_LANDMARKS, "landmark_seed": LANDMARK_SEED,
        "rayon_threads": threads,
        "budget_s": budget, "min_runs": MIN_RUNS, "max_runs": MAX_RUNS, "warmup_keep_s": WARMUP_KEEP_S,
        "timing": "median of timed runs after one warm-up (a warm-up of warmup_keep_s or more is kept as the first timed run); fit_transform = fit + transform(training set) in the same run",
        "datasets": json_sets,
        "results": results,
    });
    let path = out_dir.join("rust.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report)?)?;
    println!("wrote {}", path.display());
    Ok(())
}
