#!/usr/bin/env python3
"""Markdown report of the kpca fit benchmark (see scripts/bench-fit.sh).

Reads target/bench-fit/rust.json and peers.json, prints (and writes to
target/bench-fit/table.md) the side-by-side table: for each data set and each
kpca method, its peer(s), both median times, and the ratio peer / kpca (> 1: kpca
is faster), for the fit and for fit + transform of the training set; then the
eigenvalue check: the top-8 eigenvalues of kpca's dense fit must agree with
scikit-learn's dense solver to a relative 1e-6 on every data set (where there is
no dense fit, n > 2000, kpca's iterative fit is checked against ARPACK instead).
Exits with status 1 if a check fails.
"""
import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EIG_RTOL = 1e-6

# kpca method -> peers it is compared with.
PAIRS = [
    ("dense", "sklearn-dense"),
    ("iterative", "sklearn-arpack"),
    ("iterative", "sklearn-randomized"),
    ("nystrom", "nystrompca"),
]


def fmt_time(s):
    if s is None:
        return "-"
    if s >= 10:
        return f"{s:.1f} s"
    if s >= 1:
        return f"{s:.2f} s"
    ms = s * 1e3
    if ms >= 100:
        return f"{ms:.0f} ms"
    if ms >= 10:
        return f"{ms:.1f} ms"
    return f"{ms:.2f} ms"


def rel_diff(a, b):
    """max_l |a_l - b_l| / |b_l| over the first min(len) values."""
    if not a or not b:
        return None
    n = min(len(a), len(b))
    return max(abs(x - y) / abs(y) for x, y in zip(a[:n], b[:n]))


def fmt_rel(r):
    return "-" if r is None else f"{r:.1e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=str(REPO / "target" / "bench-fit"))
    args = ap.parse_args()
    out_dir = Path(args.dir)
    rust = json.loads((out_dir / "rust.json").read_text())
    peers = json.loads((out_dir / "peers.json").read_text())

    def index(rep):
        return {(r["dataset"], r["method"]): r for r in rep["results"] if "error" not in r}

    rk, pk = index(rust), index(peers)
    lines = []
    lines.append(
        "| data set | n | d | kpca method | peer | kpca fit | peer fit | ratio fit | "
        "kpca fit+transform | peer fit+transform | ratio fit+transform | top-8 eig. rel. diff |"
    )
    lines.append("|---|--:|--:|---|---|--:|--:|--:|--:|--:|--:|--:|")
    for ds in rust["datasets"]:
        name = ds["name"]
        for method, peer in PAIRS:
            r, p = rk.get((name, method)), pk.get((name, peer))
            if r is None and p is None:
                continue
            ratio_fit = p["fit_s"] / r["fit_s"] if r and p else None
            ratio_all = p["fit_transform_s"] / r["fit_transform_s"] if r and p else None
            rel = rel_diff(r["eigenvalues"], p["eigenvalues"]) if r and p else None
            lines.append(
                f"| {name} | {ds['n']} | {ds['d']} | {method if r else '(' + method + ': n/a)'} | {peer if p else '(n/a)'} | "
                f"{fmt_time(r['fit_s'] if r else None)} | {fmt_time(p['fit_s'] if p else None)} | "
                f"{'-' if ratio_fit is None else f'{ratio_fit:.2f}'} | "
                f"{fmt_time(r['fit_transform_s'] if r else None)} | "
                f"{fmt_time(p['fit_transform_s'] if p else None)} | "
                f"{'-' if ratio_all is None else f'{ratio_all:.2f}'} | {fmt_rel(rel)} |"
            )

    # Eigenvalue agreement (like with like).
    check = []
    check.append("| data set | kpca fit | reference | max rel. diff (top 8) | within 1e-6 |")
    check.append("|---|---|---|--:|---|")
    failed = []
    for ds in rust["datasets"]:
        name = ds["name"]
        items = []
        if (name, "dense") in rk and (name, "sklearn-dense") in pk:
            items.append(("dense", "sklearn-dense", True))
            items.append(("iterative", "sklearn-dense", False))
        elif (name, "iterative") in rk and (name, "sklearn-arpack") in pk:
            # No dense fit at this n: the iterative fit against ARPACK.
            items.append(("iterative", "sklearn-arpack", True))
        else:
            failed.append(f"{name}: no comparable fits")
            check.append(f"| {name} | - | - | - | MISSING |")
        for method, ref, required in items:
            rel = rel_diff(rk[(name, method)]["eigenvalues"], pk[(name, ref)]["eigenvalues"])
            ok = rel is not None and rel <= EIG_RTOL
            if required and not ok:
                failed.append(f"{name}: {method} vs {ref}: {rel}")
            verdict = "yes" if ok else "NO"
            if not required:
                verdict += " (informative)"
            check.append(f"| {name} | {method} | {ref} | {fmt_rel(rel)} | {verdict} |")

    text = "\n".join(lines) + "\n\nEigenvalue check (kpca vs scikit-learn, top 8):\n\n" + "\n".join(check) + "\n"
    print(text)
    (out_dir / "table.md").write_text(text)
    if failed:
        print("EIGENVALUE CHECK FAILED:\n  " + "\n  ".join(failed), file=sys.stderr)
        sys.exit(1)
    print("eigenvalue check passed: kpca and scikit-learn agree to 1e-6 on every data set")


if __name__ == "__main__":
    main()
