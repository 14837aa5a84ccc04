#!/usr/bin/env bash
# Installs Ralph the way a user does — `npm pack`, then `npm install -g` of the tarball into a
# temporary prefix — and runs the installed `ralph`: --version, --help and the demo. Catches a
# wrong `bin` path, files missing from the package and runtime imports of dev dependencies.
# Then a second, lean install (`--omit=optional --omit=peer`: no BullMQ, ioredis or msgpackr)
# must still run the demo under the TUI and serve the dashboard, and `ralph fleet` must say what
# to install (exit 1); the packages it names must then make `ralph fleet` work.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
dashboard_pid=
cleanup() {
  [ -z "$dashboard_pid" ] || kill "$dashboard_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check-packed-install: $*" >&2; exit 1; }
for tool in script curl; do
  command -v "$tool" >/dev/null || fail "needs \`$tool\` (util-linux script for the TUI's terminal, curl for the dashboard)"
done
# The fleet's packages (optional peers, and what BullMQ brings) found under a prefix, if any.
fleet_packages() { find "$1/lib/node_modules" -type d \( -name bullmq -o -name ioredis -o -name msgpackr \) -print; }

npm pack --silent --pack-destination "$work" >"$work/pack.txt"
tarball="$work/$(tail -n 1 "$work/pack.txt")"
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB)"

npm install -g --prefix "$work/prefix" --no-audit --no-fund --loglevel=error "$tarball"
ralph="$work/prefix/bin/ralph"
[ -x "$ralph" ] || fail "npm install -g gave no ralph command at $ralph"
# Optional peers: a plain install leaves the fleet's packages out too.
[ -z "$(fleet_packages "$work/prefix")" ] || fail "npm install -g installed the fleet's packages: $(fleet_packages "$work/prefix")"

expected=$(node -p 'require("./package.json").version')
got=$("$ralph" --version)
[ "$got" = "$expected" ] || fail "installed ralph --version printed '$got', expected '$expected'"
"$ralph" --help >/dev/null
# The demo from the installed package: a new user's first command after the install.
(cd "$work" && PATH="$work/prefix/bin:$PATH" "$ralph" demo --dir "$work/demo" >"$work/demo.txt" 2>&1) || {
  cat "$work/demo.txt"; fail "installed ralph demo failed"; }
grep -q 'completed' "$work/demo.txt" || { cat "$work/demo.txt"; fail "installed ralph demo did not complete"; }
# The installed `ralph` is on PATH, so what to try next is `ralph events`, not node and a path.
grep -q "^Try: cd .* && ralph events && ralph hats graph$" "$work/demo.txt" || {
  cat "$work/demo.txt"; fail "installed ralph demo did not suggest \`ralph events\`"; }
# A starter project from the installed package: its templates/ shipped (--no-check: no python3 needed).
"$ralph" new py-pkg "$work/new-pkg" --no-check >"$work/new.txt" 2>&1 || { cat "$work/new.txt"; fail "installed ralph new py-pkg failed"; }
[ -f "$work/new-pkg/src/new_pkg/words.py" ] || { cat "$work/new.txt"; fail "installed ralph new wrote no src/new_pkg/words.py"; }
echo "packed install ok: ralph $got, demo completed, ralph new wrote a project"

# --- The lean install: what a user who never runs the fleet gets. ---
lean="$work/lean"
npm install -g --prefix "$lean" --omit=optional --omit=peer --no-audit --no-fund --loglevel=error "$tarball"
ralph="$lean/bin/ralph"
[ -x "$ralph" ] || fail "the lean install gave no ralph command at $ralph"
[ -z "$(fleet_packages "$lean")" ] || fail "--omit=optional --omit=peer installed the fleet's packages: $(fleet_packages "$lean")"
# Its own user config and state: no fleet.redis of this machine's user, no shared run registry.
export XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" RALPH_REDIS_URL=
lean_path="$lean/bin:$PATH"

# The demo (a real `ralph run`) in a terminal, so the TUI draws it; it quits by itself when done.
# COLUMNS/LINES: the pty `script` opens has no size of its own when this runs without a terminal.
# CI=false: under CI (as .ci/run runs this) Ralph and ink print plain lines instead of the TUI.
(cd "$work" && PATH="$lean_path" COLUMNS=100 LINES=30 CI=false \
  script -qec "'$ralph' demo --dir '$work/lean-demo'" "$work/tui.txt" </dev/null >/dev/null) || {
  tail -c 3000 "$work/tui.txt"; fail "the lean install's demo under the TUI failed"; }
for n in 1 2 3; do
  [ -f "$work/lean-demo/done/item-$n.txt" ] || fail "the lean install's demo left no done/item-$n.txt"
done
# The TUI's panes (the line reporter prints neither title).
screen=$(sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$work/tui.txt")
for pane in 'agent output' 'iterations'; do
  grep -q "$pane" <<<"$screen" || { tail -c 3000 "$work/tui.txt"; fail "the TUI drew no '$pane' pane"; }
done
echo "lean install: the demo ran under the TUI and completed"

# The dashboard on a free loopback port: its URL (with the token) on stderr, then its page.
PATH="$lean_path" "$ralph" dashboard >"$work/dashboard.out" 2>"$work/dashboard.err" &
dashboard_pid=$!
url=
for _ in $(seq 1 100); do
  url=$(sed -n 's/^ralph dashboard: \(http:\/\/127\.0\.0\.1:[0-9]*\/[^ ]*\)$/\1/p' "$work/dashboard.err")
  [ -n "$url" ] && break
  kill -0 "$dashboard_pid" 2>/dev/null || { cat "$work/dashboard.err"; fail "ralph dashboard exited before it served"; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/dashboard.err"; fail "ralph dashboard printed no 127.0.0.1 URL within 10 s"; }
page=$(curl -fsS --max-time 10 -c "$work/cookies" -b "$work/cookies" -L "$url") || fail "GET $url failed"
grep -qi '<html' <<<"$page" || fail "ralph dashboard served no HTML page at $url"
kill "$dashboard_pid"
wait "$dashboard_pid" 2>/dev/null || true
dashboard_pid=
echo "lean install: ralph dashboard served its page on 127.0.0.1"

# ralph fleet without its packages: one line saying what to install, exit 1.
ranges=$(node -p 'const p = require("./package.json").peerDependencies; `bullmq@${p.bullmq} ioredis@${p.ioredis}`')
set +e
PATH="$lean_path" "$ralph" fleet status --redis redis://127.0.0.1:1 >"$work/fleet.out" 2>"$work/fleet.err"
status=$?
set -e
want="ralph: ralph fleet needs bullmq and ioredis, optional packages that are not installed: run \`npm install -g $ranges\`"
[ "$status" -eq 1 ] || { cat "$work/fleet.err"; fail "ralph fleet without its packages exited $status, expected 1"; }
[ "$(cat "$work/fleet.err")" = "$want" ] || {
  cat "$work/fleet.err"; fail "ralph fleet without its packages did not print exactly: $want"; }
# What it says to run, run: ralph fleet then gets as far as Redis (nothing listens on port 1).
npm install -g --prefix "$lean" --no-audit --no-fund --loglevel=error $ranges
set +e
PATH="$lean_path" "$ralph" fleet status --redis redis://127.0.0.1:1 >"$work/fleet.out" 2>"$work/fleet.err"
status=$?
set -e
grep -q '^ralph: cannot reach Redis at redis://127.0.0.1:1' "$work/fleet.err" || {
  cat "$work/fleet.err"; fail "after \`npm install -g $ranges\`, ralph fleet still did not reach for Redis (exit $status)"; }
echo "lean install: ralph fleet says \`npm install -g $ranges\` (exit 1), and that is enough"
echo "packed install checks took ${SECONDS}s"
