#!/usr/bin/env bash
# Installs Ralph the way a user does — `npm pack`, then `npm install -g` of the tarball into a
# temporary prefix — and runs the installed `ralph`: --version, --help and the demo. Catches a
# wrong `bin` path, files missing from the package and runtime imports of dev dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

npm pack --silent --pack-destination "$work" >"$work/pack.txt"
tarball="$work/$(tail -n 1 "$work/pack.txt")"
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB)"

npm install -g --prefix "$work/prefix" --no-audit --no-fund --loglevel=error "$tarball"
ralph="$work/prefix/bin/ralph"
[ -x "$ralph" ] || { echo "npm install -g gave no ralph command at $ralph"; exit 1; }

expected=$(node -p 'require("./package.json").version')
got=$("$ralph" --version)
[ "$got" = "$expected" ] || { echo "installed ralph --version printed '$got', expected '$expected'"; exit 1; }
"$ralph" --help >/dev/null
# The demo from the installed package: a new user's first command after the install.
(cd "$work" && PATH="$work/prefix/bin:$PATH" "$ralph" demo --dir "$work/demo" >"$work/demo.txt" 2>&1) || {
  cat "$work/demo.txt"; echo "installed ralph demo failed"; exit 1; }
grep -q 'completed' "$work/demo.txt" || { cat "$work/demo.txt"; echo "installed ralph demo did not complete"; exit 1; }
# The installed `ralph` is on PATH, so what to try next is `ralph events`, not node and a path.
grep -q "^Try: cd .* && ralph events && ralph hats graph$" "$work/demo.txt" || {
  cat "$work/demo.txt"; echo "installed ralph demo did not suggest \`ralph events\`"; exit 1; }
echo "packed install ok: ralph $got, demo completed"
