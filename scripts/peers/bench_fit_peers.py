#!/usr/bin/env python3
"""Peer side of the kpca fit benchmark (driven by scripts/bench-fit.sh).

One fit case per process, so that the process's peak resident set is the fit's:

  bench_fit_peers.py --dir DIR --case CASE --n N [--m M]

CASE: sklearn-dense | sklearn-arpack | sklearn-randomized (KernelPCA, rbf,
gamma = 1/d, k = 8, random_state = 0), sklearn-nystroem (Nystroem fitted on the
landmark rows, so its components are exactly those landmarks, then PCA(k = 8)),
nystrompca (NystromKPCA, sigma = 1/sqrt(gamma), scale=False, `.subset` = the
landmarks before fit_transform). Inputs: DIR/full_x.npy and DIR/nystrom_x.npy
(first N rows), DIR/landmarks_N_M.npy, written by `benches/fit.rs --gen`.

Timing as on the Rust side: a first run of 6 s or more is the only timed run;
otherwise it is a warm-up and the best of five more runs is reported (the
peers' times are bimodal from run to run, so best is compared with best).
bench-fit.sh starts this process with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
unset, so OpenBLAS runs its native kernels for the CPU; the kernel it ran
("architecture" in threadpoolctl) is recorded under "blas". Memory:
VmHWM (peak resident set of the process) and VmRSS just before the first fit
(after imports and loading the data), from /proc/self/status. Prints one JSON line.
"""
import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

K = 8
SINGLE_RUN_S = 6.0
TIMED_RUNS = 5


def status_bytes(key):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1]) * 1024
    return 0


def make(case, x, landmarks):
    n, d = x.shape
    gamma = 1.0 / d
    if case.startswith("sklearn-") and case != "sklearn-nystroem":
        from sklearn.decomposition import KernelPCA

        solver = case.split("-", 1)[1]
        kw = {"random_state": 0} if solver != "dense" else {}

        def run():
            model = KernelPCA(n_components=K, kernel="rbf", gamma=gamma, eigen_solver=solver, **kw)
            model.fit(x)
            return model.eigenvalues_[:K]

        return run
    if case == "sklearn-nystroem":
        from sklearn.decomposition import PCA
        from sklearn.kernel_approximation import Nystroem

        def run():
            ny = Nystroem(kernel="rbf", gamma=gamma, n_components=len(landmarks), random_state=0)
            ny.fit(x[landmarks])  # n_components = its rows: every landmark is a component
            feats = ny.transform(x)
            pca = PCA(n_components=K, random_state=0)
            pca.fit_transform(feats)
            # kpca reports the eigenvalues mu of the (approximated) centred
            # n x n kernel matrix, n times the score variances with n; PCA's
            # variances divide by n - 1.
            return pca.explained_variance_ * (n - 1)

        return run
    if case == "nystrompca":
        from nystrompca import NystromKPCA

        sigma = 1.0 / math.sqrt(gamma)

        def run():
            model = NystromKPCA(
                n_components=K, kernel="rbf", sigma=sigma, scale=False, m_subset=len(landmarks)
            )
            model.subset = landmarks.copy()
            model.fit_transform(x)
            # nystrompca's variances divide by n; kpca's mu = n times them.
            return model.explained_variance_[:K] * n

        return run
    raise SystemExit(f"unknown case {case}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--m", type=int, default=0)
    args = ap.parse_args()
    d = Path(args.dir)
    nystrom = args.case in ("sklearn-nystroem", "nystrompca")
    x = np.load(d / ("nystrom_x.npy" if nystrom else "full_x.npy"))[: args.n].copy()
    landmarks = (
        np.load(d / f"landmarks_{args.n}_{args.m}.npy").astype(np.intp) if nystrom else None
    )
    run = make(args.case, x, landmarks)
    rss_before = status_bytes("VmRSS:")
    times, eig = [], None
    while True:
        t0 = time.perf_counter()
        eig = run()
        times.append(time.perf_counter() - t0)
        if len(times) == 1 and times[0] >= SINGLE_RUN_S:
            break
        if len(times) == 1 + TIMED_RUNS:
            times = times[1:]
            break
    from threadpoolctl import threadpool_info

    print(json.dumps({
        "tool": "peer", "case": args.case, "n": args.n, "m": args.m, "d": int(x.shape[1]), "k": K,
        "time_s": min(times), "times_s": times,
        "rss_peak_bytes": status_bytes("VmHWM:"), "rss_before_bytes": rss_before,
        "eigenvalues": [float(v) for v in eig],
        "blas": [f"{p.get('internal_api')} {p.get('architecture', '?')} kernels, {p.get('num_threads')} threads" for p in threadpool_info()],
    }))


if __name__ == "__main__":
    main()
