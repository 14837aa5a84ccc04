#!/bin/sh
# The benchmark Ralph measures after every iteration (metric.command in ralph.yml): it runs the
# command below once and prints `time: N ms`, the line metric.pattern reads.
# Put what you want faster in BENCH (a script, a build, a test file); it must not change files.
BENCH=${BENCH:-"node -e 0"}
node -e '
const { execSync } = require("node:child_process");
const start = process.hrtime.bigint();
execSync(process.argv[1], { stdio: ["ignore", "ignore", "inherit"] });
console.log(`time: ${Number(process.hrtime.bigint() - start) / 1e6} ms`);
' "$BENCH"
