#!/usr/bin/env python3
"""Markdown tables of the kpca fit benchmark (see scripts/bench-fit.sh).

Reads DIR/results.jsonl (one JSON line per case: kpca from benches/fit.rs, peers
from bench_fit_peers.py, skipped cases with their reason) and prints the full-fit
and Nyström tables: time, peak resident set (VmHWM) and resident set before the
fit of each process, the ratios peer / kpca (> 1: kpca is faster or smaller), and
the largest relative difference of the top-8 eigenvalues from kpca's.
"""
import json
import sys
from pathlib import Path

REF = {"full": "kpca-iterative", "nystrom": "kpca-nystrom"}


def t(s):
    if s is None:
        return "-"
    return f"{s:.2f} s" if s >= 1 else f"{s * 1e3:.0f} ms"


def mib(b):
    return "-" if not b else f"{b / 2**20:.0f} MiB"


def main():
    out = Path(sys.argv[1])
    import numpy, scipy, sklearn
    from importlib.metadata import version

    rows = [json.loads(l) for l in (out / "results.jsonl").read_text().splitlines() if l.strip()]
    peer_blas = sorted({b for r in rows if r.get("tool") == "peer" for b in r.get("blas", [])})
    simd = sorted({r["simd"] for r in rows if "simd" in r})
    print(f"- Python {sys.version.split()[0]}, numpy {numpy.__version__}, scipy {scipy.__version__}, "
          f"scikit-learn {sklearn.__version__}, nystrompca {version('nystrompca')}")
    print("- BLAS in the peers' processes (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE unset): "
          + ("; ".join(peer_blas) or "not recorded"))
    print(f"- kpca fit's vector code: {', '.join(simd) or 'not recorded'}; times are the best of 5 runs after a warm-up")
    for kind, title in (("full", "Full kernel PCA"), ("nystrom", "Nyström kernel PCA")):
        print(f"\n### {title}\n")
        print("| n | m | implementation | fit time | peak RSS | RSS before fit | time ratio peer/kpca | peak RSS ratio peer/kpca | top-8 eig. rel. diff |")
        print("|--:|--:|---|--:|--:|--:|--:|--:|--:|")
        keys = sorted({(r["n"], r.get("m", 0)) for r in rows if r["kind"] == kind})
        for n, m in keys:
            group = [r for r in rows if r["kind"] == kind and r["n"] == n and r.get("m", 0) == m]
            ref = next((r for r in group if r["label"] == REF[kind] and "time_s" in r), None)
            for r in group:
                if "skipped" in r or "error" in r:
                    why = r.get("skipped") or r.get("error")
                    print(f"| {n} | {m or '-'} | {r['label']} | skipped: {why} | | | | | |")
                    continue
                ratio_t = ratio_m = diff = "-"
                if ref is not None and r is not ref:
                    ratio_t = f"{r['time_s'] / ref['time_s']:.2f}"
                    ratio_m = f"{r['rss_peak_bytes'] / ref['rss_peak_bytes']:.2f}"
                if ref is not None:
                    a, b = ref["eigenvalues"], r["eigenvalues"]
                    diff = f"{max(abs(x - y) / abs(x) for x, y in zip(a, b)):.1e}"
                label = f"**{r['label']}**" if r is ref else r["label"]
                print(f"| {n} | {m or '-'} | {label} | {t(r['time_s'])} | {mib(r['rss_peak_bytes'])} | "
                      f"{mib(r['rss_before_bytes'])} | {ratio_t} | {ratio_m} | {diff} |")


if __name__ == "__main__":
    main()
