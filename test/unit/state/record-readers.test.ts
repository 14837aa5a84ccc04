import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { renderTasks } from '../../../src/cli/agent-tools/tool-render.ts';
import { explainRecord } from '../../../src/cli/inspect/explain-command.ts';
import { metricStatsText } from '../../../src/cli/inspect/metric-stats-text.ts';
import { statsText } from '../../../src/cli/inspect/stats-command.ts';
import { addRecord, emptyRunTotals, metricFamilies } from '../../../src/dashboard/metrics.ts';
import { runLive } from '../../../src/dashboard/pages.ts';
import { renderExposition } from '../../../src/dashboard/prometheus-text.ts';
import type { RunSummary } from '../../../src/dashboard/run-data.ts';
import { damagedQuestionLines, openQuestions } from '../../../src/human/control-files.ts';
import { findSent } from '../../../src/human/telegram/bot-state.ts';
import { aggregateStats } from '../../../src/observe/stats/aggregate-stats.ts';
import { estimateFromHistory } from '../../../src/observe/stats/estimate-run.ts';
import { metricSeries, readMetricAttempts } from '../../../src/observe/stats/metric-series.ts';
import { MAX_EVENT_LINE_CHARS, parseEventLine } from '../../../src/state/events-log.ts';
import { parseJsonl } from '../../../src/state/io/jsonl.ts';
import { ralphPaths } from '../../../src/state/paths.ts';
import { recordLine } from '../../../src/state/records-file.ts';
import { registryLine } from '../../../src/state/run-registry.ts';
import { linesOf, tasksOf } from '../../../src/state/tasks/task-line.ts';
import { iterationRecord, tokens } from '../../helpers/iteration-record.ts';

// Every reader of a JSON-lines file the agent can append to, fed arbitrary lines: it never throws,
// the valid lines still come through in order, and what it accepts its consumers can render.

const dir = mkdtempSync(join(tmpdir(), 'ralph-record-readers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Json = unknown;

/** `value` with the field at `path` replaced by `by` (or removed when `by` is undefined). */
function mutate(value: Json, path: readonly (string | number)[], by: Json): Json {
  if (path.length === 0) return by;
  if (typeof value !== 'object' || value === null) return value;
  const [key, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...value }) as Record<string | number, Json>;
  const next = mutate(copy[key], rest, by);
  if (next === undefined) delete copy[key];
  else copy[key] = next;
  return copy;
}

/** Every path to a value inside `value` (objects and arrays), the root excluded. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const p = [...prefix, Array.isArray(value) ? Number(k) : k];
    return [p, ...pathsOf(v, p)];
  });
}

/** A valid line from `sample` with one field (at any depth) replaced by any JSON value or removed. */
function nearMiss(sample: Json): fc.Arbitrary<string> {
  const paths = pathsOf(sample);
  return fc
    .tuple(fc.constantFrom(...paths), fc.option(fc.jsonValue(), { nil: undefined }))
    .map(([path, by]) => JSON.stringify(mutate(sample, path, by)));
}

/** Lines of every kind: JSON values, near misses of `sample`, any text (torn, binary). */
const damagedLine = (sample: Json): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      nearMiss(sample),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('{"iteration":2}', '{"id":"x"', '\u0000\u00ff', '1e999', '[null]'),
    )
    .filter((l) => !l.includes('\n'));

/** Valid lines among damaged ones, in order: each `true` picks the next valid line. */
function interleave(valid: string[], damaged: string[], picks: boolean[]): string {
  const out: string[] = [];
  let v = 0;
  let d = 0;
  for (const takeValid of picks) {
    if (takeValid && v < valid.length) out.push(valid[v++] as string);
    else if (d < damaged.length) out.push(damaged[d++] as string);
  }
  out.push(...valid.slice(v));
  return `${out.join('\n')}\n`;
}

/** `part` appears in `whole` in order (deep equality), other items between. */
function isSubsequence(part: readonly unknown[], whole: readonly unknown[]): boolean {
  let i = 0;
  for (const item of whole) if (i < part.length && isDeepStrictEqual(item, part[i])) i++;
  return i === part.length;
}

const RICH_RECORD = iterationRecord({
  iteration: 1,
  hat: 'builder',
  tokens: tokens(10),
  cost_usd: 0.25,
  events: ['build.done'],
  files_changed: ['a.ts'],
  gates: {
    tests: {
      command: 'npm test',
      passed: true,
      exit_code: 0,
      timed_out: false,
      duration_ms: 5,
      scope: 'affected',
      files: ['a.ts'],
    },
  },
  decision: {
    route: { hat: 'builder', backend: 'fake', triggered_by: ['task.start'] },
    completion: { accepted: false, reasons: ['open tasks'] },
    gates: { tests: true },
    limits: {
      iterations: { used: 1, max: 10 },
      runtime_ms: { used: 5, max: null },
      cost_usd: { used: 0.25, max: 1 },
      tokens: { used: 10, max: null },
      consecutive_failures: { used: 0, max: 3 },
    },
    stop: null,
  },
  repos: [{ name: 'api', path: '../api', files: ['x'], commit: null, gates: {} }],
  approvals: [{ point: 'before_commit', id: 'q-1', answer: 'approve', by: 'cli' }],
});

const SUMMARY: RunSummary = {
  key: 'k',
  workspace: '/w',
  runId: 'run-1',
  group: 'stopped',
  detail: '',
  alive: false,
  state: undefined,
  updatedAt: '2024-01-02T03:04:06.000Z',
  entry: {
    workspace: '/w',
    run_id: 'run-1',
    pid: 1,
    started_at: '2024-01-02T03:04:05.000Z',
    updated_at: '2024-01-02T03:04:06.000Z',
    status: 'stopped',
    stop_reason: null,
  },
};

describe('iterations.jsonl: the one record schema and every reader of records', () => {
  it('never throws, keeps every valid record in order, and whatever it accepts every reader renders', () => {
    const valid = fc
      .array(fc.nat({ max: 50 }), { maxLength: 4 })
      .map((ns) => ns.map((n, i) => ({ ...RICH_RECORD, iteration: i + 1, duration_ms: n })));
    fc.assert(
      fc.property(
        valid,
        fc.array(damagedLine(RICH_RECORD), { maxLength: 8 }),
        fc.array(fc.boolean()),
        (good, bad, picks) => {
          const read = parseJsonl(
            interleave(
              good.map((r) => JSON.stringify(r)),
              bad,
              picks,
            ),
            recordLine,
          );
          expect(isSubsequence(good, read.records), JSON.stringify(bad)).toBe(true);
          const records = read.records;
          for (const r of records) explainRecord(r);
          const run = { workspace: '/w', run_id: 'run-1', records, stop_reason: 'completed' };
          statsText(aggregateStats({ workspaces: ['/w'], runs: [run], tasks: [] }));
          if (records.length > 0) estimateFromHistory([run], { max_iterations: 10, max_cost_usd: 1 });
          const totals = emptyRunTotals();
          for (const r of records) addRecord(totals, r);
          renderExposition(
            metricFamilies({
              version: '0',
              node: 'v20',
              workspaces: [{ workspace: '/w', group: 'stopped', updatedAt: 0, totals, stops: {} }],
            }),
          );
          runLive(SUMMARY, records, [], [], read.items.some((i) => !i.ok) ? 'skipped' : undefined);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('rejects the lines the corpus names: a bare iteration, wrong types, huge numbers, nulls', () => {
    const good = JSON.stringify(RICH_RECORD);
    for (const line of [
      '{"iteration":2}',
      JSON.stringify({ ...RICH_RECORD, tokens: null }),
      good.replace('"iteration":1,', '"iteration":1e999,'),
      good.replace('"duration_ms":1000,', '"duration_ms":-1e999,'),
      JSON.stringify({ ...RICH_RECORD, duration_ms: '5' }),
      JSON.stringify({ ...RICH_RECORD, decision: { ...RICH_RECORD.decision, limits: null } }),
      JSON.stringify({ ...RICH_RECORD, repos: [null] }),
      good.slice(0, -3),
    ])
      expect('error' in recordLine(line), line).toBe(true);
    expect(recordLine(good)).toEqual({ value: RICH_RECORD });
  });
});

describe('the other files the agent can append to', () => {
  it('the run registry: never throws, valid entries kept, accepted entries sort by updated_at', () => {
    const sample = SUMMARY.entry;
    fc.assert(
      fc.property(fc.array(damagedLine(sample), { maxLength: 8 }), fc.array(fc.boolean()), (bad, picks) => {
        const read = parseJsonl(interleave([JSON.stringify(sample)], bad, picks), registryLine);
        expect(read.records).toContainEqual(sample);
        read.records.sort(
          (a, b) => b.updated_at.localeCompare(a.updated_at) || a.workspace.localeCompare(b.workspace),
        );
        for (const e of read.records) expect(Number.isInteger(e.pid)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('questions.jsonl: never throws, the open question stays open, options are a list', () => {
    const sample = {
      id: 'q-good',
      ts: 'now',
      kind: 'question',
      text: 'Ship it?',
      options: ['yes', 'no'],
      run_id: null,
      iteration: 1,
    };
    const file = join(dir, 'questions.jsonl');
    fc.assert(
      fc.property(fc.array(damagedLine(sample), { maxLength: 6 }), fc.array(fc.boolean()), (bad, picks) => {
        // Only lines for other ids: an answer to q-good would rightly close it.
        const others = bad.filter((l) => !l.includes('q-good'));
        writeFileSync(file, interleave([JSON.stringify(sample)], others, picks));
        const open = openQuestions(file);
        expect(open.map((q) => q.id)).toContain('q-good');
        for (const q of open) `${q.id} ${q.kind}: ${q.text}${q.options ? q.options.join(' | ') : ''}`;
        damagedQuestionLines(file);
      }),
      { numRuns: 150 },
    );
  });

  it('tasks.jsonl: never throws, valid tasks kept, and every task it reads renders', () => {
    const sample = {
      id: 'task-0001',
      title: 'Do it',
      status: 'open',
      priority: 2,
      blocked_by: [],
      created: 'now',
    };
    fc.assert(
      fc.property(fc.array(damagedLine(sample), { maxLength: 8 }), fc.array(fc.boolean()), (bad, picks) => {
        const others = bad.filter((l) => !l.includes('task-0001'));
        const tasks = tasksOf(linesOf(interleave([JSON.stringify(sample)], others, picks)));
        expect(tasks.map((t) => t.id)).toContain('task-0001');
        renderTasks(tasks, 'table', 'none');
        renderTasks(tasks, 'json', 'none');
      }),
      { numRuns: 300 },
    );
  });

  it('the events file: never throws, valid events kept', () => {
    const sample = {
      topic: 'work.done',
      payload: { a: 1 },
      ts: 'now',
      iteration: 1,
      hat: 'builder',
      source: 'agent',
    };
    fc.assert(
      fc.property(fc.array(damagedLine(sample), { maxLength: 8 }), (bad) => {
        for (const line of bad) parseEventLine(line);
        expect(parseEventLine(JSON.stringify(sample))).toMatchObject({ event: { topic: 'work.done' } });
      }),
      { numRuns: 300 },
    );
  });

  it('the events file: a line nested deeper than 64 levels or longer than its bound is a damaged line', () => {
    const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(parseEventLine(`{"topic":"a.b","payload":${nest(63)}}`)).toMatchObject({
      event: { topic: 'a.b' },
    });
    expect(parseEventLine(`{"topic":"a.b","payload":${nest(64)}}`)).toEqual({
      error: 'nested deeper than 64 levels',
    });
    expect(parseEventLine(`{"topic":"a.b","payload":${nest(200_000)}}`)).toEqual({
      error: 'nested deeper than 64 levels',
    });
    const big = JSON.stringify({ topic: 'a.b', payload: 'x'.repeat(MAX_EVENT_LINE_CHARS) });
    expect(parseEventLine(big)).toEqual({ error: `longer than ${MAX_EVENT_LINE_CHARS} characters` });
  });

  it('the metric attempts file: never throws, valid attempts kept and charted', () => {
    const ws = join(dir, 'metric-ws');
    const file = ralphPaths(ws).metricAttempts;
    mkdirSync(join(file, '..'), { recursive: true });
    const base = {
      run_id: 'r',
      at: '2024-01-02T03:04:05.000Z',
      iteration: 0,
      kept: true,
      verdict: 'baseline',
      value: 10,
      values: [10],
      spread: 0,
      direction: 'min',
      metric: 'ms',
    };
    const next = {
      ...base,
      iteration: 1,
      verdict: 'improved',
      value: 8,
      values: [8],
      idea: 'cache',
      commit: 'abc',
    };
    fc.assert(
      fc.property(fc.array(damagedLine(next), { maxLength: 6 }), fc.array(fc.boolean()), (bad, picks) => {
        writeFileSync(file, interleave([JSON.stringify(base), JSON.stringify(next)], bad, picks));
        const attempts = readMetricAttempts(ws);
        expect(
          attempts.lines.filter((l) => l.run_id === 'r' && l.at === base.at).length,
        ).toBeGreaterThanOrEqual(2);
        metricStatsText(metricSeries([attempts]), false, false, 80);
      }),
      { numRuns: 150 },
    );
  });

  it("the Telegram bot's messages.jsonl: never throws, the message a loop sent is found", () => {
    const bot = join(dir, 'bot');
    mkdirSync(bot, { recursive: true });
    const sample = { message_id: 42, run_id: 'r', workspace: '/w', question_id: 'q-1' };
    fc.assert(
      fc.property(fc.array(damagedLine(sample), { maxLength: 6 }), fc.array(fc.boolean()), (bad, picks) => {
        const others = bad.filter((l) => !l.includes('42'));
        writeFileSync(join(bot, 'messages.jsonl'), interleave([JSON.stringify(sample)], others, picks));
        expect(findSent(bot, 42)).toEqual(sample);
        findSent(bot, 7);
      }),
      { numRuns: 150 },
    );
  });
});
