#!/usr/bin/env bash
# Side-by-side fit benchmark: kpca (benches/fit.rs) against scikit-learn KernelPCA
# (dense, arpack, randomized) and nystrompca NystromKPCA, on identical inputs.
#
#   scripts/bench-fit.sh            # build, run both sides, print the Markdown table
#
# Needs Python 3 with numpy, scipy, scikit-learn, threadpoolctl and nystrompca
# (PYTHON selects the interpreter, default python3). KPCA_BENCH_BUDGET (default 1)
# is the seconds of timed runs per case on both sides (at least 3 runs after a
# warm-up, at most 15; a warm-up of 2 s or more counts as the first timed run).
# Outputs in target/bench-fit/ (KPCA_BENCH_OUT overrides): the inputs (*.npy),
# rust.json, peers.json, machine.md, table.md. Thread settings are left as they
# are (rayon: all cores; OpenBLAS: its default) and recorded. For a
# single-threaded like-for-like run set
#   RAYON_NUM_THREADS=1 BENCH_FIT_BLAS_THREADS=1 KPCA_BENCH_OUT=target/bench-fit-1t
# (BENCH_FIT_BLAS_THREADS caps BLAS with threadpoolctl inside peers.py; no
# OPENBLAS_* variable is set by this script).
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
export KPCA_BENCH_BUDGET="${KPCA_BENCH_BUDGET:-1}"
OUT="${KPCA_BENCH_OUT:-target/bench-fit}"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
export KPCA_BENCH_OUT="$OUT"
mkdir -p "$OUT"
peer_args=(--dir "$OUT" --budget "$KPCA_BENCH_BUDGET")
if [[ -n "${BENCH_FIT_BLAS_THREADS:-}" ]]; then
  peer_args+=(--blas-threads "$BENCH_FIT_BLAS_THREADS")
fi
start=$(date +%s)

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== build (cargo bench --bench fit --features std --no-run)"
cargo bench --bench fit --features std --no-run

echo "== kpca (benches/fit.rs)"
cargo bench --bench fit --features std

echo "== peers (scikit-learn, nystrompca)"
"$PYTHON" scripts/bench-fit/peers.py "${peer_args[@]}"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "== machine"
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
{
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- machine: $(nproc) CPUs (nproc), ${cpu:-unknown CPU}, $(uname -sr)"
  echo "- load average (1/5/15 min) before: ${load_before}, after: ${load_after}"
  echo "- $(rustc --version); kpca $(grep -m1 '^version' Cargo.toml | cut -d'"' -f2), bench profile (release: opt-level 3, lto, codegen-units 1)"
  "$PYTHON" - "$OUT/peers.json" "$OUT/rust.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
v = p["versions"]
print(f"- Python {p['python']}, numpy {v['numpy']}, scipy {v['scipy']}, "
      f"scikit-learn {v['scikit-learn']}, nystrompca {v['nystrompca']}")
blas = "; ".join(f"{t.get('internal_api')} {t.get('version')} {t.get('num_threads')} threads "
                 f"({t.get('threading_layer')}, {t.get('architecture')})" for t in p["threadpoolctl"])
env = ", ".join(f"{k}={val}" for k, val in sorted(p["thread_env"].items())) or "none set"
cap = p.get("blas_threads_limit")
print(f"- threads: kpca rayon {r['rayon_threads']}; BLAS (threadpoolctl) {blas}"
      f"{'' if cap is None else f' [capped to {cap} by peers.py --blas-threads]'}; "
      f"thread env: {env}")
print(f"- timing: median of timed runs after one warm-up (kept as the first timed run when it "
      f"takes >= {r['warmup_keep_s']} s; budget {r['budget_s']} s per case, "
      f"{r['min_runs']}..{r['max_runs']} runs); k = {r['k']}, rbf gamma = 1/d, "
      f"Nystrom m = {r['m']} landmarks (seed {r['landmark_seed']}, same indices on both sides)")
EOF
} | tee "$OUT/machine.md"

echo
echo "== table (ratio = peer time / kpca time; > 1 means kpca is faster)"
status=0
"$PYTHON" scripts/bench-fit/report.py --dir "$OUT" || status=$?
echo "total wall time: $(( $(date +%s) - start )) s"
exit "$status"
