//! Fit times (ignored by default; run with
//! `cargo test --release --features std --test fit_timing -- --ignored --nocapture`).

mod fit_support;

use fit_support::*;
use kpca::fit::{KernelPca, Nystrom, Solver};
use std::time::Instant;

#[test]
#[ignore = "timing report, run on demand in release mode"]
fn digits_fit_times() {
    let fx = load("full_digits_rbf.json");
    let x = dataset(&fx["x_train"]);
    let base = KernelPca::params().kernel(kernel_of(&fx)).n_components(8);
    for (label, params) in [
        ("dense", base.clone().solver(Solver::Dense)),
        ("iterative", base.clone().solver(Solver::Iterative)),
        (
            "nystrom m=100",
            base.clone().nystrom(Nystrom::random(100, 1)),
        ),
    ] {
        // Best of 5.
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let t = Instant::now();
            let f = params.fit(&x).expect("fit");
            best = best.min(t.elapsed().as_secs_f64());
            assert_eq!(f.n_components(), 8);
        }
        eprintln!("digits n=400 d=64 k=8 {label:<14}: {:.1} ms", best * 1e3);
    }
}
