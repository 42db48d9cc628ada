#!/usr/bin/env bash
# Where the instructions of one call go, per function, on the emulated
# Cortex-M4F: runs ELF0 (the bench firmware with 0 calls) and ELFN (N calls)
# under QEMU mps2-an386 with the per-address counting plugin (profile.c),
# and prints (count(N) - count(0)) / N per function, largest first.
#
#   scripts/qemu-plugin/profile.sh ELF0 ELFN N [--lines FUNCTION]
#
# --lines FUNCTION: instead, every instruction of the function (a substring
# of its symbol) with its count per call. Needs the plugin header that
# build.sh extracts (run scripts/qemu-plugin/build.sh first) and the firmware
# ELFs of scripts/firmware-cost.sh (build/cost/...: bench_1_0.elf and
# bench_1_64.elf are kpca_project with 0 and 64 calls). Not part of any test.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ $# -ge 3 ] || { echo "usage: $0 ELF0 ELFN N [--lines FUNCTION]" >&2; exit 2; }
elf0=$1 elfn=$2 n=$3
out=$repo/build/qemu-plugin
inc=$out/src/tree/include/qemu
[ -f "$inc/qemu-plugin.h" ] || { echo "profile: run scripts/qemu-plugin/build.sh first (plugin header)" >&2; exit 1; }
if [ ! -f "$out/libprofile.so" ] || [ "$here/profile.c" -nt "$out/libprofile.so" ]; then
  gcc -O2 -Wall -fPIC -shared -I"$inc" $(pkg-config --cflags glib-2.0) -o "$out/libprofile.so" "$here/profile.c"
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for which in 0 n; do
  elf=$elf0; [ $which = n ] && elf=$elfn
  PROF_OUT=$tmp/$which.out qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
    -semihosting-config enable=on,target=native -plugin "$out/libprofile.so" -kernel "$elf" \
    </dev/null >/dev/null 2>&1 || true
done
python3 - "$elfn" "$tmp/0.out" "$tmp/n.out" "$n" "${5:-}" <<'PY'
import bisect, collections, subprocess, sys
elf, p0, p1, calls, lines_of = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
syms = []
for line in subprocess.run(['arm-none-eabi-nm', '-S', '--defined-only', elf],
                           capture_output=True, text=True, check=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4 and f[2] in 'tTwW':
        syms.append((int(f[0], 16) & ~1, int(f[1], 16), f[3]))
syms.sort()
starts = [s[0] for s in syms]
load = lambda p: {int(a, 16): int(c) for a, c in (l.split() for l in open(p))}
c0, c1 = load(p0), load(p1)
if lines_of:
    lo, size = next((a, s) for a, s, name in syms if lines_of in name)
    dis = subprocess.run(['arm-none-eabi-objdump', '-d', '--no-show-raw-insn', f'--start-address={lo}',
                          f'--stop-address={lo + size}', elf], capture_output=True, text=True).stdout
    for l in dis.splitlines():
        try:
            pc = int(l.split(':')[0], 16)
        except ValueError:
            continue
        k = (c1.get(pc, 0) - c0.get(pc, 0)) / calls
        if k:
            print(f"{k:8.1f}  {l.strip()}")
    sys.exit(0)
per = collections.Counter()
for a in set(c0) | set(c1):
    d = c1.get(a, 0) - c0.get(a, 0)
    if d:
        i = bisect.bisect_right(starts, a) - 1
        per[syms[i][2] if i >= 0 and a < syms[i][0] + max(syms[i][1], 2) else '?'] += d
for name, v in per.most_common(20):
    print(f"{v / calls:10.1f}  {name}")
PY
