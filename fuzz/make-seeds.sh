#!/usr/bin/env bash
# Regenerates the committed seed corpus fuzz/corpus-seed/<target>/ from real
# models fitted by the kpca command on the bundled BasicMotions data.
# Usage: fuzz/make-seeds.sh [PATH_TO_KPCA_BINARY]
# (default: builds the command with `cargo build --features cli`).
set -euo pipefail
cd "$(dirname "$0")/.."
KPCA=${1:-}
if [ -z "$KPCA" ]; then
  cargo build --quiet --features cli --bin kpca --target-dir target/hostile
  KPCA=target/hostile/debug/kpca
fi
SEED=fuzz/corpus-seed
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
rm -rf "$SEED"
mkdir -p "$SEED"/{load_and_project,mutate_blob,capi,csv_npy}

# Training data: the six sensor columns of the first 48 rows (numeric CSV).
awk -F, 'NR == 1 { print "acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z"; next }
         NR <= 49 { print $5","$6","$7","$8","$9","$10 }' data/basicmotions.csv > "$TMP/train.csv"
# A whitespace-separated variant with comments and blank lines.
{ echo "# sensor rows"; awk -F, 'NR >= 2 && NR <= 9 { print $1"\t"$2"  "$3" "$4" "$5" "$6 }' "$TMP/train.csv"; echo; } > "$TMP/ws.csv"

fit() { # name, extra args...
  local name=$1; shift
  "$KPCA" fit --input "$TMP/train.csv" --output "$TMP/$name.kpca" "$@" >/dev/null
}
fit rbf_std --kernel rbf --components 3 --standardize --nystrom 8 --seed 1
fit rbf_full --kernel rbf --components 2 --gamma 0.5
fit poly --kernel poly --degree 3 --components 2 --nystrom 6 --seed 2
fit linear --kernel linear --components 2 --nystrom 5 --seed 3
fit laplacian --kernel laplacian --components 4 --standardize --nystrom 7 --seed 4
fit sigmoid --kernel sigmoid --gamma 0.05 --coef0 0.1 --components 2 --nystrom 6 --seed 5
fit cosine --kernel cosine --components 3 --nystrom 9 --seed 6
# Models with the optional sections (format 4): a pre-image map and a
# regression head of two targets computed from the rows.
awk -F, 'NR == 1 { print "y1,y2"; next } { print $1 + $2 "," 2 * $3 }' "$TMP/train.csv" > "$TMP/targets.csv"
fit heads_rbf --kernel rbf --components 3 --standardize --nystrom 8 --seed 1 --inverse-transform --target "$TMP/targets.csv"
fit heads_poly --kernel poly --components 2 --nystrom 6 --seed 2 --inverse-transform --alpha 0.5

# Input vectors for the projection targets: selector bytes 16..127 give
# moderate values, 0..15 the special ones (Values::value in fuzz/src/lib.rs).
printf '\x00\x48\x50\x40\x58\x38\x60\x30\x68\x28\x48\x48\x48\x48\x48\x48\x48\x48\x02\x50\x48\x40\x48\x58\x48\x48' > "$TMP/moderate"
printf '\x00\x00\x01\x03\x08\x09\x0c\x0d\x05\x07\x0a\x0b\x0e\x04\x06\x02\x03\x03\x03\x03\x03\x03' > "$TMP/special"
printf '\x00\x80\xff\xff\x7f\x7f\x90\x01\x00\x00\x00\xa0\x00\x00\x80\x7f\xc0\x00\x00\xc0\x7f\x48\x48\x48\x48' > "$TMP/raw"
for f in "$TMP"/*.kpca; do
  n=$(basename "$f" .kpca)
  for t in load_and_project capi; do
    for inp in moderate special raw; do
      { printf '\x00'; cat "$f" "$TMP/$inp"; } > "$SEED/$t/${n}_$inp"
    done
    { printf '\x01'; cat "$f"; } > "$SEED/$t/${n}_whole"
  done
done
# A misaligned copy (selector byte 0xf1) and an unloaded-model run (0xf5 0xf5) for capi.
{ printf '\x00'; cat "$TMP/rbf_std.kpca"; printf '\xf1\x48\x48'; } > "$SEED/load_and_project/rbf_std_misaligned"
{ printf '\x00'; cat "$TMP/rbf_std.kpca"; printf '\x01\x00\x00\x00\xf5\x41\x43\x50\x4b'; } > "$SEED/capi/unloaded"

# mutate_blob decodes a model from bytes: kernel id, gamma, degree, coef0, d, m,
# k, standardisation, then values and mutations. One seed per kernel.
for id in 0 1 2 3 4 5; do
  head -c 600 /dev/zero | tr '\0' '\101' > "$TMP/fill"
  { printf "\\x0$id\\x02\\x01\\x20\\x03\\x04\\x02\\x01"; cat "$TMP/fill"; } > "$SEED/mutate_blob/kernel$id"
done

# csv_npy: real CSV (comma and whitespace), a header-only file, and NPY files.
cp "$TMP/train.csv" "$SEED/csv_npy/train.csv"
cp "$TMP/ws.csv" "$SEED/csv_npy/whitespace.csv"
printf 'a,b\n' > "$SEED/csv_npy/header_only.csv"
printf '1,2\n3,x\n' > "$SEED/csv_npy/bad_field.csv"
npy() { # descr, shape, data file
  local header="{'descr': '$1', 'fortran_order': False, 'shape': $2, }"
  local pad=$(( (64 - (10 + ${#header} + 1) % 64) % 64 ))
  printf '\x93NUMPY\x01\x00'
  local hl=$(( ${#header} + pad + 1 ))
  printf "\\x$(printf %02x $((hl % 256)))\\x$(printf %02x $((hl / 256)))"
  printf '%s%*s\n' "$header" "$pad" ''
  cat "$3"
}
printf '\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40\x00\x00\xa0\x40\x00\x00\xc0\x40' > "$TMP/f32x6"
npy '<f4' '(2, 3)' "$TMP/f32x6" > "$SEED/csv_npy/f32_2x3.npy"
npy '<f4' '(6,)' "$TMP/f32x6" > "$SEED/csv_npy/f32_1d.npy"
printf '\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x40' > "$TMP/f64x2"
npy '<f8' '(1, 2)' "$TMP/f64x2" > "$SEED/csv_npy/f64_1x2.npy"
npy '<i4' '(1, 2)' "$TMP/f64x2" > "$SEED/csv_npy/i32.npy"
# Inputs of the NPY header bugs fixed in 10b390a (TESTING.md, bugs 3 and 4) and
# a Fortran-order file: a v3 header whose length field is 0x00FFFFFF, a header
# with a run of nested braces, and fortran_order True (refused by the reader).
python3 - "$SEED/csv_npy" <<'PY'
import struct
import sys
out = sys.argv[1]
def v1(header):
    body = header + " " * (117 - len(header)) + "\n"
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body.encode()
open(f"{out}/npy_v3_overlong_header.npy", "wb").write(
    b"\x93NUMPY\x03\x00" + bytes([0xFF, 0xFF, 0xFF, 0x00]) + b"{}\n" + bytes(4))
open(f"{out}/npy_nested_header.npy", "wb").write(
    v1("(" + "{" * 12 + "'descr': '<f8', 'fortran_order': False, 'shape': (1,), }") + bytes(8))
open(f"{out}/npy_fortran.npy", "wb").write(
    v1("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }")
    + struct.pack("<4d", 1, 2, 3, 4))
PY
ls "$SEED"/* | wc -l
