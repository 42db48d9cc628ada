#!/usr/bin/env python3
"""A streamed Nyström fit of a file that is not held in memory: writes n rows
of the d = 16 Gaussian mixture of scripts/bench-fit.sh (8 clusters) to an NPY
file in blocks (numpy's open_memmap, so this script never holds it either),
runs `kpca fit --stream --nystrom M` on it in its own process and reports the
wall time and that process's peak resident set (as kpca reports it, VmHWM:
getrusage of a child would count the pages of this Python process that the
child had before its exec).

  python3 scripts/stream-fit.py [--rows N] [--landmarks M] [--components K]
                                [--kpca PATH] [--dir DIR] [--check-rss MIB]

Without --kpca the script builds the command (cargo build --release -p
kpca-cli) and runs target/release/kpca of this checkout; paths given are taken
relative to the directory it is started from.

--check-rss fails (exit 1) when the fit's peak resident set exceeds MIB
MiB; the test command runs a file larger than its limit, so a fit that held
the file would fail. The n = 10^7 row of docs/STREAMED-FIT.md comes from the defaults.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
from machine import cpu_name  # scripts/machine.py

BLOCK = 1 << 18  # rows written at a time
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")


def write_mixture(path, n, d, seed=7):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 4.0, size=(8, d))
    out = np.lib.format.open_memmap(path, mode="w+", dtype="<f8", shape=(n, d))
    for start in range(0, n, BLOCK):
        rows = min(BLOCK, n - start)
        labels = rng.integers(0, 8, size=rows)
        out[start:start + rows] = centres[labels] + rng.normal(size=(rows, d))
    out.flush()
    del out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--features", type=int, default=16)
    ap.add_argument("--landmarks", type=int, default=1000)
    ap.add_argument("--components", type=int, default=8)
    ap.add_argument("--kpca", default=None)
    ap.add_argument("--dir", default=os.path.join(TARGET, "stream-fit"))
    ap.add_argument("--check-rss", type=float, default=None)
    a = ap.parse_args()
    if a.kpca is None:
        subprocess.run(["cargo", "build", "-q", "--release", "-p", "kpca-cli", "--bin", "kpca"],
                       cwd=ROOT, check=True)
        a.kpca = os.path.join(TARGET, "release", "kpca")
    os.makedirs(a.dir, exist_ok=True)
    data = os.path.join(a.dir, f"mixture_{a.rows}x{a.features}.npy")
    if not os.path.exists(data):
        t = time.time()
        write_mixture(data + ".tmp.npy", a.rows, a.features)
        os.replace(data + ".tmp.npy", data)
        print(f"wrote {data} ({os.path.getsize(data) / 2**20:.0f} MiB) in {time.time() - t:.1f} s")
    model = os.path.join(a.dir, "model.kpca")
    cmd = [a.kpca, "fit", "--input", data, "--kernel", "rbf", "--components", str(a.components),
           "--nystrom", str(a.landmarks), "--stream", "--output", model]
    t = time.time()
    run = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        sys.exit(f"kpca fit failed with status {run.returncode}")
    peak = re.search(r"peak resident set ([0-9.]+) MiB", run.stdout)
    if peak is None:
        sys.exit("kpca did not report its peak resident set (/proc/self/status)")
    rss_mib = float(peak.group(1))
    result = {
        "rows": a.rows, "features": a.features, "landmarks": a.landmarks,
        "components": a.components, "file_mib": round(os.path.getsize(data) / 2**20, 1),
        "wall_s": round(wall, 2), "peak_rss_mib": round(rss_mib, 1),
        "cpu": cpu_name(), "cores": os.cpu_count(),
    }
    print(run.stdout.strip())
    print(json.dumps(result))
    if a.check_rss is not None and rss_mib > a.check_rss:
        sys.exit(f"peak resident set {rss_mib:.1f} MiB is over the limit {a.check_rss} MiB")


if __name__ == "__main__":
    main()
