import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeConfig, makeWorkspace, readState, runRalph } from '../helpers/workspace.ts';

const MB = 1024 * 1024;

/** Bytes under `dir`, recursively. */
function du(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? du(p) : statSync(p).size;
  }
  return n;
}

const workspace = (logs: string, script: string) =>
  makeWorkspace({
    'ralph.yml': `${fakeConfig({ max_iterations: 1 })}logs:\n${logs}`,
    'PROMPT.md': 'build everything\n',
    'fake-agent.yml': script,
  });

describe('a chatty agent', () => {
  it('leaves at most logs.max_output_mb of its output per iteration: head and tail, with a marker saying what was cut', async () => {
    // `seq` prints 4,000,000 numbered lines (~31 MB) in one iteration, between two marked lines.
    const dir = workspace(
      '  max_output_mb: 4\n',
      'turns:\n  - do:\n      - print: "FIRST LINE"\n      - run: "seq 1 4000000"\n      - print: "LAST LINE"\n',
    );
    const r = await runRalph(['run', '-q'], dir);
    expect(r.code, r.stderr).toBe(2);
    const state = readState(dir);
    const log = readFileSync(join(dir, state.log_file), 'utf8');

    // The log: the run's header and footer, and 4 MB of the agent's output.
    expect(Buffer.byteLength(log)).toBeLessThanOrEqual(4 * MB + 8 * 1024);
    const marker = /\n… ([\d.]+) MB of agent output cut here \(logs\.max_output_mb: 4\) …\n/.exec(log);
    expect(marker, 'the cut marker').not.toBeNull();
    const at = marker?.index ?? -1;
    // The head starts with the agent's first lines, the tail ends with its last ones.
    expect(log.indexOf('FIRST LINE\n1\n2\n3\n')).toBeGreaterThan(0);
    expect(log.indexOf('FIRST LINE')).toBeLessThan(at);
    expect(log.indexOf('\n3999999\n4000000\nLAST LINE\n')).toBeGreaterThan(at);
    // The marker says how much is missing: everything but the 4 MB kept (to 0.1 MB).
    let printed = 'FIRST LINE\nLAST LINE\n'.length;
    for (let digits = 1, from = 1; from <= 4_000_000; digits++, from *= 10)
      printed += (Math.min(4_000_000, from * 10 - 1) - from + 1) * (digits + 1);
    expect(Number(marker?.[1])).toBeCloseTo((printed - 4 * MB) / MB, 1);
    // Whole lines on either side of the cut.
    const before = log.slice(0, at).split('\n').at(-1) ?? '';
    expect(before).toMatch(/^\d+$/);
    const [after, next] = log.slice(at + (marker?.[0].length ?? 0)).split('\n');
    expect(Number(next)).toBe(Number(after) + 1);

    // Everything else Ralph keeps of the iteration is small: the stream file holds its parsed
    // text (1 MB for the dashboard, cut the same way), not a second copy of the output.
    const stream = readFileSync(join(dir, '.ralph', 'runs', state.run_id, 'stream.jsonl'), 'utf8');
    // (Its newlines are JSON-escaped: 2 bytes each, an eighth of these short lines.)
    expect(Buffer.byteLength(stream)).toBeLessThanOrEqual(1.25 * MB);
    expect(stream).toContain('LAST LINE');
    expect(stream).toMatch(
      /MB of agent output cut here \(1 MB shown per iteration; ralph logs has up to logs\.max_output_mb: 4\)/,
    );
    expect(du(join(dir, '.ralph'))).toBeLessThanOrEqual(5.25 * MB + 64 * 1024);

    // `ralph logs` shows it as it is.
    const logs = await runRalph(['logs'], dir);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toBe(log);
  });

  it('a gate printing ~31 MB leaves at most logs.max_output_mb in the run log, and its record says the rest was cut', async () => {
    const dir = makeWorkspace({
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}logs:\n  max_output_mb: 1\ngates:\n  tests:\n    command: "echo FIRST GATE LINE; seq 1 4000000; echo LAST GATE LINE; exit 1"\n    report_file: test-report.md\n`,
      'PROMPT.md': 'build everything\n',
      'fake-agent.yml': 'turns:\n  - do:\n      - print: "working"\n',
    });
    const r = await runRalph(['run', '-q'], dir);
    expect(r.code, r.stderr).toBe(2);
    const log = readFileSync(join(dir, readState(dir).log_file), 'utf8');
    expect(Buffer.byteLength(log)).toBeLessThanOrEqual(1 * MB + 16 * 1024);
    const at = log.search(/\n… [\d.]+ MB of tests output cut here \(logs\.max_output_mb: 1\) …\n/);
    expect(at, 'the cut marker').toBeGreaterThan(0);
    expect(log.indexOf('FIRST GATE LINE\n1\n2\n')).toBeLessThan(at);
    expect(log.indexOf('\n4000000\nLAST GATE LINE\n')).toBeGreaterThan(at);
    // The report (what the record and the next prompt carry) is the tail, and says so.
    const report = readFileSync(join(dir, 'test-report.md'), 'utf8');
    expect(report).toContain('… earlier output cut (Ralph keeps the last 16 KB of each stream) …');
    expect(report).toContain('LAST GATE LINE');
    expect(report.length).toBeLessThan(20 * 1024);
  });

  it('logs.keep_runs keeps the newest run directories and the current one, and touches nothing outside .ralph/runs', async () => {
    const dir = workspace('  keep_runs: 2\n', 'turns:\n  - do:\n      - print: "working"\n');
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), "not Ralph's\n");
    const ids: string[] = [];
    for (let run = 0; run < 3; run++) {
      const r = await runRalph(['run', '-q', ...(run > 0 ? ['--fresh'] : [])], dir);
      expect(r.code, r.stderr).toBe(2);
      ids.push(readState(dir).run_id);
      // A link in runs/ to a directory elsewhere is not a run directory.
      if (run === 0) symlinkSync(outside, join(dir, '.ralph', 'runs', 'link'));
    }
    const runs = join(dir, '.ralph', 'runs');
    expect(readdirSync(runs).sort()).toEqual([ids[1], ids[2], 'link'].sort());
    expect(existsSync(join(runs, ids[2] as string, 'iterations.jsonl'))).toBe(true);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe("not Ralph's\n");
    // The logs stay: `ralph logs` still shows the first run.
    const first = await runRalph(['logs', ids[0] as string], dir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('working');
  });

  it('logs.keep_logs keeps the newest run logs and the current one, and touches nothing but .log files in .ralph/logs', async () => {
    const dir = workspace('  keep_logs: 2\n', 'turns:\n  - do:\n      - print: "working"\n');
    const logsDir = join(dir, '.ralph', 'logs');
    const logs: string[] = [];
    for (let run = 0; run < 3; run++) {
      const r = await runRalph(['run', ...(run > 0 ? ['--fresh'] : [])], dir);
      expect(r.code, r.stderr).toBe(2);
      logs.push(readState(dir).log_file.split('/').at(-1));
      if (run === 0) writeFileSync(join(logsDir, 'notes.txt'), 'mine\n');
      if (run === 3)
        expect(r.stderr + r.stdout).toContain(
          'deleted the 1 oldest run log(s) under .ralph/logs (logs.keep_logs: 2)',
        );
    }
    expect(new Set(logs).size).toBe(3);
    expect(readdirSync(logsDir).sort()).toEqual([logs[1], logs[2], 'notes.txt'].sort());
    expect(readFileSync(join(logsDir, logs[2] as string), 'utf8')).toContain('working');
  });
});
