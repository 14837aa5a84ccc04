import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../src/observe/events.ts';
import { createRegistryReporter } from '../../../src/observe/reporters/registry-reporter.ts';
import {
  pruneRegistry,
  type RegistryEntry,
  readRegistry,
  readRegistryLines,
  registryFile,
  workspaceGone,
} from '../../../src/state/run-registry.ts';
import { removeWhenDone } from '../../helpers/workspace.ts';

const home = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-registry-')));

const entry = (workspace: string, status: string, pid: number, at: number): RegistryEntry => ({
  workspace,
  run_id: `r-${at}`,
  pid,
  started_at: new Date(at).toISOString(),
  updated_at: new Date(at).toISOString(),
  status,
  stop_reason: null,
});

describe('workspaceGone', () => {
  it('a run is gone only when its directory is, and never while its loop still runs', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('running', 'completed', 'stopped'),
        (exists, alive, status) => {
          const gone = workspaceGone(entry('/w', status, 42, 0), {
            exists: () => exists,
            alive: () => alive,
          });
          expect(gone).toBe(!exists && !(status === 'running' && alive));
        },
      ),
    );
  });
});

describe('pruneRegistry', () => {
  it('drops every line of the gone workspaces and damaged lines, keeps every other line in order', () => {
    const workspace = fc.record({
      name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      exists: fc.boolean(),
      alive: fc.boolean(),
    });
    const line = fc.oneof(
      { weight: 5, arbitrary: fc.tuple(workspace, fc.constantFrom('running', 'completed', 'stopped')) },
      { weight: 1, arbitrary: fc.constantFrom('{"torn":', 'not json', '{"workspace":1}') },
    );
    let run = 0;
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
        const dir = join(home, String(run++));
        const env = { XDG_STATE_HOME: dir };
        // One answer per workspace (the first line's), as a real directory and pid would give.
        const facts = new Map<string, { exists: boolean; alive: boolean }>();
        const text = lines.map((l, i) => {
          if (typeof l === 'string') return l;
          const [w, status] = l;
          if (!facts.has(w.name)) facts.set(w.name, w);
          return JSON.stringify(entry(w.name, status, 100 + i, i));
        });
        mkdirSync(join(dir, 'ralph'), { recursive: true });
        writeFileSync(registryFile(env), text.map((t) => `${t}\n`).join(''));
        const before = readRegistry(env);
        const probe = {
          exists: (p: string) => facts.get(p)?.exists ?? false,
          alive: (pid: number) =>
            facts.get(before.find((e) => e.pid === pid)?.workspace ?? '')?.alive ?? false,
        };
        const gone = new Set(before.filter((e) => workspaceGone(e, probe)).map((e) => e.workspace));
        const result = pruneRegistry(env, probe);
        const expected = text.filter((_line, i) => {
          const l = lines[i];
          return typeof l !== 'string' && !gone.has(l?.[0].name ?? '');
        });
        const after = readFileSync(registryFile(env), 'utf8').split('\n').filter(Boolean);
        expect(after).toEqual(expected);
        expect(result.pruned.map((e) => e.workspace).sort()).toEqual([...gone].sort());
        expect(result.kept).toBe(before.length - gone.size);
        expect(result.damaged).toBe(lines.filter((l) => typeof l === 'string').length);
        // What readers see of the kept runs does not change.
        expect(readRegistry(env)).toEqual(before.filter((e) => !gone.has(e.workspace)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('the registry reporter', () => {
  const started = {
    type: 'loop.started',
    runId: 'r-1',
    resumed: false,
    workspace: '/w',
    backend: 'custom',
    maxIterations: 1,
    branch: undefined,
    logFile: '/w/log',
    at: 0,
  } as unknown as LoopEvent;

  /** A registry reporter on a registry of its own; `status` is what the run's entry says now. */
  function registryReporter() {
    const env = { XDG_STATE_HOME: removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-registry-'))) };
    const run = { status: 'running' };
    const reporter = createRegistryReporter({
      env,
      entry: () => entry('/w', run.status, 1, 1),
      onWait: () => {},
    });
    return { reporter, run, statuses: () => readRegistryLines(env).map((e) => e.status) };
  }
  const nextTurn = () => new Promise((done) => setImmediate(done));

  it('writes the start line a turn after loop.started (not inside it), the end line at close', async () => {
    const { reporter, run, statuses } = registryReporter();
    reporter.onEvent(started);
    expect(statuses()).toEqual([]);
    await nextTurn();
    expect(statuses()).toEqual(['running']);
    run.status = 'completed';
    await reporter.close?.();
    expect(statuses()).toEqual(['running', 'completed']);
  });

  it('a run that ends before that turn still gets its start line, first', async () => {
    const { reporter, run, statuses } = registryReporter();
    reporter.onEvent(started);
    run.status = 'stopped';
    await reporter.close?.();
    await nextTurn();
    expect(statuses()).toEqual(['stopped', 'stopped']);
  });
});
