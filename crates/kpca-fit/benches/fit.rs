//! Fit benchmark, kpca side of the side-by-side comparison with scikit-learn and
//! nystrompca (the whole comparison: `scripts/bench-fit.sh`).
//!
//! One fit case per process, so that the process's peak memory is the fit's:
//!
//! ```text
//! fit --gen DIR                                 # write the inputs as .npy
//! fit --case full-dense|full-iterative|full-auto --n N
//! fit --case nystrom --n N --m M
//! ```
//!
//! Data: a Gaussian mixture in d = 16 (8 clusters, SplitMix64 seed, the same rows
//! on every platform; a smaller n is a prefix of the larger set), written by
//! `--gen` to `DIR/full_x.npy` (8000 rows), `DIR/nystrom_x.npy` (100000 rows) and
//! the landmark indices `DIR/landmarks_N_M.npy` (a `SeededRng` sample, seed 2024),
//! which the Python peers load. All fits: rbf, gamma = 1/d, k = 8, no
//! standardisation.
//!
//! Each case prints one JSON line: the fit times (one run when the first takes
//! 6 s or more; otherwise that run is a warm-up and five more are timed, the
//! best is reported, as for the peers), the peak heap during a fit (a counting global allocator:
//! every live allocation of the process, the input data included), the process's
//! peak resident set (VmHWM) and its resident set just before the first fit
//! (VmRSS), and the top eigenvalues. `cargo bench --bench fit` alone runs a small
//! smoke case.

use kpca_fit::{sample_landmarks, Dataset, KernelPca, KernelSpec, Nystrom, SeededRng, Solver};
use kpca_fit::{FittedKpca, SolverReport};
use rand_core::SeedableRng;
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

const K: usize = 8;
const D: usize = 16;
const CLUSTERS: usize = 8;
const FULL_MAX_N: usize = 8000;
const NYSTROM_MAX_N: usize = 100_000;
const LANDMARK_SEED: u64 = 2024;
const DATA_SEED: u64 = 0x6b70_6361; // "kpca"
/// A first run at least this long (seconds) is the only timed run.
const SINGLE_RUN_S: f64 = 6.0;
const TIMED_RUNS: usize = 5;

/// The system allocator, counting the live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn add(size: usize) {
    let now = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            add(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// SplitMix64: a tiny deterministic generator for the synthetic data.
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

/// `n` rows of a Gaussian mixture in d = 16: 8 clusters with centres N(0, 1.5² I),
/// each with its own scale in [0.5, 1.0]; rows pick a cluster uniformly. Squared
/// distances are O(d), so gamma = 1/d gives a kernel with a decaying spectrum.
fn mixture(n: usize) -> Vec<f64> {
    let mut rng = SplitMix(DATA_SEED);
    let centres: Vec<f64> = (0..CLUSTERS * D).map(|_| 1.5 * rng.normal()).collect();
    let scales: Vec<f64> = (0..CLUSTERS).map(|_| 0.5 + 0.5 * rng.uniform()).collect();
    let mut x = Vec::with_capacity(n * D);
    for _ in 0..n {
        let c = (rng.next_u64() % CLUSTERS as u64) as usize;
        for j in 0..D {
            x.push(centres[c * D + j] + scales[c] * rng.normal());
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

fn landmarks(n: usize, m: usize) -> Result<Vec<usize>, kpca_fit::FitError> {
    let mut rng = SeededRng::seed_from_u64(LANDMARK_SEED);
    sample_landmarks(&mut rng, n, m)
}

fn generate(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    for (name, n) in [("full_x.npy", FULL_MAX_N), ("nystrom_x.npy", NYSTROM_MAX_N)] {
        let x = mixture(n);
        let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
        write_npy(&dir.join(name), "<f8", &[n, D], &bytes)?;
    }
    for n in [20_000, NYSTROM_MAX_N] {
        for m in [200, 1000] {
            let idx = landmarks(n, m)?;
            let bytes: Vec<u8> = idx.iter().flat_map(|&v| (v as i64).to_le_bytes()).collect();
            write_npy(
                &dir.join(format!("landmarks_{n}_{m}.npy")),
                "<i8",
                &[m],
                &bytes,
            )?;
        }
    }
    Ok(())
}

/// A line of /proc/self/status in bytes (VmHWM, VmRSS), or 0.
fn status_bytes(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// The shortest of the timed runs (peers are compared best with best).
fn best(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

fn run_case(case: &str, n: usize, m: usize) -> Result<(), Box<dyn std::error::Error>> {
    let x = mixture(if case == "nystrom" {
        NYSTROM_MAX_N
    } else {
        FULL_MAX_N
    });
    let x = x[..n * D].to_vec();
    let data = Dataset::new(&x[..], D)?;
    let base = KernelPca::params()
        .kernel(KernelSpec::rbf(Some(1.0 / D as f64)))
        .n_components(K);
    let params = match case {
        "full-dense" => base.solver(Solver::Dense),
        "full-iterative" => base.solver(Solver::Iterative),
        "full-auto" => base.solver(Solver::Auto),
        "nystrom" => base.nystrom(Nystrom::indices(landmarks(n, m)?)),
        other => return Err(format!("unknown case {other}").into()),
    };
    let rss_before = status_bytes("VmRSS:");
    let heap_before = LIVE.load(Ordering::Relaxed);
    let mut times = Vec::new();
    let mut heap_peak = 0usize;
    let mut model: Option<FittedKpca> = None;
    loop {
        drop(model.take());
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
        let t0 = Instant::now();
        let fitted = params.fit(&data)?;
        let t = t0.elapsed().as_secs_f64();
        heap_peak = heap_peak.max(PEAK.load(Ordering::Relaxed));
        model = Some(fitted);
        times.push(t);
        if times.len() == 1 && t >= SINGLE_RUN_S {
            break;
        }
        if times.len() == 1 + TIMED_RUNS {
            times.remove(0); // the warm-up
            break;
        }
    }
    let model = model.ok_or("no run")?;
    let phases = phase_times(case, &params, &data, &times);
    let solver = match model.solver() {
        SolverReport::Dense => json!({"kind": "dense"}),
        SolverReport::Lanczos {
            matvecs,
            max_residual,
        } => json!({"kind": "block-lanczos", "matvecs": matvecs, "max_residual": max_residual}),
        SolverReport::NystromDense => json!({"kind": "nystrom"}),
    };
    let line = json!({
        "tool": "kpca", "case": case, "n": n, "m": m, "d": D, "k": K,
        "time_s": best(&times), "times_s": times,
        "simd": kpca_fit::simd_level(),
        "heap_peak_bytes": heap_peak, "heap_before_bytes": heap_before,
        "rss_peak_bytes": status_bytes("VmHWM:"), "rss_before_bytes": rss_before,
        "rayon_threads": rayon::current_num_threads(),
        // Full fits: eigenvalues of the centred kernel matrix (sklearn's
        // eigenvalues_); Nyström: score variances (nystrompca's explained_variance_).
        "eigenvalues": model.eigenvalues(),
        "solver": solver,
    });
    let mut line = line;
    if let Some(p) = phases {
        line["phases_s"] = p;
    }
    println!("{line}");
    Ok(())
}

/// With `KPCA_BENCH_PHASES` set, for the full iterative fit: the time of the
/// kernel matrix (with its row sums; the centring is implicit) plus one solver
/// pass (a fit stopped after one pass by `max_iter(1)`, which then fails with
/// `NotConverged`) beside the whole fit, so the rest is the solver's remaining
/// passes and the scores. Timed after the measured runs, so it never changes them.
fn phase_times(
    case: &str,
    params: &kpca_fit::KernelPcaParams,
    data: &Dataset<'_>,
    times: &[f64],
) -> Option<serde_json::Value> {
    if std::env::var_os("KPCA_BENCH_PHASES").is_none() || case != "full-iterative" {
        return None;
    }
    let mut one_pass = Vec::new();
    for _ in 0..3 {
        let t0 = Instant::now();
        let _ = params.clone().max_iter(1).fit(data);
        one_pass.push(t0.elapsed().as_secs_f64());
    }
    let build = median(&one_pass);
    let total = median(times);
    Some(json!({
        "kernel_matrix_one_pass": build,
        "remaining_passes_and_scores": total - build,
    }))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if let Some(dir) = value("--gen") {
        return generate(Path::new(&dir));
    }
    let Some(case) = value("--case") else {
        // `cargo bench --bench fit` with no case: a quick smoke run.
        run_case("full-auto", 1000, 0)?;
        return run_case("nystrom", 20_000, 200);
    };
    let n: usize = value("--n").ok_or("--n missing")?.parse()?;
    let m: usize = value("--m").map_or(Ok(0), |v| v.parse())?;
    run_case(&case, n, m)
}
