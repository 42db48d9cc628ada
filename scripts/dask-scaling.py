#!/usr/bin/env python3
"""The dask fit's scaling: kpca.KernelPCA(nystrom=M) fitted on a dask array of
N rows of the d = 16 Gaussian mixture of scripts/bench-fit.sh, generated on
the workers (each partition from its own seed, nothing on disk), on a
LocalCluster of 1 and then 2 worker processes with one thread each (the
workers' Rust threads held to one with RAYON_NUM_THREADS=1, so a worker is one
core). Prints one JSON line per run: wall time of the fit (the four passes
and the solve), the CPU, the cores.

  python3 scripts/dask-scaling.py [--rows N] [--landmarks M] [--workers 1 2]
"""
import argparse
import json
import os
import time

os.environ["RAYON_NUM_THREADS"] = "1"  # before the workers start: they inherit it

import numpy as np  # noqa: E402
from machine import cpu_name  # scripts/machine.py

CHUNK = 250_000


def mixture_block(block_id, rows, d):
    rng = np.random.default_rng(1000 + block_id)
    centres = np.random.default_rng(7).normal(0.0, 4.0, size=(8, d))
    return centres[rng.integers(0, 8, size=rows)] + rng.normal(size=(rows, d))


def data(n, d):
    import dask.array as da
    from dask import delayed

    parts = []
    for i, start in enumerate(range(0, n, CHUNK)):
        rows = min(CHUNK, n - start)
        parts.append(da.from_delayed(delayed(mixture_block)(i, rows, d), shape=(rows, d), dtype=np.float64))
    return da.concatenate(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--landmarks", type=int, default=1000)
    ap.add_argument("--components", type=int, default=8)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    a = ap.parse_args()
    import distributed

    import kpca

    for w in a.workers:
        with distributed.LocalCluster(n_workers=w, threads_per_worker=1, processes=True, host="127.0.0.1",
                                      dashboard_address=None, silence_logs=40) as cluster, \
                distributed.Client(cluster):
            X = data(a.rows, 16)
            est = kpca.KernelPCA(n_components=a.components, kernel="rbf", nystrom=a.landmarks)
            t = time.time()
            est.fit(X)
            wall = time.time() - t
            print(json.dumps({
                "rows": a.rows, "landmarks": a.landmarks, "components": a.components, "workers": w,
                "threads_per_worker": 1, "fit_s": round(wall, 1),
                "eigenvalue_1": float(est.eigenvalues_[0]), "cpu": cpu_name(), "cores": os.cpu_count(),
            }), flush=True)


if __name__ == "__main__":
    main()
