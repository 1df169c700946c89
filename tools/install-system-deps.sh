#!/usr/bin/env bash
# System packages the tests need: Debian's headless Chromium and its driver (the browser tests
# of `bawo serve`; a browser an installer downloads by itself cannot be fetched everywhere),
# tmux (tests/test_tmux.py: the terminal commands in a real terminal), and the ARM toolchain
# with cmake that `bawo build-uf2` builds the Pico's image with (the emulated-Pico tests boot it),
# and PostgreSQL's server (tests/_club_pg.py starts one for the `bawo club` tests).
# Idempotent: nothing to do when all are installed. Needs root or sudo only when it installs.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v make >/dev/null 2>&1 || need+=(make)
command -v c++ >/dev/null 2>&1 || need+=(g++)
command -v arm-none-eabi-gcc >/dev/null 2>&1 || need+=(gcc-arm-none-eabi)
[ -e /usr/lib/arm-none-eabi/newlib/libc.a ] || [ -e /usr/lib/arm-none-eabi/lib/libc.a ] \
    || need+=(libnewlib-arm-none-eabi)
# pico-sdk compiles one C++ file (new/delete): it needs newlib's C++ headers.
compgen -G "/usr/include/newlib/c++/*/cstdlib" >/dev/null || need+=(libstdc++-arm-none-eabi-newlib)
if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    SUDO="sudo"
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-system-deps: no apt-get here: install these (Debian names) yourself: ${need[*]}" >&2
    exit 1
fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${need[@]}"
