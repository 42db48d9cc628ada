#!/usr/bin/env bash
# Build QEMU's TCG instruction-counting plugin (tests/plugin/insn.c ->
# libinsn.so) for the exact qemu-system-arm that is installed, from Debian's
# source package of that version.
#
#   scripts/qemu-plugin/build.sh [--force]
#
# Output: $QEMU_PLUGIN_OUT/libinsn.so (default: <repo>/build/qemu-plugin/libinsn.so)
#
# Steps: look up the source version of the installed qemu-system-arm, fetch
# that source package with `apt-get source --download-only` (needs a deb-src
# entry: scripts/install-firmware-deps.sh adds one), extract only
# include/qemu/qemu-plugin.h and tests/plugin/insn.c from the upstream tarball,
# apply whatever hunks of Debian's patch series touch those two files, and
# compile with gcc + glib. Does nothing when the library is already built for
# the installed version (unless --force). The downloaded source package is kept
# in $QEMU_PLUGIN_OUT/src for later rebuilds.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${QEMU_PLUGIN_OUT:-$repo/build/qemu-plugin}"
force=0
[ "${1:-}" = "--force" ] && force=1

die() { echo "qemu-plugin/build.sh: $*" >&2; exit 1; }

command -v qemu-system-arm >/dev/null || die "qemu-system-arm not installed (run scripts/install-firmware-deps.sh --plugin)"
for tool in gcc pkg-config tar xz patch apt-get dpkg-query; do
    command -v "$tool" >/dev/null || die "$tool missing (run scripts/install-firmware-deps.sh --plugin)"
done
pkg-config --exists glib-2.0 || die "glib-2.0 development files missing (libglib2.0-dev)"

# Debian source version of the installed binary package (binNMU suffix dropped:
# 1:7.2+dfsg-7+deb12u18+b3 is built from source 1:7.2+dfsg-7+deb12u18).
srcver="$(dpkg-query -W -f='${source:Version}' qemu-system-arm)"
srcpkg="$(dpkg-query -W -f='${source:Package}' qemu-system-arm)"
[ -n "$srcver" ] || die "cannot determine the installed qemu-system-arm version"
stamp="$out/libinsn.so.version"

if [ "$force" -eq 0 ] && [ -f "$out/libinsn.so" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$srcver" ]; then
    echo "qemu-plugin: $out/libinsn.so is up to date for $srcpkg $srcver"
    exit 0
fi

start=$(date +%s)
mkdir -p "$out/src"
cd "$out/src"

# 1. Fetch the source package (.dsc, upstream tarball, Debian tarball),
#    checksum-verified by apt against the signed Sources index.
upver="${srcver#*:}"          # drop the epoch
upver="${upver%-*}"           # drop the Debian revision
orig="$(ls ${srcpkg}_${upver}.orig.tar.* 2>/dev/null | head -n1 || true)"
debtar="$(ls ${srcpkg}_${srcver#*:}.debian.tar.* 2>/dev/null | head -n1 || true)"
if [ -z "$orig" ] || [ -z "$debtar" ]; then
    echo "qemu-plugin: fetching source package $srcpkg=$srcver"
    aptopts=()
    [ "$(id -u)" -eq 0 ] && aptopts=(-o APT::Sandbox::User=root)
    if ! apt-get "${aptopts[@]}" source --download-only -qq "$srcpkg=$srcver"; then
        die "apt-get source failed: is there a deb-src entry and an up-to-date index? (run scripts/install-firmware-deps.sh --plugin)"
    fi
    orig="$(ls ${srcpkg}_${upver}.orig.tar.* | head -n1)"
    debtar="$(ls ${srcpkg}_${srcver#*:}.debian.tar.* | head -n1)"
fi
echo "qemu-plugin: using $orig + $debtar"

# 2. Extract only the two files we need (upstream top directory stripped).
want="include/qemu/qemu-plugin.h tests/plugin/insn.c"
rm -rf tree && mkdir tree
tar -xf "$orig" -C tree --strip-components=1 --wildcards \
    '*/include/qemu/qemu-plugin.h' '*/tests/plugin/insn.c'
for f in $want; do
    [ -f "tree/$f" ] || die "$f not found in $orig"
done

# 3. Apply the hunks of Debian's patch series that touch those files.
rm -rf deb && mkdir deb
tar -xf "$debtar" -C deb debian/patches
if [ -f deb/debian/patches/series ]; then
    applied=0
    while read -r p _; do
        case "$p" in ''|'#'*) continue ;; esac
        # Keep only the file sections of the patch whose target is in $want.
        awk -v want="$want" '
            BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) ok[w[i]] = 1 }
            /^diff / { keep = 0; pending = ""; next }
            /^--- / { if (pending != "" && keep) print pending; pending = $0; next }
            /^\+\+\+ / && pending != "" {
                path = $2; sub(/^[^\/]*\//, "", path)
                keep = (path in ok)
                if (keep) { print pending; print }
                pending = ""; next
            }
            { if (pending != "") { if (keep) print pending; pending = "" }
              if (keep) print }
        ' "deb/debian/patches/$p" > filtered.patch
        if [ -s filtered.patch ]; then
            echo "qemu-plugin: applying the parts of debian/patches/$p for the plugin files"
            patch -d tree -p1 --forward --no-backup-if-mismatch -s < filtered.patch
            applied=$((applied + 1))
        fi
    done < deb/debian/patches/series
    echo "qemu-plugin: $applied Debian patch(es) touch the plugin files"
fi
rm -f filtered.patch

# 4. Compile.
# shellcheck disable=SC2046
gcc -O2 -g -Wall -fPIC -shared \
    -I tree/include/qemu $(pkg-config --cflags glib-2.0) \
    -o "$out/libinsn.so" tree/tests/plugin/insn.c \
    $(pkg-config --libs glib-2.0)
echo "$srcver" > "$stamp"

# 5. Smoke test: QEMU loads it and prints a count at exit. The plugin is
#    generic TCG code: qemu-system-riscv32 (Debian's qemu-system-misc, built
#    from the same source package; scripts/firmware-targets.sh) loads the same
#    library, checked too when it is installed.
smoke() {
    local qemu=$1 log
    log="$(mktemp)"
    timeout -s TERM 2 "$qemu" -machine none -display none -monitor none \
        -serial none -S -plugin "$out/libinsn.so,inline=on" -d plugin -D "$log" \
        >/dev/null 2>&1 || true
    if ! grep -q '^insns: ' "$log"; then
        cat "$log" >&2
        rm -f "$log"
        die "built $out/libinsn.so but $qemu did not load it"
    fi
    rm -f "$log"
}
smoke qemu-system-arm
if command -v qemu-system-riscv32 >/dev/null; then
    smoke qemu-system-riscv32
fi

end=$(date +%s)
echo "qemu-plugin: built $out/libinsn.so for $srcpkg $srcver in $((end - start)) s"
