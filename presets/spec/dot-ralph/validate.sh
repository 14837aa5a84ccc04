#!/usr/bin/env bash
# .ralph/validate.sh: the quality gate Ralph runs after every iteration (when this file is executable).
# Exit 0 = passed, the loop continues. Any other exit is FATAL: the loop stops for a human to look.
#
# TAILOR THIS to your project. As shipped it only runs the test suites it can detect, and it passes
# when there are none. Typical additions:
#   npm run lint
#   npm run build
#   ruff check .
# Keep it fast and deterministic: a flaky check stops the loop, and a slow one delays every iteration.
set -euo pipefail
cd "$(dirname "$0")/.."

ran=0
run() {
  echo "validate: $*"
  "$@"
  ran=1
}
skip() { echo "validate: $1 (skipped)" >&2; }
has() { command -v "$1" >/dev/null 2>&1; }

# Node: `npm test` when package.json defines a real test script (not npm's placeholder).
if [ -f package.json ]; then
  if has node && node -e 'const t=(require("./package.json").scripts||{}).test;process.exit(t&&!/no test specified/.test(t)?0:1)'; then
    if has npm; then run npm test --silent; else skip "package.json has a test script but npm is not installed"; fi
  fi
fi

# Make: `make test` when a Makefile has a test target.
for makefile in GNUmakefile makefile Makefile; do
  if [ -f "$makefile" ]; then
    if grep -Eq '^test[[:space:]]*:([^=]|$)' "$makefile"; then
      if has make; then run make test; else skip "$makefile has a test target but make is not installed"; fi
    fi
    break
  fi
done

# Python: pytest when the project configures it.
if [ -f pytest.ini ] || [ -f conftest.py ] || { [ -f pyproject.toml ] && grep -q '^\[tool\.pytest' pyproject.toml; } ||
  { [ -f setup.cfg ] && grep -q '^\[tool:pytest\]' setup.cfg; } || { [ -f tox.ini ] && grep -q '^\[pytest\]' tox.ini; }; then
  if has pytest; then run pytest -q
  elif has python3 && python3 -c 'import pytest' 2>/dev/null; then run python3 -m pytest -q
  else skip "pytest is configured but not installed"; fi
fi

# Rust and Go.
if [ -f Cargo.toml ]; then
  if has cargo; then run cargo test --quiet; else skip "Cargo.toml found but cargo is not installed"; fi
fi
if [ -f go.mod ]; then
  if has go; then run go test ./...; else skip "go.mod found but go is not installed"; fi
fi

if [ "$ran" -eq 0 ]; then
  echo "validate: no checks configured (edit .ralph/validate.sh to add some)"
else
  echo "validate: all checks passed"
fi
