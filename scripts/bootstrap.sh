#!/usr/bin/env bash
# Installs what Tablemate needs on a fresh Debian machine, idempotently:
#   bootstrap.sh run   -> the Python environment only (the app needs no Redis)
#   bootstrap.sh test  -> also redis-server and Debian's chromium (as root)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-run}"
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"

apt_install() {
  local missing=()
  for pair in "$@"; do
    local bin="${pair%%:*}" pkg="${pair##*:}"
    command -v "$bin" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "Missing system packages: ${missing[*]} (run as root or install them)." >&2
    return 1
  fi
  echo "Installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

if [ "$mode" = "test" ]; then
  # fonts-noto-cjk: Korean text in browser screenshots renders as glyphs, not boxes.
  apt_install redis-server:redis-server chromium:chromium
  if [ "$(id -u)" -eq 0 ] && ! fc-list 2>/dev/null | grep -qi 'noto sans cjk'; then
    apt-get install -y -qq --no-install-recommends fonts-noto-cjk >/dev/null || true
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.installed-$mode"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  "$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
  if [ "$mode" = "test" ]; then
    "$VENV/bin/python" -m pip install -q -e '.[test]'
  else
    "$VENV/bin/python" -m pip install -q -e .
  fi
  touch "$stamp"
fi
