#!/usr/bin/env bash
# Builds the per-screen bundles of web/ (esbuild, pinned in package-lock.json)
# into build/web/ (or $1) with their manifest: see scripts/build-web.mjs. The
# server uses them while they match web/, else serves web/'s modules as they
# are and logs why (server/http/assets.py).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v npm >/dev/null 2>&1 || { echo "build-web: npm not found (scripts/bootstrap.sh installs it)" >&2; exit 1; }
# A fresh checkout, or a lock file newer than the install: install the pinned tools.
# package.json's dependencies alone (esbuild, and @noble/hashes, which the fair
# dice checks bundle for plain-http pages) unless WEB_DEV_TOOLS=1 (make test):
# `make run` and the image need no type checker and no axe-core.
if [ ! -x node_modules/.bin/esbuild ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  if [ "${WEB_DEV_TOOLS:-0}" = 1 ]; then
    npm ci --silent --no-audit --no-fund
  else
    npm ci --omit=dev --silent --no-audit --no-fund
  fi
fi
node scripts/build-web.mjs "$@"
