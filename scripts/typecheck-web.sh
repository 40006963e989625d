#!/usr/bin/env bash
# The JSDoc type check of web/ (tsc --noEmit --checkJs, see jsconfig.json), with the
# TypeScript pinned in package-lock.json. Skipped with a note where node is missing:
# the app itself needs no node, only this check does.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v npm >/dev/null 2>&1; then
  echo "typecheck-web: npm not found, web/ type check skipped" >&2
  exit 0
fi
# A fresh checkout, or a lock file newer than the install: install the pinned tsc.
if [ ! -x node_modules/.bin/tsc ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --silent --no-audit --no-fund
fi
# The page code (dom) and the service worker (webworker) have different globals.
node_modules/.bin/tsc -p jsconfig.json
node_modules/.bin/tsc -p jsconfig.sw.json
echo "typecheck-web: web/ passes tsc --checkJs (strict)"
