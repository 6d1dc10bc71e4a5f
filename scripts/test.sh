#!/usr/bin/env bash
# Installs what the tests need (when missing) and runs every test.
# Usage: scripts/test.sh            (as root on Debian, missing packages are installed)
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use; installed only when missing and when we can.
packages=()
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing: ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "missing packages (install them first): ${missing[*]}" >&2
        exit 1
    fi
fi

cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
cargo test --all-targets
