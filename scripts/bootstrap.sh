#!/usr/bin/env bash
# Installs what Tablemate needs on a fresh Debian machine, idempotently:
#   bootstrap.sh run   -> the Python environment with the runtime dependencies only
#                         (the app needs no Redis: it falls back to an embedded store),
#                         and node + npm for the web build (scripts/build-web.sh), as root
#   bootstrap.sh test  -> also the test extras and the system packages the tests use
#                         (redis-server and redis-cli, chromium, WebKitGTK's driver and Xvfb, fonts,
#                         node for the web type check), as root
# Prerequisites: Debian (or a derivative), Python 3.11+, make; root for system packages.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-run}"
VENV="${VENV:-.venv}"

say() { echo "bootstrap: $*" >&2; }
die() { say "$*"; exit 1; }

is_root() { [ "$(id -u)" -eq 0 ]; }

# apt-get that waits for another apt/dpkg run (unattended upgrades, a second
# bootstrap) instead of failing at once. DPkg::Lock::Timeout covers dpkg's
# lock; the retry loop covers the package-lists lock of `apt-get update`.
apt_get() {
  local deadline=$(( $(date +%s) + ${APT_LOCK_WAIT:-600} )) err
  err=$(mktemp)
  while true; do
    if DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=60 "$@" 2>"$err" >/dev/null; then
      rm -f "$err"; return 0
    fi
    if grep -qiE 'could not get lock|unable to lock|is another process using it' "$err" \
        && [ "$(date +%s)" -lt "$deadline" ]; then
      say "waiting for another apt run to finish (lock held)..."
      sleep 5
      continue
    fi
    cat "$err" >&2; rm -f "$err"; return 1
  done
}

apt_updated=0
# apt_install ENTRY...: an entry is PACKAGE, or COMMAND:PACKAGE when having the
# command on PATH is enough (installed some other way). Only what is missing.
apt_install() {
  local missing=() entry bin pkg
  for entry in "$@"; do
    bin="${entry%%:*}" pkg="${entry##*:}"
    if [ "$bin" != "$entry" ]; then
      command -v "$bin" >/dev/null 2>&1 && continue
    elif dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      continue
    fi
    missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! is_root; then
    say "missing system packages: ${missing[*]}"
    say "run this as root, or install them first: sudo apt-get install ${missing[*]}"
    return 1
  fi
  command -v apt-get >/dev/null || die "no apt-get here: install ${missing[*]} by hand."
  if [ $apt_updated -eq 0 ]; then
    say "updating package lists..."
    apt_get update -q || die "apt-get update failed (see above)."
    apt_updated=1
  fi
  say "installing system packages: ${missing[*]}"
  apt_get install -y -q --no-install-recommends "${missing[@]}"
}

# --- Python 3.11+ -------------------------------------------------------------
find_python() {
  local c
  for c in "${PYTHON:-}" python3 python3.13 python3.12 python3.11; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 || continue
    if "$c" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$c"; return 0
    fi
  done
  return 1
}
if [ ! -x "$VENV/bin/python" ]; then
  PY=$(find_python) || die "Python 3.11 or newer is required (found: $(python3 --version 2>&1 || echo 'no python3')). On Debian: apt-get install python3."
  # Debian splits venv/ensurepip into python3-venv; without it `-m venv` fails.
  if ! "$PY" -c 'import ensurepip, venv' 2>/dev/null; then
    apt_install python3-venv || die "Python's venv module is missing (Debian package python3-venv)."
  fi
  "$PY" -m venv "$VENV"
fi

# --- system packages for the web build -----------------------------------------
# nodejs + npm: scripts/build-web.sh bundles web/ (esbuild, from package-lock.json)
# before the server starts, in both modes.
apt_install node:nodejs npm:npm || die "could not install node and npm for the web build (see above)."

# --- system packages for the tests ---------------------------------------------
if [ "$mode" = "test" ]; then
  # fonts-noto-cjk: Korean text in browser screenshots renders as glyphs, not boxes.
  # nodejs + npm (above): also the web code's type check (tsc). Debian's chromium is what
  # Playwright drives (its own browser download is not possible here).
  # webkit2gtk-driver: WebKitWebDriver and MiniBrowser, WebKitGTK (Safari's
  # engine) for the e2e/test_webkit.py tests, driven by Selenium under Xvfb.
  # redis-tools: redis-cli joins the test Redis Cluster (conftest.RedisCluster);
  # Debian's redis-server depends on it, named so another redis-server still gets it.
  need=(redis-server:redis-server redis-cli:redis-tools chromium:chromium
        WebKitWebDriver:webkit2gtk-driver xvfb-run:xvfb xauth:xauth)
  apt_install "${need[@]}" || die "could not install the test system packages (see above)."
  # The fonts only change how screenshots look: a failure is reported loudly
  # but does not stop the tests.
  if ! fc-list 2>/dev/null | grep -qi 'noto sans cjk'; then
    apt_install fonts-noto-cjk fontconfig \
      || say "WARNING: fonts-noto-cjk did not install; Korean text in screenshots will show as boxes."
  fi
  # The screens use a few emoji (the winner's 🏆, the dice): without a colour emoji
  # font a screenshot shows a box where a player sees the symbol.
  if ! fc-list 2>/dev/null | grep -qi 'noto color emoji'; then
    apt_install fonts-noto-color-emoji \
      || say "WARNING: fonts-noto-color-emoji did not install; emoji in screenshots will show as boxes."
  fi
fi

# --- the Python environment -----------------------------------------------------
stamp="$VENV/.installed-$mode"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  if [ "$mode" = "test" ]; then
    say "installing Python packages (runtime + test extras) into $VENV..."
    "$VENV/bin/python" -m pip install -q -e '.[test]'
  else
    say "installing Python packages (runtime only) into $VENV..."
    "$VENV/bin/python" -m pip install -q -e .
  fi
  touch "$stamp"
fi
