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
      -o "$dir/bench_${op}_${calls}.elf" $FW/bench_kpca.c "$dir/bench_model.c" $harness "${BLIB:-$LIB}" -lm &
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
    $FW/flash_kpca.c "$1/bench_model.c" $FW/startup.c $FW/semihost.c $FW/stack.c "${BLIB:-$LIB}" -lm
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
declare -A fastp
while read -r kern m d k max mode; do
  case "$kern" in ''|'#'*) continue ;; esac
  dir=$out/target_${kern}_m${m}_d${d}_k${k}
  bench_build "$kern" "$m" "$d" "$k" "$dir" 1 2 4
  p=$(per_call "$dir/bench_1_0.elf" "$dir/bench_1_$N.elf")
  s=$(per_call "$dir/bench_2_0.elf" "$dir/bench_2_$N.elf")
  ps=$(per_call "$dir/bench_4_0.elf" "$dir/bench_4_$N.elf")
  fastp[$kern:$m:$d:$k]=$p
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

# The size-first build (feature `size`: one compact loop instead of the
# register passes; the same bits, which the self-check of every row checks
# against the host): each row of scripts/cost-targets.txt through the
# kernel's own entry point (kpca_rbf_project, ...: the generated model's
# route) and through kpca_project, against the fast build's; limits 2x at rbf
# m=128 d=8 k=4 and 4x on the other rows (through the kernel's entry point);
# the stack of one projection through the kernel's entry point in both
# builds (limits: fast 256 + 4 min(d, 64) B, size-first 256 B). The 4x rows
# are gated (with the row's own mode); the 2x row and the stack limits are
# reported, not met yet (docs/COST.md).
SLIB=$(scripts/build-firmware-lib.sh thumbv7em-none-eabihf size)
one_stack() { echo "$log" | sed -n 's/.*one-kernel project \([0-9]*\) B.*/\1/p'; }
stable="| kernel | m | d | k | kpca_<kernel>_project fast / size-first (instr.) | ratio (limit) | kpca_project fast / size-first (instr.) | stack fast (limit) / size-first (limit 256) (B) | |
|---|---|---|---|---|---|---|---|---|"
while read -r kern m d k max mode; do
  case "$kern" in ''|'#'*) continue ;; esac
  fdir=$out/target_${kern}_m${m}_d${d}_k${k}
  dir=$out/size_${kern}_m${m}_d${d}_k${k}
  bench_build "$kern" "$m" "$d" "$k" "$fdir" 5
  pf=$(per_call "$fdir/bench_5_0.elf" "$fdir/bench_5_$N.elf"); sf=$(one_stack); flog=$log
  BLIB=$SLIB bench_build "$kern" "$m" "$d" "$k" "$dir" 5 1
  ps=$(per_call "$dir/bench_5_0.elf" "$dir/bench_5_$N.elf"); ss=$(one_stack)
  pa=$(per_call "$dir/bench_1_0.elf" "$dir/bench_1_$N.elf")
  lim=4; [ "$kern $m $d $k" = "rbf 128 8 4" ] && lim=2
  slim=$((256 + 4 * (d < 64 ? d : 64)))
  verdict=$(python3 -c "
bad = [w for w, c in (('instructions' + ('' if $lim == 4 else ' (reported)'), $ps > $lim * $pf), ('fast stack (reported)', $sf > $slim), ('size-first stack (reported)', $ss > 256)) if c]
print('met' if not bad else 'over: ' + ', '.join(bad))")
  if [ "$kern $m $d $k" = "rbf 128 8 4" ]; then
    ss84=$ss; sf84=$sf; r84=$(python3 -c "print(f'{$ps / $pf:.2f}')")
    sa84=$(echo "$log" | sed -n 's/.*stack project \([0-9]*\) B.*/\1/p')
    fa84=$(echo "$flog" | sed -n 's/.*stack project \([0-9]*\) B.*/\1/p')
    ra84=$(python3 -c "print(f'{$pa / ${fastp[$kern:$m:$d:$k]}:.2f}')")
  fi
  if [ "$lim" = 4 ] && [ "$mode" = gate ] && [ "$ps" -gt $((4 * pf)) ]; then
    over+=("size-first $kern m=$m d=$d k=$k: $ps instructions, over 4x the fast build's $pf")
  fi
  stable="$stable
| $kern | $m | $d | $k | $pf / $ps | $(python3 -c "print(f'{$ps / $pf:.2f}')") ($lim) | ${fastp[$kern:$m:$d:$k]} / $pa | $sf ($slim) / $ss | $verdict |"
done < scripts/cost-targets.txt

# Flash: a firmware that loads, projects and scores (rbf model), with and
# without the library calls, through kpca_project and through kpca_rbf_*.
dir=$out/flash
cargo xtask gen-model bench rbf 128 8 4 "$dir"
f0=$(flash_probe "$dir" 0); f1=$(flash_probe "$dir" 1); f2=$(flash_probe "$dir" 2)
f3=$(flash_probe "$dir" 3); f4=$(flash_probe "$dir" 4)
sf1=$(BLIB=$SLIB flash_probe "$dir" 1); sf2=$(BLIB=$SLIB flash_probe "$dir" 2)
sf3=$(BLIB=$SLIB flash_probe "$dir" 3); sf4=$(BLIB=$SLIB flash_probe "$dir" 4)
table="$table

Flash added by the library (project + score, and the blob's load where it is loaded; text+rodata, model data excluded: the blob in the probes that load it, the generated model's arrays and 128-byte record in those that use it, so the two differ by a few tens of bytes of data); rbf m=128 d=8 k=4:

| build | blob loaded at run time, every kernel (kpca_project) | blob, one kernel (kpca_rbf_*) | generated model (no loader), every kernel | generated model, one kernel |
|---|---|---|---|---|
| fast | $((f1 - f0)) B | $((f2 - f0)) B | $((f4 - f0)) B | $((f3 - f0)) B |
| size-first | $((sf1 - f0)) B | $((sf2 - f0)) B | $((sf4 - f0)) B | $((sf3 - f0)) B |"

# The footprint targets (scripts/footprint-targets.txt): flash of each
# route, the stack and the size-first / fast instruction ratio of rbf m=128
# d=8 k=4 (the size-first rows above); a `gate` row over its target fails.
declare -A fp=(
  [size:one:flash]=$((sf3 - f0)) [size:every:flash]=$((sf1 - f0))
  [speed:one:flash]=$((f3 - f0)) [speed:every:flash]=$((f1 - f0))
  [size:one:stack]=$ss84 [size:every:stack]=$sa84 [speed:one:stack]=$sf84 [speed:every:stack]=$fa84
  [size:one:ratio]=$r84 [size:every:ratio]=$ra84 [speed:one:ratio]=1 [speed:every:ratio]=1
)
fptable="| build, route | flash (B) | target | stack (B) | target | instructions / fast | target | |
|---|--:|--:|--:|--:|--:|--:|---|"
while read -r build route fmax fmode smax smode rmax rmode; do
  case "$build" in ''|'#'*) continue ;; esac
  fl=${fp[$build:$route:flash]}; st=${fp[$build:$route:stack]}; ra=${fp[$build:$route:ratio]}
  verdict=$(python3 -c "
rows = (('flash', $fl > $fmax, '$fmode'), ('stack', $st > $smax, '$smode'), ('instructions', $ra > $rmax, '$rmode'))
bad = [w + ('' if m == 'gate' else ' (reported)') for w, c, m in rows if c]
print('met' if not bad else 'over: ' + ', '.join(bad))")
  for g in "flash:$fl:$fmax:$fmode" "stack:$st:$smax:$smode" "instructions:$ra:$rmax:$rmode"; do
    IFS=: read -r what got lim mode <<<"$g"
    if [ "$mode" = gate ] && python3 -c "import sys; sys.exit(0 if $got > $lim else 1)"; then
      over+=("footprint $build $route: $what $got, target $lim")
    fi
  done
  fptable="$fptable
| $build, $route | $fl | $fmax | $st | $smax | $ra | $rmax | $verdict |"
done < scripts/footprint-targets.txt

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

Footprint (scripts/footprint-targets.txt; M4F, rbf m=128 d=8 k=4; \"one\": the kernel's own entry points with the generated model, no loader; \"every\": kpca_project with the blob loaded at run time; stack of one projection through that route):

$fptable

The size-first build on the same rows (its outputs self-checked against the host's):

$stable

Optional sections (RBF; kpca_predict: regression head of t targets, kpca_reconstruct: pre-image over n score vectors; outputs self-checked against the host's; flash: added to the load + project + score firmware):

$htable"
echo "$table" | tee "$root/build/firmware-cost.md"
if [ "${#over[@]}" -gt 0 ]; then
  printf 'firmware-cost: over target: %s\n' "${over[@]}" >&2
  exit 1
fi
