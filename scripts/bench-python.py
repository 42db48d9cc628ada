#!/usr/bin/env python3
"""Fit speed from Python: kpca.KernelPCA (the Rust fit through the Python
package) against scikit-learn's KernelPCA (dense and arpack) and, for
Nyström, against scikit-learn's Nystroem + PCA, on the same data in one run.

    python3 scripts/bench-python.py            # every case, a Markdown table
    python3 scripts/bench-python.py --quick    # the smallest case of each kind

Each fit runs in its own process (this script with --case); a case's time is
the median of 3 fits after one warm-up fit. The peers' processes run with
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed from their environment (their
best BLAS kernel), and each records which BLAS it ran (threadpoolctl). Data:
a Gaussian mixture, d = 16, k = 8, rbf with gamma = 1/d. Needs the kpca
package (pip install ./python), scikit-learn and threadpoolctl. Wall times
depend on the machine: the table names the CPU.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from machine import cpu_name  # scripts/machine.py

D, K, SEED = 16, 8, 0
FULL_N = (2000, 4000)
NYSTROM = ((20000, 200), (100000, 200))


def data(n):
    import numpy as np

    rng = np.random.default_rng(SEED)
    centres = rng.normal(size=(8, D)) * 3.0
    return centres[rng.integers(0, 8, n)] + rng.normal(size=(n, D))


def fit_once(impl, n, m):
    import numpy as np

    X = data(n)
    gamma = 1.0 / D
    if impl == "kpca":
        import kpca

        est = kpca.KernelPCA(K, kernel="rbf", gamma=gamma, nystrom=m, random_state=SEED)
        return lambda: est.fit(X)
    if impl.startswith("sklearn-kpca-"):
        from sklearn.decomposition import KernelPCA

        solver = impl.rsplit("-", 1)[1]
        est = KernelPCA(K, kernel="rbf", gamma=gamma, eigen_solver=solver, random_state=SEED)
        return lambda: est.fit(X)
    if impl == "sklearn-nystroem-pca":
        from sklearn.decomposition import PCA
        from sklearn.kernel_approximation import Nystroem
        from sklearn.pipeline import make_pipeline

        est = make_pipeline(Nystroem(gamma=gamma, n_components=m, random_state=SEED), PCA(K))
        return lambda: est.fit(X)
    raise SystemExit(f"unknown implementation {impl}")


def run_case(impl, n, m):
    from threadpoolctl import threadpool_info

    fit = fit_once(impl, n, None if m == 0 else m)
    fit()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        fit()
        times.append(time.perf_counter() - t0)
    blas = [
        {k: p.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
        for p in threadpool_info()
        if p.get("user_api") == "blas"
    ]
    print(json.dumps({"impl": impl, "n": n, "m": m, "seconds": statistics.median(times), "blas": blas}))


def subprocess_case(impl, n, m):
    env = dict(os.environ)
    if impl != "kpca":  # the peer's best BLAS kernel, in its own command only
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
    out = subprocess.run(
        [sys.executable, __file__, "--case", impl, str(n), str(m)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if out.returncode != 0:
        return {"impl": impl, "n": n, "m": m, "seconds": None, "error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(quick):
    full = FULL_N[:1] if quick else FULL_N
    nys = NYSTROM[:1] if quick else NYSTROM
    rows = []
    for n in full:
        ours = subprocess_case("kpca", n, 0)
        peers = [subprocess_case(f"sklearn-kpca-{s}", n, 0) for s in ("dense", "arpack")]
        rows.append((f"full, n = {n}", ours, peers))
    for n, m in nys:
        ours = subprocess_case("kpca", n, m)
        peers = [subprocess_case("sklearn-nystroem-pca", n, m)]
        rows.append((f"Nyström, n = {n}, m = {m}", ours, peers))
    print(f"CPU: {cpu_name()}, {os.cpu_count()} logical CPUs; d = {D}, k = {K}, rbf gamma = 1/d; "
          f"median of 3 fits after a warm-up, each implementation in its own process")
    print()
    print("| fit | kpca (Python) | fastest peer | ratio peer / kpca | peer's BLAS |")
    print("|---|--:|--:|--:|---|")
    for label, ours, peers in rows:
        done = [p for p in peers if p.get("seconds")]
        best = min(done, key=lambda p: p["seconds"]) if done else None
        if best is None or not ours.get("seconds"):
            print(f"| {label} | {ours.get('seconds')} | failed: {[p.get('error') for p in peers]} | | |")
            continue
        blas = ", ".join(f"{b['internal_api']} {b['version']} {b['architecture']}" for b in best["blas"]) or "none"
        print(f"| {label} | {ours['seconds']:.3f} s | {best['seconds']:.3f} s ({best['impl']}) | "
              f"{best['seconds'] / ours['seconds']:.2f} | {blas} |")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--case":
        run_case(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main("--quick" in sys.argv)
