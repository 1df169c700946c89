#!/usr/bin/env bash
# System packages the tests need: Debian's headless Chromium and its driver (the browser tests
# of `bawo serve`; a browser an installer downloads by itself cannot be fetched everywhere),
# and tmux (tests/test_tmux.py: the terminal commands in a real terminal).
# Idempotent: nothing to do when both are installed. Needs root or sudo only when it installs.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 \
        && command -v tmux >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    SUDO="sudo"
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-system-deps: no apt-get here: install Chromium, chromedriver and tmux (chromium, chromium-driver, tmux on Debian) yourself" >&2
    exit 1
fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium chromium-driver tmux
