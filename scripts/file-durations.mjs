#!/usr/bin/env node
// Writes test/setup/file-durations.json, the table the test sequencer (test/setup/longest-first.ts)
// starts files by, from a full run's report: `npx vitest run --reporter=json --outputFile=r.json`,
// then `node scripts/file-durations.mjs r.json`. A file run by two projects keeps its longer time.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reportPath = process.argv[2];
if (!reportPath) {
  process.stderr.write('usage: node scripts/file-durations.mjs <vitest json report>\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const seconds = {};
for (const file of report.testResults) {
  const path = relative(root, file.name).split(sep).join('/');
  if (path.startsWith('test/unit/') || path.startsWith('test/cli/')) continue;
  const s = Math.round((file.endTime - file.startTime) / 100) / 10;
  seconds[path] = Math.max(seconds[path] ?? 0, s);
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
const out = join(root, 'test', 'setup', 'file-durations.json');
writeFileSync(out, `${JSON.stringify({ seconds: sorted }, null, 2)}\n`);
process.stdout.write(`${Object.keys(sorted).length} files -> ${relative(root, out)}\n`);
