#!/usr/bin/env bash
# Install the Debian packages that the bare-metal firmware harness
# (c-examples/firmware), the host C tests and the QEMU instruction-counting
# plugin build (scripts/qemu-plugin/build.sh, with --plugin) need; with --riscv
# also the RISC-V toolchain of the link check (scripts/link-check.sh) and the
# RISC-V QEMU of scripts/firmware-targets.sh.
#
#   scripts/install-firmware-deps.sh [--riscv] [--plugin]
#
# Idempotent: installs only what is missing; runs `apt-get update` only when
# something has to be installed (or when the source index is missing).
#
#   firmware:  gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm make
#   host C:    gcc libc6-dev g++ (tests/c_host.rs also compiles the header as C++)
#   C library: cmake pkg-config (the CMake package, add_subdirectory and kpca.pc
#              tests, scripts/clib-test.sh)
#   --plugin:  libglib2.0-dev xz-utils patch dpkg-dev (for `apt-get source`)
#              plus a deb-src entry for Debian so that `apt-get source qemu` works
#              (only with --plugin: the demo and the plain firmware run need none).
#   --riscv:   gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf picolibc-riscv64-unknown-elf
#              qemu-system-misc (qemu-system-riscv32, scripts/firmware-targets.sh)
#
# `cargo xtask deps` runs it with --riscv --plugin (and adds the rustup targets).
# Must run as root (or with sudo available) when something is missing. Works
# from any directory.
set -euo pipefail

riscv=0
plugin=0
for arg in "$@"; do
    case "$arg" in
        --riscv) riscv=1 ;;
        --plugin) plugin=1 ;;
        *) echo "usage: $0 [--riscv] [--plugin]" >&2; exit 2 ;;
    esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

PKGS=(gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm make
      gcc libc6-dev g++ cmake pkg-config)
if [ "$plugin" -eq 1 ]; then
    PKGS+=(libglib2.0-dev xz-utils dpkg-dev patch)
fi
if [ "$riscv" -eq 1 ]; then
    PKGS+=(gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf picolibc-riscv64-unknown-elf
           qemu-system-misc)
fi

missing=()
for p in "${PKGS[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
    if [ "$status" != "install ok installed" ]; then
        missing+=("$p")
    fi
done

# deb-src entry (needed by scripts/qemu-plugin/build.sh to fetch Debian's qemu
# source package matching the installed qemu-system-arm). Only added if no
# deb-src entry exists already. Debian mirrors only.
need_src_update=0
if [ "$plugin" -eq 0 ]; then
    :
elif ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
    echo "install-firmware-deps: adding deb-src entry for Debian ${codename}"
    $SUDO tee /etc/apt/sources.list.d/kpca-deb-src.sources >/dev/null <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: ${codename} ${codename}-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: ${codename}-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    need_src_update=1
elif ! compgen -G '/var/lib/apt/lists/*_Sources*' >/dev/null; then
    need_src_update=1
fi

if [ "${#missing[@]}" -gt 0 ] || [ "$need_src_update" -eq 1 ]; then
    echo "install-firmware-deps: apt-get update"
    $SUDO apt-get update -qq
fi

if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-firmware-deps: installing ${missing[*]}"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    echo "install-firmware-deps: all packages present"
fi

arm-none-eabi-gcc --version | head -n1
qemu-system-arm --version | head -n1
cmake --version | head -n1
if [ "$riscv" -eq 1 ]; then
    riscv64-unknown-elf-gcc --version | head -n1
    qemu-system-riscv32 --version | head -n1
fi
