#!/usr/bin/env bash
# Cost of kpca on five emulated MCUs: the Cortex-M4F of scripts/firmware-cost.sh
# (the reference row) and, as baselines, a Cortex-M0, a Cortex-M33, a Cortex-M7
# and an RV32IMAC core.
#
#   scripts/firmware-targets.sh
#
#   target  QEMU machine                  Rust target (libkpca.a)        gcc flags
#   m0      microbit (nRF51)              thumbv6m-none-eabi             -mcpu=cortex-m0 -mthumb -mfloat-abi=soft
#   m4f     mps2-an386                    thumbv7em-none-eabihf          -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
#   m33     mps2-an505 (Secure)           thumbv8m.main-none-eabihf      -mcpu=cortex-m33 -mfpu=fpv5-sp-d16 -mfloat-abi=hard
#   m7      mps2-an500                    thumbv7em-none-eabihf          -mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard
#   rv32    virt, qemu-system-riscv32     riscv32imac-unknown-none-elf   -march=rv32imac -mabi=ilp32 (picolibc)
#
# For each: the library from scripts/build-firmware-lib.sh (what C projects
# link), the bench firmware c-examples/firmware/bench_kpca.c on generated RBF
# models (m = 128, k = 4, d = 8 and 16; `cargo xtask gen-model bench`) with the
# target's startup and linker script (c-examples/firmware/targets/README.md);
# every run must print "self-check ok" (device outputs within 1e-5 of each
# output's scale of the host's). Reported: instructions per kpca_project,
# kpca_anomaly_score and C baseline call, counted with QEMU's TCG insn plugin as
# (count(N calls) - count(0 calls)) / N, the same method as firmware-cost.sh;
# the stack high-water mark of each call (painted stack); how many of the 80
# outputs (16 vectors x (k coordinates + score)) are bit-identical to the
# host's (a build with tolerance 0); and the flash the library adds
# (text+rodata of c-examples/firmware/flash_kpca.c with the calls minus
# without, d = 8). Semihosting on every machine (RISC-V: the EBREAK sequence).
# Prints Markdown tables and writes them to build/firmware-targets.md; exits
# non-zero when a target fails to build, to run or its self-check. Outputs in
# build/targets/. Also `cargo xtask firmware targets` (installs the tools first).
set -euo pipefail
shopt -s inherit_errexit
. "$(dirname "$0")/common.sh"
need_tools firmware-targets arm-none-eabi-gcc arm-none-eabi-size riscv64-unknown-elf-gcc \
  riscv64-unknown-elf-size qemu-system-arm qemu-system-riscv32 python3
t_start=$(date +%s)
TARGETS="m0 m4f m33 m7 rv32"
installed=$(rustup target list --installed)
for rt in thumbv6m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf riscv32imac-unknown-none-elf; do
  grep -qx "$rt" <<<"$installed" || {
    echo "firmware-targets: the rustup target $rt is not installed; run \`cargo xtask deps\`" >&2
    exit 1
  }
done
riscv64-unknown-elf-gcc --specs=picolibc.specs -print-file-name=picolibc.specs >/dev/null 2>&1 || {
  echo "firmware-targets: picolibc for riscv64-unknown-elf not installed; run \`cargo xtask deps\`" >&2
  exit 1
}
N=64
M=128
K=4
DS="8 16"
FW=c-examples/firmware
out=$ROOT/build/targets
mkdir -p "$out"
scripts/qemu-plugin/build.sh >/dev/null
PLUGIN=$ROOT/build/qemu-plugin/libinsn.so
WFLAGS="-O2 -std=c99 -Wall -Wextra -Wpedantic -Werror -Wdouble-promotion -ffunction-sections -fdata-sections"
INCLUDES="-I$FW -I$ROOT/c-examples/baseline -I$ROOT/include"
SEMI="-nographic -semihosting-config enable=on,target=native"

# Sets the current target's label, machine, rust, prefix, arch, ld, startup,
# libc and qemu (the QEMU command without -kernel).
select_target() {
  name=$1
  local arm_libc="--specs=nano.specs -Wl,--no-warn-execstack"
  case $name in
    m0) label="Cortex-M0"; machine="microbit (nRF51)"; rust=thumbv6m-none-eabi
      prefix=arm-none-eabi-; arch="-mcpu=cortex-m0 -mthumb -mfloat-abi=soft"
      ld=$FW/targets/microbit/microbit.ld; startup=$FW/startup.c; libc=$arm_libc
      qemu="qemu-system-arm -machine microbit" ;;
    m4f) label="Cortex-M4F"; machine="mps2-an386"; rust=thumbv7em-none-eabihf
      prefix=arm-none-eabi-; arch="-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard"
      ld=$FW/mps2_an386.ld; startup=$FW/startup.c; libc=$arm_libc
      qemu="qemu-system-arm -machine mps2-an386 -cpu cortex-m4" ;;
    m33) label="Cortex-M33"; machine="mps2-an505"; rust=thumbv8m.main-none-eabihf
      prefix=arm-none-eabi-; arch="-mcpu=cortex-m33 -mthumb -mfpu=fpv5-sp-d16 -mfloat-abi=hard"
      ld=$FW/targets/mps2-an505/mps2_an505.ld; startup=$FW/startup.c; libc=$arm_libc
      qemu="qemu-system-arm -machine mps2-an505 -cpu cortex-m33" ;;
    m7) label="Cortex-M7"; machine="mps2-an500"; rust=thumbv7em-none-eabihf
      prefix=arm-none-eabi-; arch="-mcpu=cortex-m7 -mthumb -mfpu=fpv5-d16 -mfloat-abi=hard"
      ld=$FW/mps2_an386.ld; startup=$FW/startup.c; libc=$arm_libc
      qemu="qemu-system-arm -machine mps2-an500 -cpu cortex-m7" ;;
    rv32) label="RV32IMAC"; machine="virt (qemu-system-riscv32)"; rust=riscv32imac-unknown-none-elf
      prefix=riscv64-unknown-elf-; arch="-march=rv32imac -mabi=ilp32"
      ld=$FW/targets/riscv-virt/virt.ld; startup=$FW/targets/riscv-virt/startup.c
      libc="--specs=picolibc.specs"; qemu="qemu-system-riscv32 -machine virt -bios none" ;;
    *) echo "firmware-targets: unknown target $name" >&2; return 1 ;;
  esac
}

# link ELF ARG...: compiles and links one firmware for the current target
# (ARG: -D/-I flags and the program's own sources) with the harness and $lib.
link() {
  local elf=$1
  shift
  # shellcheck disable=SC2086
  "${prefix}gcc" $arch $WFLAGS $INCLUDES "$@" -nostartfiles $libc -T "$ld" -Wl,--gc-sections \
    -o "$elf" $startup $FW/semihost.c $FW/stack.c "$lib" -lm \
    || { echo "firmware-targets: $name: building $elf failed" >&2; return 1; }
}

# link_pair ELF_A ELF_B ARGS_A -- ARGS_B: two links side by side (two cores).
link_pair() {
  local a=$1 b=$2 pa pb
  shift 2
  local args_a=() args_b=()
  while [ "$1" != -- ]; do args_a+=("$1"); shift; done
  shift
  args_b=("$@")
  link "$a" "${args_a[@]}" & pa=$!
  link "$b" "${args_b[@]}" & pb=$!
  wait "$pa"
  wait "$pb"
}

# count_run ELF: instructions of one run (stdout); its output goes to ELF.log.
# Fails unless the run exits 0 and printed "self-check ok" (bench) or
# "status 0" (flash probe).
count_run() {
  local elf=$1 n
  # shellcheck disable=SC2086
  if ! n=$(QEMU_TIMEOUT=120 scripts/qemu-plugin/count.sh --plugin "$PLUGIN" "$elf" $qemu $SEMI 2>"$elf.log"); then
    echo "firmware-targets: $name: $elf did not run to a clean exit:" >&2
    cat "$elf.log" >&2
    return 1
  fi
  grep -qE "self-check ok|flash probe status 0" "$elf.log" || {
    echo "firmware-targets: $name: $elf: self-check failed:" >&2
    cat "$elf.log" >&2
    return 1
  }
  echo "$n"
}

# per_call ELF0 ELFN: instructions per call, both runs side by side.
per_call() {
  local p0 pn
  count_run "$1" >"$1.count" & p0=$!
  count_run "$2" >"$2.count" & pn=$!
  wait "$p0"
  wait "$pn"
  python3 -c "print(f'{($(cat "$2.count") - $(cat "$1.count")) / $N:.0f}')"
}

# exact ELF: how many of the outputs equal the host's bits (a build with
# SELF_CHECK_REL_TOL=0, run without the plugin; its exit status is 1 when any
# differs, so only a missing report line fails).
exact() {
  local log mism
  # shellcheck disable=SC2086
  log=$(timeout 120 $qemu $SEMI -kernel "$1" 2>&1 </dev/null) || true
  mism=$(sed -n 's/.*self-check [A-Za-z]* (\([0-9]*\) mismatches).*/\1/p' <<<"$log")
  [ -n "$mism" ] || {
    echo "firmware-targets: $name: $1 printed no self-check line:" >&2
    echo "$log" >&2
    return 1
  }
  echo "$((16 * (K + 1) - mism)) / $((16 * (K + 1)))"
}

for d in $DS; do
  cargo xtask gen-model bench rbf "$M" "$d" "$K" "$out/model_d$d" >/dev/null
done

fmt() { python3 -c "print(f'{$1:,}')"; }
table="| target | d | kpca_project (instr.) | kpca_anomaly_score (instr.) | C baseline (instr.) | project / baseline | stack project / score / baseline (B) | outputs bit-identical to the host's |
|---|--:|--:|--:|--:|--:|--:|--:|"
ftable="| target | QEMU 7.2 machine | libkpca.a (Rust target) | gcc flags | flash added by the library (B) | size-first build: flash (B) | size-first: kpca_project d = 8 (instr.), stack project (B), outputs bit-identical |
|---|---|---|---|--:|--:|--:|"
for t in $TARGETS; do
  select_target "$t"
  echo "=== firmware-targets: $label on QEMU $machine ($rust)" >&2
  lib=$(scripts/build-firmware-lib.sh "$rust")
  dir=$out/$name
  mkdir -p "$dir"
  for d in $DS; do
    mdir=$out/model_d$d
    src=("-I$mdir" "$FW/bench_kpca.c" "$mdir/bench_model.c" c-examples/baseline/rbf_baseline.c)
    for op in 1 2 3; do
      link_pair "$dir/bench_d${d}_${op}_0.elf" "$dir/bench_d${d}_${op}_$N.elf" \
        -DBENCH_OP=$op -DBENCH_CALLS=0 "${src[@]}" -- -DBENCH_OP=$op -DBENCH_CALLS=$N "${src[@]}"
    done
    link "$dir/bench_d${d}_exact.elf" -DBENCH_OP=0 -DBENCH_CALLS=0 -DSELF_CHECK_REL_TOL=0.0f "${src[@]}"
    p=$(per_call "$dir/bench_d${d}_1_0.elf" "$dir/bench_d${d}_1_$N.elf")
    s=$(per_call "$dir/bench_d${d}_2_0.elf" "$dir/bench_d${d}_2_$N.elf")
    b=$(per_call "$dir/bench_d${d}_3_0.elf" "$dir/bench_d${d}_3_$N.elf")
    sp=$(sed -n 's/.*stack project \([0-9]*\) B, score \([0-9]*\) B.*/\1 \/ \2/p' "$dir/bench_d${d}_1_0.elf.log")
    sb=$(sed -n 's/baseline stack \([0-9]*\) B.*/\1/p' "$dir/bench_d${d}_3_0.elf.log")
    [ -n "$sp" ] && [ -n "$sb" ] || { echo "firmware-targets: $name: no stack figures in the logs" >&2; exit 1; }
    bits=$(exact "$dir/bench_d${d}_exact.elf")
    ratio=$(python3 -c "print(f'{$p / $b:.2f}')")
    table="$table
| $label | $d | $(fmt "$p") | $(fmt "$s") | $(fmt "$b") | $ratio | $sp / $sb | $bits |"
    echo "$label d=$d: project $p, score $s, baseline $b, stack $sp / $sb, bit-identical $bits" >&2
  done
  # Flash: the probe with and without the library calls (d = 8 model).
  mdir=$out/model_d8
  link_pair "$dir/flash_0.elf" "$dir/flash_1.elf" \
    -DWITH_KPCA=0 "-I$mdir" $FW/flash_kpca.c "$mdir/bench_model.c" -- \
    -DWITH_KPCA=1 "-I$mdir" $FW/flash_kpca.c "$mdir/bench_model.c"
  count_run "$dir/flash_1.elf" >/dev/null
  f0=$("${prefix}size" -A "$dir/flash_0.elf" | awk '$1==".text"||$1==".rodata"{s+=$2} END{print s}')
  f1=$("${prefix}size" -A "$dir/flash_1.elf" | awk '$1==".text"||$1==".rodata"{s+=$2} END{print s}')
  # The size-first build (feature size, docs/COST.md): its flash on the same
  # probe, kpca_project's instructions and stack at d = 8, and its bits.
  fast_lib=$lib
  lib=$(scripts/build-firmware-lib.sh "$rust" size)
  link "$dir/flash_size.elf" -DWITH_KPCA=1 "-I$mdir" $FW/flash_kpca.c "$mdir/bench_model.c"
  count_run "$dir/flash_size.elf" >/dev/null
  fs=$("${prefix}size" -A "$dir/flash_size.elf" | awk '$1==".text"||$1==".rodata"{s+=$2} END{print s}')
  src=("-I$mdir" "$FW/bench_kpca.c" "$mdir/bench_model.c" c-examples/baseline/rbf_baseline.c)
  link_pair "$dir/size_1_0.elf" "$dir/size_1_$N.elf" \
    -DBENCH_OP=1 -DBENCH_CALLS=0 "${src[@]}" -- -DBENCH_OP=1 -DBENCH_CALLS=$N "${src[@]}"
  link "$dir/size_exact.elf" -DBENCH_OP=0 -DBENCH_CALLS=0 -DSELF_CHECK_REL_TOL=0.0f "${src[@]}"
  ps=$(per_call "$dir/size_1_0.elf" "$dir/size_1_$N.elf")
  sps=$(sed -n 's/.*stack project \([0-9]*\) B.*/\1/p' "$dir/size_1_0.elf.log")
  bs=$(exact "$dir/size_exact.elf")
  lib=$fast_lib
  echo "$label size-first: flash $((fs - f0)), project $ps, stack $sps, bit-identical $bs" >&2
  ftable="$ftable
| $label | $machine | $rust | \`$arch\` | $(fmt "$((f1 - f0))") | $(fmt "$((fs - f0))") | $(fmt "$ps"), $sps, $bs |"
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain -- crates include 2>/dev/null | head -n1)
took=$(($(date +%s) - t_start))
table="RBF, m = $M, k = $K; instructions per call (count($N calls) − count(0 calls)) / $N with QEMU's insn plugin; every run self-checked against the host (1e-5 of each output's scale).

$table

Flash the library adds (load + project + score, every kernel available; text+rodata, model data excluded):

$ftable

Measured on $cpu, $(qemu-system-arm --version | head -n1), $(arm-none-eabi-gcc --version | head -n1), $(riscv64-unknown-elf-gcc --version | head -n1), $(rustc --version); kpca $commit${dirty:+ (crates/ or include/ with uncommitted changes)}; $took s."
echo "$table" | tee "$ROOT/build/firmware-targets.md"
