#!/usr/bin/env bash
# Fit benchmark of the issue: kpca's fit (benches/fit.rs) against scikit-learn
# KernelPCA (dense, arpack, randomized), and for Nyström against nystrompca and
# scikit-learn Nystroem + PCA on the same landmarks, in one run:
#   full fits   n = 1000, 2000, 4000, 8000 (d = 16, k = 8, rbf gamma = 1/d, Gaussian mixture)
#   Nyström     n = 20000, 100000 with m = 200, 1000 landmarks
# Every fit runs in its own process: wall time (best of 5 after a warm-up, or
# one run when the first takes 6 s or more) and peak resident set (VmHWM) of that
# process, plus its resident set just before the fit; kpca also reports its peak
# heap (counting allocator). Cases that would take far too long are skipped with
# the reason in the table. Writes results.jsonl and table.md into
# $CARGO_TARGET_DIR/bench-fit (default target/bench-fit; KPCA_BENCH_OUT overrides,
# relative to the directory it is started from) and prints the tables; about 5
# to 10 minutes. Also `cargo xtask bench-fit`.
#
# KPCA_BENCH_ONLY=full or =nystrom runs only that part. KPCA_BENCH_PHASES=1 adds,
# for kpca's iterative full fit, the time of the kernel matrix + centring + one
# solver pass ("phases_s" in results.jsonl; see benches/fit.rs).
#
# Needs Python 3 with numpy, scikit-learn, nystrompca and threadpoolctl (installed
# with pip if missing; PYTHON selects the interpreter). Threads are left as the
# machine has them (rayon and OpenBLAS: all cores) and recorded.
set -euo pipefail
. "$(dirname "$0")/common.sh"
PYTHON="${PYTHON:-python3}"
OUT="${KPCA_BENCH_OUT:-$TARGET_DIR/bench-fit}"
case "$OUT" in /*) ;; *) OUT="$CALLER_DIR/$OUT" ;; esac
mkdir -p "$OUT"
TIMEOUT="${KPCA_BENCH_TIMEOUT:-300}"
ONLY="${KPCA_BENCH_ONLY:-}"
start=$(date +%s)

if ! "$PYTHON" -c 'import sklearn, nystrompca, threadpoolctl' 2>/dev/null; then
  echo "== installing the Python peers (pip)"
  "$PYTHON" -m pip install --quiet scikit-learn nystrompca threadpoolctl
fi

echo "== build (cargo bench -p kpca-fit --bench fit --no-run)"
bench=$(cargo bench -p kpca-fit --bench fit --no-run --message-format=json 2>/dev/null |
  "$PYTHON" -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "fit" and m.get("executable"):
        print(m["executable"])' | tail -1)
[[ -x "$bench" ]] || { echo "bench executable not found" >&2; exit 1; }
"$bench" --gen "$OUT"

load_before=$(uptime)
results="$OUT/results.jsonl"
: > "$results"
# run KIND LABEL N M COMMAND...: one case in its own process, JSON line tagged.
run() {
  local kind=$1 label=$2 n=$3 m=$4; shift 4
  local line
  echo "-- $label n=$n m=$m" >&2
  if line=$(timeout "$TIMEOUT" "$@" | tail -1) && [[ -n "$line" ]]; then
    "$PYTHON" -c 'import json,sys; r=json.loads(sys.argv[1]); r.update(kind=sys.argv[2], label=sys.argv[3]); print(json.dumps(r))' \
      "$line" "$kind" "$label" >> "$results"
  else
    skip "$kind" "$label" "$n" "$m" "failed or timed out after ${TIMEOUT} s"
  fi
}
skip() {
  "$PYTHON" -c 'import json,sys; k,l,n,m,w=sys.argv[1:]; print(json.dumps(dict(kind=k,label=l,n=int(n),m=int(m),skipped=w)))' "$@" >> "$results"
}
# The peers run on OpenBLAS's native kernels for this CPU: the variables that
# pin them (this machine's environment sets OPENBLAS_CORETYPE) are unset for
# the peer's process alone.
PEER=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$PYTHON" scripts/peers/bench_fit_peers.py --dir "$OUT")

for n in 1000 2000 4000 8000; do
  [[ -z "$ONLY" || "$ONLY" == full ]] || break
  run full kpca-iterative "$n" 0 "$bench" --case full-iterative --n "$n"
  if (( n <= 2000 )); then
    run full kpca-dense "$n" 0 "$bench" --case full-dense --n "$n"
  else
    skip full kpca-dense "$n" 0 "O(n^3) dense solver, for small n (Solver::Auto picks the iterative one)"
  fi
  if (( n <= 4000 )); then
    run full sklearn-dense "$n" 0 "${PEER[@]}" --case sklearn-dense --n "$n"
  else
    skip full sklearn-dense "$n" 0 "O(n^3) LAPACK eigh: minutes at n = 8000"
  fi
  run full sklearn-arpack "$n" 0 "${PEER[@]}" --case sklearn-arpack --n "$n"
  run full sklearn-randomized "$n" 0 "${PEER[@]}" --case sklearn-randomized --n "$n"
done
for n in 20000 100000; do
  [[ -z "$ONLY" || "$ONLY" == nystrom ]] || break
  for m in 200 1000; do
    run nystrom kpca-nystrom "$n" "$m" "$bench" --case nystrom --n "$n" --m "$m"
    run nystrom sklearn-nystroem+pca "$n" "$m" "${PEER[@]}" --case sklearn-nystroem --n "$n" --m "$m"
    if (( n == 20000 && m == 200 )); then
      run nystrom nystrompca "$n" "$m" "${PEER[@]}" --case nystrompca --n "$n" --m "$m"
    else
      skip nystrom nystrompca "$n" "$m" "evaluates the n x m kernel entries one Python call each: time grows with n m, past ${TIMEOUT} s here"
    fi
  done
done
load_after=$(uptime)

{
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(uname -sr)"
  echo "- load before: ${load_before##*load average: }; after: ${load_after##*load average: } (1/5/15 min)"
  echo "- $(rustc --version); rayon threads: ${RAYON_NUM_THREADS:-all $(nproc)}"
  "$PYTHON" scripts/peers/bench_fit_report.py "$OUT"
  echo
  echo "total wall time of the benchmark: $(( $(date +%s) - start )) s"
} | tee "$OUT/table.md"
