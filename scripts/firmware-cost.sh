#!/usr/bin/env bash
# Cost of kpca on the emulated Cortex-M4F (QEMU mps2-an386): the tables of docs/COST.md.
#
#   scripts/firmware-cost.sh [--quick]      (--quick: only m=128, d=8)
#
# For m in {32,128,512}, d in {3,8,16}, k = 4, RBF: exact instructions per
# kpca_project / kpca_anomaly_score call and per call of the straightforward C
# baseline (c-examples/baseline, newlib expf, -O2) on the same model, counted
# with QEMU's TCG insn plugin as (count(N calls) - count(0 calls)) / N; the stack
# high-water mark of each call (painted stack); and the flash the library adds
# to a firmware that loads a model, projects and scores (text+rodata of a
# firmware with the calls minus the same firmware without them; the model data
# is in both); every kernel's cost and stack at m=128, d=8, k=4; and the rows of
# scripts/cost-targets.txt against their targets (in --quick too): a row marked
# `gate` over its target makes the script fail. And the optional sections'
# entry points (every bench model has a pre-image map over n = m score vectors
# and a regression head of t = 2 targets) on RBF, k = 4, m=128 d=8 (also m=32
# d=3 and m=512 d=16 without --quick): instructions per kpca_project,
# kpca_predict and kpca_reconstruct call (same method, their outputs
# self-checked against the host's), the stack of each, and the flash
# kpca_predict and kpca_reconstruct add to the firmware that loads, projects
# and scores (flash probe with WITH_HEADS).
# Prints a Markdown table and writes it to build/firmware-cost.md. Also
# `cargo xtask firmware cost [--quick]` (installs the tools first).
set -euo pipefail
. "$(dirname "$0")/common.sh"
root=$ROOT
quick=${1:-}
need_tools firmware-cost arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm python3
N=64
out=$root/build/cost
mkdir -p "$out"
m4f_bench_setup
per_call() { # elf0 elfN
  local c0 cn; c0=$(count "$1"); cn=$(count "$2")
  python3 -c "print(f'{($cn - $c0) / $N:.0f}')"
}
flash() { arm-none-eabi-size -A "$1" | awk '$1==".text"||$1==".rodata"{s+=$2} END{print s}'; }
# bench_build KERNEL M D K DIR OP...: the bench model in DIR, its firmware for
# each OP with 0 and N calls (DIR/bench_OP_CALLS.elf), and the self-check run
# of the first OP's firmware, whose output is left in `log`.
bench_build() {
  local kern=$1 m=$2 d=$3 k=$4 dir=$5 op calls
  shift 5
  cargo xtask gen-model bench "$kern" "$m" "$d" "$k" "$dir"
  for op in "$@"; do for calls in 0 $N; do
    arm-none-eabi-gcc $CFLAGS -I"$dir" -DBENCH_OP=$op -DBENCH_CALLS=$calls $LDFLAGS \
      -o "$dir/bench_${op}_${calls}.elf" $FW/bench_kpca.c "$dir/bench_model.c" $harness "$LIB" -lm &
  done; done
  wait
  log=$(qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -semihosting-config enable=on,target=native -kernel "$dir/bench_${1}_0.elf" 2>&1 </dev/null)
  echo "$log" | grep -q "self-check ok" || { echo "self-check failed for $kern m=$m d=$d k=$k: $log" >&2; exit 1; }
}
# The projection / score stack of the last self-check run.
stack_pair() { echo "$log" | sed -n 's/.*stack project \([0-9]*\) B, score \([0-9]*\) B.*/\1 \/ \2/p'; }

if [ "$quick" = "--quick" ]; then ms="128"; ds="8"; else ms="32 128 512"; ds="3 8 16"; fi
table="| m | d | k | kpca_project (instr.) | kpca_anomaly_score (instr.) | C baseline (instr.) | project / baseline | score / project | arithmetic lower bound (MACs + exps) | stack project / score / baseline (B) |
|---|---|---|---|---|---|---|---|---|---|"
for m in $ms; do for d in $ds; do
  dir=$out/m${m}_d${d}
  bench_build rbf "$m" "$d" 4 "$dir" 3 1 2
  sp=$(stack_pair)
  sb=$(echo "$log" | sed -n 's/baseline stack \([0-9]*\) B.*/\1/p')
  p=$(per_call "$dir/bench_1_0.elf" "$dir/bench_1_$N.elf")
  s=$(per_call "$dir/bench_2_0.elf" "$dir/bench_2_$N.elf")
  b=$(per_call "$dir/bench_3_0.elf" "$dir/bench_3_$N.elf")
  lb="$((m * d + m * 4)) + $m"
  ratio=$(python3 -c "print(f'{$p / $b:.2f}')")
  sratio=$(python3 -c "print(f'{$s / $p:.3f}')")
  table="$table
| $m | $d | 4 | $p | $s | $b | $ratio | $sratio | $lb | $sp / $sb |"
done; done

# Every kernel at m=128, d=8, k=4: instructions per kpca_project,
# kpca_anomaly_score and single-kernel project (kpca_rbf_project, ...) call
# (the firmware's self-check against the host runs too), and the flash a
# firmware that loads, projects and scores adds: through kpca_project (every
# kernel linked) and through the kernel's own entry points (one kernel).
flash_probe() { # DIR WITH [HEADS]: the flash probe firmware (text+rodata)
  local heads=${3:-0} elf
  elf=$1/flash_$2$([ "$heads" = 0 ] || echo "_heads$heads").elf
  arm-none-eabi-gcc $CFLAGS -I"$1" -DWITH_KPCA=$2 -DWITH_HEADS="$heads" $LDFLAGS -o "$elf" \
    $FW/flash_kpca.c "$1/bench_model.c" $FW/startup.c $FW/semihost.c $FW/stack.c "$LIB" -lm
  if [ "$2" != 0 ]; then
    local run
    run=$(qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -semihosting-config enable=on,target=native \
      -kernel "$elf" </dev/null 2>&1) || true
    case "$run" in *"status 0"*) ;; *) echo "flash probe $elf failed: $run" >&2; exit 1 ;; esac
  fi
  flash "$elf"
}
ktable="| kernel (m=128, d=8, k=4) | kpca_project (instr.) | kpca_anomaly_score (instr.) | kpca_<kernel>_project (instr.) | stack project / score (B) | flash added, every kernel / this kernel's entry points (B) |
|---|---|---|---|---|---|"
for kern in linear poly rbf laplacian sigmoid cosine; do
  dir=$out/kernel_$kern
  bench_build "$kern" 128 8 4 "$dir" 1 2 5
  sp=$(stack_pair)
  p=$(per_call "$dir/bench_1_0.elf" "$dir/bench_1_$N.elf")
  s=$(per_call "$dir/bench_2_0.elf" "$dir/bench_2_$N.elf")
  p1=$(per_call "$dir/bench_5_0.elf" "$dir/bench_5_$N.elf")
  f0=$(flash_probe "$dir" 0); f1=$(flash_probe "$dir" 1); f2=$(flash_probe "$dir" 2)
  ktable="$ktable
| $kern | $p | $s | $p1 | $sp | $((f1 - f0)) / $((f2 - f0)) |"
done

# The instruction targets (scripts/cost-targets.txt): kpca_project, and for
# gated rows kpca_anomaly_score and kpca_project_and_score against it; every
# row self-checked against the host. A gated row over its target fails the script.
ttable="| kernel | m | d | k | kpca_project | target | score / project | project+score / project | |
|---|---|---|---|---|---|---|---|---|"
over=()
while read -r kern m d k max mode; do
  case "$kern" in ''|'#'*) continue ;; esac
  dir=$out/target_${kern}_m${m}_d${d}_k${k}
  bench_build "$kern" "$m" "$d" "$k" "$dir" 1 2 4
  p=$(per_call "$dir/bench_1_0.elf" "$dir/bench_1_$N.elf")
  s=$(per_call "$dir/bench_2_0.elf" "$dir/bench_2_$N.elf")
  ps=$(per_call "$dir/bench_4_0.elf" "$dir/bench_4_$N.elf")
  sr=$(python3 -c "print(f'{$s / $p:.3f}')"); psr=$(python3 -c "print(f'{$ps / $p:.3f}')")
  verdict=$(python3 -c "
p, s, ps, mx = $p, $s, $ps, $max
bad = [w for w, c in (('project', p > mx), ('score', s > 1.05 * p), ('project+score', ps > 1.1 * p)) if c]
print('met' if not bad else 'over: ' + ', '.join(bad))")
  if [ "$mode" = gate ] && [ "$verdict" != met ]; then over+=("$kern m=$m d=$d k=$k: $verdict ($p, target $max)"); fi
  [ "$mode" = report ] && [ "$verdict" != met ] && verdict="$verdict (not yet a gate)"
  ttable="$ttable
| $kern | $m | $d | $k | $p | $max | $sr | $psr | $verdict |"
done < scripts/cost-targets.txt

# Flash: a firmware that loads, projects and scores (rbf model), with and
# without the library calls, through kpca_project and through kpca_rbf_*.
dir=$out/flash
cargo xtask gen-model bench rbf 128 8 4 "$dir"
f0=$(flash_probe "$dir" 0); f1=$(flash_probe "$dir" 1); f2=$(flash_probe "$dir" 2)
f3=$(flash_probe "$dir" 3); f4=$(flash_probe "$dir" 4)
table="$table

Flash added by the library (load + project + score; text+rodata, model data excluded): $((f1 - f0)) bytes through kpca_project (every kernel linked; target 6 KiB = 6144), $((f2 - f0)) bytes through kpca_rbf_project and kpca_rbf_anomaly_score (one kernel; target 2.5 KiB = 2560). With the generated model (const kpca_model, no loader linked; project + score; its arrays and record in place of the blob): $((f3 - f0)) bytes through kpca_rbf_project and kpca_rbf_anomaly_score (one kernel), $((f4 - f0)) bytes through kpca_project (every kernel)."

# The optional sections (kpca_predict: regression head, t = 2; kpca_reconstruct:
# pre-image over n = m score vectors): instructions and stack per call next to
# kpca_project's on the same model (the self-check covers their outputs), and
# the flash each adds to the flash probe's load + project + score firmware.
if [ "$quick" = "--quick" ]; then hshapes="128:8"; else hshapes="32:3 128:8 512:16"; fi
htable="| m | d | k | n (pre-image) | t | kpca_project (instr.) | kpca_predict (instr.) | kpca_reconstruct (instr.) | predict − project | reconstruct − project | stack project / predict / reconstruct (B) | flash added by kpca_predict / kpca_reconstruct / both (B) |
|---|---|---|---|---|---|---|---|---|---|---|---|"
for hs in $hshapes; do
  m=${hs%:*}; d=${hs#*:}
  dir=$out/heads_m${m}_d${d}
  bench_build rbf "$m" "$d" 4 "$dir" 1 7 8
  hst=$(echo "$log" | sed -n 's/.*stack project \([0-9]*\) B, score [0-9]* B, predict \([0-9]*\) B, reconstruct \([0-9]*\) B.*/\1 \/ \2 \/ \3/p')
  [ -n "$hst" ] || { echo "no predict / reconstruct stack in the log: $log" >&2; exit 1; }
  p=$(per_call "$dir/bench_1_0.elf" "$dir/bench_1_$N.elf")
  pr=$(per_call "$dir/bench_7_0.elf" "$dir/bench_7_$N.elf")
  rc=$(per_call "$dir/bench_8_0.elf" "$dir/bench_8_$N.elf")
  f1=$(flash_probe "$dir" 1); fp=$(flash_probe "$dir" 1 1); fr=$(flash_probe "$dir" 1 2); fb=$(flash_probe "$dir" 1 3)
  htable="$htable
| $m | $d | 4 | $m | 2 | $p | $pr | $rc | $((pr - p)) | $((rc - p)) | $hst | $((fp - f1)) / $((fr - f1)) / $((fb - f1)) |"
done

table="$table

$ktable

Targets (scripts/cost-targets.txt):

$ttable

Optional sections (RBF; kpca_predict: regression head of t targets, kpca_reconstruct: pre-image over n score vectors; outputs self-checked against the host's; flash: added to the load + project + score firmware):

$htable"
echo "$table" | tee "$root/build/firmware-cost.md"
if [ "${#over[@]}" -gt 0 ]; then
  printf 'firmware-cost: over target: %s\n' "${over[@]}" >&2
  exit 1
fi
