import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopEvent, Reporter } from '../../src/index.ts';
import { runLoopIn } from '../helpers/library-loop.ts';
import { fakeConfig, makeWorkspace, removeWhenDone, runRalph } from '../helpers/workspace.ts';

/** The same two-iteration run, with notifications to a file: what both sides run. */
const FILES = {
  'PROMPT.md': 'build it\n',
  'ralph.yml': `${fakeConfig({ max_iterations: 5 })}notify:\n  command: 'cat >> notified.jsonl'\n  on: [stopped]\n`,
  'fake-agent.yml': [
    'turns:',
    '  - when: { iteration: 2 }',
    '    do:',
    '      - result: { text: "done\\nLOOP_COMPLETE", cost_usd: 0.01 }',
    '  - do: [{ print: "step {{iteration}}" }]',
  ].join('\n'),
};

/** Each side's own registry and diagnostics switched on: every default reporter writes something. */
function envFor(): NodeJS.ProcessEnv {
  const state = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-test-registry-')));
  return { ...process.env, XDG_STATE_HOME: state, RALPH_DIAGNOSTICS: '1', NO_COLOR: '1' };
}

/** The files under `.ralph/`, with run ids and time stamps made comparable. */
function ralphFiles(dir: string, runId: string): string[] {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((name) => {
      const p = join(d, name);
      return statSync(p).isDirectory() ? walk(p) : [relative(dir, p)];
    });
  return walk(join(dir, '.ralph'))
    .map((p) =>
      p.replaceAll(runId, '<run>').replace(/\d{8}-\d{6}|\d{4}-\d{2}-\d{2}(T\d{2}-\d{2}-\d{2})?/g, '<ts>'),
    )
    .sort();
}

const lines = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n');
const streamKinds = (dir: string, runId: string) =>
  lines(join(dir, '.ralph', 'runs', runId, 'stream.jsonl')).map(
    (l) => (JSON.parse(l) as { event: LoopEvent }).event.type,
  );
const registry = (env: NodeJS.ProcessEnv) =>
  lines(join(env.XDG_STATE_HOME as string, 'ralph', 'runs.jsonl')).map((l) => JSON.parse(l).status as string);
/** The run log's own lines (headers, results, Ralph's notes): no durations, stamps or ids. */
const logShape = (file: string) =>
  lines(file)
    .filter((l) => /^(#|Iteration:|Mode:|Result:|\[ralph)/.test(l))
    // The run id first: an all-digit random suffix would otherwise let the number pattern run on
    // through the space and eat the `·` after it (a CI run failed on exactly that once).
    .map((l) => l.replace(/\d{8}-\d{6}-[0-9a-f]{6}/g, 'RUN').replace(/\d[\d:. -]*\S*/g, 'N'));

describe('runLoop with the default reporters', () => {
  it('writes the .ralph files `ralph run` writes, and calls the caller’s reporters on top', async () => {
    const cliDir = makeWorkspace(FILES);
    const cliEnv = envFor();
    const cli = await runRalph(['run', '--no-tui'], cliDir, cliEnv);
    expect(cli.code).toBe(0);
    const cliRun = JSON.parse(readFileSync(join(cliDir, '.ralph', 'state.json'), 'utf8')).run_id as string;

    const libDir = makeWorkspace(FILES);
    const libEnv = envFor();
    const seen: LoopEvent['type'][] = [];
    let closed = 0;
    const mine: Reporter = {
      onEvent: (e) => seen.push(e.type),
      close: () => {
        closed++;
      },
    };
    const result = await runLoopIn(libDir, {
      prompt: FILES['PROMPT.md'],
      env: libEnv,
      reporters: [mine],
    });
    expect(result.exitCode).toBe(0);
    const libRun = result.runId;

    expect(ralphFiles(libDir, libRun)).toEqual(ralphFiles(cliDir, cliRun));
    expect(ralphFiles(libDir, libRun)).toEqual(
      expect.arrayContaining([
        '.ralph/runs/<run>/stream.jsonl',
        '.ralph/runs/<run>/iterations.jsonl',
        '.ralph/logs/<ts>_001.log',
        '.ralph/diagnostics/<ts>/trace.jsonl',
      ]),
    );
    expect(streamKinds(libDir, libRun)).toEqual(streamKinds(cliDir, cliRun));
    expect(logShape(result.logFile)).toEqual(
      logShape(join(cliDir, JSON.parse(readFileSync(join(cliDir, '.ralph', 'state.json'), 'utf8')).log_file)),
    );
    expect(registry(libEnv)).toEqual(['running', 'completed']);
    expect(registry(libEnv)).toEqual(registry(cliEnv));
    expect(lines(join(libDir, 'notified.jsonl')).map((l) => JSON.parse(l).kind)).toEqual(['stopped']);
    expect(lines(join(cliDir, 'notified.jsonl')).map((l) => JSON.parse(l).kind)).toEqual(['stopped']);
    // The caller's reporter saw the whole stream and was closed once, after the run ended.
    expect(seen[0]).toBe('loop.started');
    expect(seen.at(-1)).toBe('loop.finished');
    expect(seen.filter((t) => t === 'iteration.finished')).toHaveLength(2);
    expect(closed).toBe(1);
  });
});
