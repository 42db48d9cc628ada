#!/usr/bin/env python3
"""Peer side of the kpca fit benchmark (see scripts/bench-fit.sh).

Times, on the exact inputs written by `cargo bench --bench fit` to
target/bench-fit/ (data sets as <name>_x.npy, Nyström landmarks as
<name>_landmarks.npy, listed in rust.json):

  - scikit-learn KernelPCA(n_components=8, kernel='rbf', gamma=1/d) with
    eigen_solver='dense' (n <= 2000), 'arpack' and 'randomized';
  - nystrompca NystromKPCA(kernel='rbf', sigma=1/sqrt(gamma), scale=False) with
    the same landmark subset (set as `.subset` before fit_transform).

Each case: one warm-up run, then between MIN_RUNS and MAX_RUNS timed runs (as
many as fit in --budget seconds); the median is reported. A warm-up taking 2 s
or more counts as the first timed run (as on the Rust side). Each run times the fit
(sklearn `fit`, nystrompca `fit_transform`, which is its only fit entry point and
also yields the training scores, like kpca's fit), then `transform` of the training
set, so "fit" and "fit + transform" come from the same runs, as on the Rust side.

Thread settings are left as the environment has them (no OPENBLAS_*/OMP_* set
here); threadpoolctl's view and the relevant environment variables are recorded.
`--blas-threads N` (off by default) caps the BLAS/OpenMP pools with threadpoolctl
for the timed code, for a single-threaded like-for-like run (with
RAYON_NUM_THREADS=1 on the Rust side).

Writes target/bench-fit/peers.json.
"""
import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy
import sklearn
from sklearn.decomposition import KernelPCA
from threadpoolctl import threadpool_info, threadpool_limits

import nystrompca
from nystrompca import NystromKPCA

REPO = Path(__file__).resolve().parents[2]
K = 8
DENSE_MAX_N = 2000
MIN_RUNS = 3
MAX_RUNS = 15
WARMUP_KEEP_S = 2.0  # a warm-up at least this long counts as the first timed run


def time_case(make_run, budget):
    """make_run() -> (t_fit, t_fit_transform, eigenvalues). Warm-up, then timed runs."""
    warm_fit, warm, warm_eig = make_run()
    runs = min(max(math.ceil(budget / max(warm, 1e-9)), MIN_RUNS), MAX_RUNS)
    fits, alls, eig = [], [], None
    if warm >= WARMUP_KEEP_S:  # a long first run has no first-run effects worth discarding
        fits, alls, eig = [warm_fit], [warm], warm_eig
    while len(fits) < runs:
        a, b, eig = make_run()
        fits.append(a)
        alls.append(b)
    return {
        "runs": runs,
        "fit_s": statistics.median(fits),
        "fit_transform_s": statistics.median(alls),
        "fit_all_s": fits,
        "fit_transform_all_s": alls,
        "eigenvalues": [float(v) for v in eig],
    }


def sklearn_run(x, gamma, solver):
    def run():
        kw = {"random_state": 0} if solver in ("arpack", "randomized") else {}
        model = KernelPCA(n_components=K, kernel="rbf", gamma=gamma, eigen_solver=solver, **kw)
        t0 = time.perf_counter()
        model.fit(x)
        t1 = time.perf_counter()
        y = model.transform(x)
        t2 = time.perf_counter()
        assert y.shape == (x.shape[0], K)
        return t1 - t0, t2 - t0, model.eigenvalues_[:K]

    return run


def nystrompca_run(x, gamma, landmarks):
    sigma = 1.0 / math.sqrt(gamma)  # exp(-|x-y|^2 / sigma^2) = exp(-gamma |x-y|^2)

    def run():
        model = NystromKPCA(
            n_components=K, kernel="rbf", sigma=sigma, scale=False, m_subset=len(landmarks)
        )
        model.subset = landmarks.copy()
        t0 = time.perf_counter()
        model.fit_transform(x)
        t1 = time.perf_counter()
        y = model.transform(x)
        t2 = time.perf_counter()
        assert y.shape == (x.shape[0], K)
        return t1 - t0, t2 - t0, model.explained_variance_[:K]

    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=str(REPO / "target" / "bench-fit"))
    ap.add_argument("--budget", type=float, default=2.0, help="seconds of timed runs per case")
    ap.add_argument("--filter", default="", help="only data sets whose name contains this")
    ap.add_argument(
        "--blas-threads", type=int, default=None,
        help="cap BLAS/OpenMP threads with threadpoolctl (default: leave as is)",
    )
    args = ap.parse_args()
    limiter = threadpool_limits(limits=args.blas_threads) if args.blas_threads else None
    out_dir = Path(args.dir)
    rust = json.loads((out_dir / "rust.json").read_text())

    results = []
    print(f"peers fit benchmark: k = {K}, budget {args.budget} s per case")
    print(f"{'data set':<10} {'n':>5}  {'method':<18} {'runs':>4} {'fit [ms]':>11} {'fit+tf [ms]':>12}")
    for ds in rust["datasets"]:
        if args.filter not in ds["name"]:
            continue
        x = np.load(out_dir / ds["x_file"])
        landmarks = np.load(out_dir / ds["landmarks_file"]).astype(np.intp)
        n, d = x.shape
        assert (n, d) == (ds["n"], ds["d"]), (ds, x.shape)
        gamma = float(ds["gamma"])
        cases = []
        if n <= DENSE_MAX_N:
            cases.append(("sklearn-dense", sklearn_run(x, gamma, "dense")))
        cases.append(("sklearn-arpack", sklearn_run(x, gamma, "arpack")))
        cases.append(("sklearn-randomized", sklearn_run(x, gamma, "randomized")))
        cases.append(("nystrompca", nystrompca_run(x, gamma, landmarks)))
        for method, run in cases:
            try:
                r = time_case(run, args.budget)
            except Exception as e:  # record and go on
                print(f"{ds['name']} {method}: failed: {e!r}", file=sys.stderr)
                results.append({"dataset": ds["name"], "method": method, "error": repr(e)})
                continue
            r.update({"dataset": ds["name"], "method": method})
            r["eigenvalue_convention"] = (
                "variance (mu / n)" if method == "nystrompca" else "mu (centred kernel matrix)"
            )
            results.append(r)
            print(
                f"{ds['name']:<10} {n:>5}  {method:<18} {r['runs']:>4} "
                f"{r['fit_s'] * 1e3:>11.2f} {r['fit_transform_s'] * 1e3:>12.2f}"
            )

    pools = threadpool_info()  # as seen by the timed code (inside the cap, if any)
    if limiter is not None:
        limiter.restore_original_limits()
    env = {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS", "OMP_", "MKL_", "BLIS", "RAYON"))}
    report = {
        "tool": "peers",
        "python": platform.python_version(),
        "versions": {
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__,
            "nystrompca": getattr(nystrompca, "__version__", None) or _dist_version("nystrompca"),
        },
        "threadpoolctl": pools,
        "blas_threads_limit": args.blas_threads,
        "thread_env": env,
        "k": K,
        "budget_s": args.budget,
        "min_runs": MIN_RUNS,
        "max_runs": MAX_RUNS,
        "warmup_keep_s": WARMUP_KEEP_S,
        "timing": "median of timed runs after one warm-up (a warm-up of warmup_keep_s or more is kept as the first timed run); fit_transform = fit + transform(training set) in the same run",
        "results": results,
    }
    path = out_dir / "peers.json"
    path.write_text(json.dumps(report, indent=2))
    print(f"wrote {path}")


def _dist_version(name):
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return None


if __name__ == "__main__":
    main()
