import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../../src/observe/events.ts';
import { toJsonSafe } from '../../../../src/observe/json-safe.ts';
import { createDiagnosticsSink, diagnosticsStamp } from '../../../../src/observe/reporters/diagnostics.ts';
import { iterationRecord, tokens } from '../../../helpers/iteration-record.ts';
import { removeWhenDone } from '../../../helpers/workspace.ts';

let ws: string;
let clock: number;
const START = new Date(2024, 0, 2, 3, 4, 5).getTime();
const now = () => clock;

beforeEach(() => {
  ws = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-diagnostics-')));
  clock = START;
});

const record = iterationRecord;

const started = (iteration: number, hat: string): LoopEvent => ({
  type: 'iteration.started',
  iteration,
  maxIterations: 10,
  hat,
  backend: 'fake',
  elapsedMs: 0,
  branch: 'main',
  startedAt: clock,
});

function readLines(file: string): Record<string, any>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

const circular: Record<string, unknown> = { item: 'a.txt', big: 10n };
circular.self = circular;
const longPrompt = `Do the work.\n\`\`\`\`\ncode\n\`\`\`\`\n${'x'.repeat(3000)}`;

/** Three iterations: a rejected completion, a failure with a malformed line, an accepted completion. */
function feed(listener: (e: LoopEvent) => void): void {
  const tick = (ms: number) => {
    clock += ms;
  };
  listener({
    type: 'loop.started',
    runId: 'run-1',
    resumed: false,
    workspace: ws,
    backend: 'fake',
    maxIterations: 10,
    branch: 'main',
    logFile: 'x.log',
    at: clock,
  });
  listener({ type: 'notice', level: 'info', message: 'hello' });

  listener(started(1, 'builder'));
  listener({
    type: 'hat.activated',
    iteration: 1,
    hatId: 'builder',
    hatName: 'Builder',
    triggeredBy: ['work.start'],
  });
  listener({
    type: 'prompt.assembled',
    iteration: 1,
    hat: 'builder',
    prompt: longPrompt,
    bytes: 3030,
    scratchpad: '- [ ] item a',
  });
  listener({ type: 'agent.spawned', iteration: 1, pid: 42, command: 'fake-agent' });
  tick(150);
  listener({ type: 'agent.output', iteration: 1, stream: 'stdout', text: 'hello\nwor' });
  listener({ type: 'agent.output', iteration: 1, stream: 'stdout', text: 'ld\n' });
  listener({ type: 'agent.event', iteration: 1, event: { type: 'text', text: 'thinking' } });
  listener({
    type: 'agent.event',
    iteration: 1,
    event: { type: 'tool_call', name: 'Bash', id: 't1', input: { cmd: 'ls' } },
  });
  listener({
    type: 'agent.event',
    iteration: 1,
    event: { type: 'tool_result', id: 't1', output: 'a.txt', isError: false },
  });
  listener({
    type: 'agent.event',
    iteration: 1,
    event: {
      type: 'usage',
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
  });
  listener({
    type: 'agent.event',
    iteration: 1,
    event: { type: 'result', text: 'LOOP_COMPLETE', isError: false, costUsd: 0.01 },
  });
  listener({
    type: 'event.published',
    iteration: 1,
    hat: 'builder',
    topic: 'work.done',
    payload: circular,
    source: 'agent',
  });
  listener({
    type: 'completion.decided',
    iteration: 1,
    accepted: false,
    reasons: ['2 tasks open'],
    persistent: false,
  });
  tick(850);
  listener({
    type: 'iteration.finished',
    record: record({
      iteration: 1,
      hat: 'builder',
      tokens: tokens(15),
      cost_usd: 0.01,
      context_pct: 12.5,
      events: ['work.done'],
    }),
    totals: { costUsd: 0.01, tokens: 15 },
  });
  listener({ type: 'notice', level: 'warn', message: 'scratchpad is large' });

  listener(started(2, 'reviewer'));
  listener({
    type: 'hat.activated',
    iteration: 2,
    hatId: 'reviewer',
    hatName: 'Reviewer',
    triggeredBy: ['work.done'],
  });
  listener({
    type: 'prompt.assembled',
    iteration: 2,
    hat: 'reviewer',
    prompt: 'Review.',
    bytes: 7,
    scratchpad: '',
  });
  listener({ type: 'agent.event', iteration: 2, event: { type: 'error', message: 'rate limited' } });
  listener({ type: 'event.malformed', iteration: 2, line: 'not json', error: 'Unexpected token' });
  tick(500);
  listener({
    type: 'iteration.finished',
    record: record({
      iteration: 2,
      hat: 'reviewer',
      verdict: 'failure',
      reason: 'exit code 1',
      exit_code: 1,
      duration_ms: 500,
    }),
    totals: { costUsd: 0.01, tokens: 15 },
  });
  listener({ type: 'loop.idle', iteration: 2, watch: ['.ralph/events.jsonl'], cooldownMs: 0 });
  listener({ type: 'loop.woke', iteration: 2, reason: 'events file changed' });

  listener(started(3, 'reviewer'));
  listener({
    type: 'prompt.assembled',
    iteration: 3,
    hat: 'reviewer',
    prompt: 'Review again.\n',
    bytes: 14,
    scratchpad: null,
  });
  listener({ type: 'completion.decided', iteration: 3, accepted: true, reasons: [], persistent: false });
  tick(100);
  listener({
    type: 'iteration.finished',
    record: record({ iteration: 3, hat: 'reviewer', verdict: 'complete' }),
    totals: { costUsd: 0.01, tokens: 15 },
  });
  listener({
    type: 'loop.finished',
    runId: 'run-1',
    stopReason: 'completed',
    message: 'completion promise seen',
    exitCode: 0,
    iterations: 3,
    elapsedMs: 1600,
    tokens: tokens(15),
    costUsd: 0.01,
    logFile: 'x.log',
  });
}

describe('createDiagnosticsSink', () => {
  it('writes every diagnostics file from the event stream', () => {
    const sink = createDiagnosticsSink(ws, { now });
    expect(sink.dir).toBe(join(ws, '.ralph', 'diagnostics', '2024-01-02T03-04-05'));
    feed(sink.onEvent);
    sink.close();
    expect(sink.errorCount()).toBe(0);
    expect(readdirSync(sink.dir).sort()).toEqual([
      'agent-output.jsonl',
      'errors.jsonl',
      'orchestration.jsonl',
      'performance.jsonl',
      'prompt-log.md',
      'trace.jsonl',
    ]);

    const agent = readLines(join(sink.dir, 'agent-output.jsonl'));
    expect(agent.map((l) => l.type)).toEqual([
      'text',
      'tool_call',
      'tool_result',
      'usage',
      'result',
      'error',
    ]);
    expect(agent[1]).toMatchObject({ iteration: 1, hat: 'builder', name: 'Bash', input: { cmd: 'ls' } });
    expect(agent[3]).toMatchObject({ usage: { inputTokens: 10, outputTokens: 5 } });
    expect(agent[4]).toMatchObject({ text: 'LOOP_COMPLETE', costUsd: 0.01 });
    expect(agent[5]).toMatchObject({ iteration: 2, hat: 'reviewer', message: 'rate limited' });
    expect(agent[0]!.ts).toBe(new Date(START + 150).toISOString());

    const orch = readLines(join(sink.dir, 'orchestration.jsonl'));
    const names = orch.map((l) => l.event);
    expect(names).toEqual([
      'loop.started',
      'notice',
      'iteration.started',
      'hat.activated',
      'iteration.context',
      'agent.spawned',
      'event.published',
      'completion.decided',
      'iteration.finished',
      'notice',
      'iteration.started',
      'hat.activated',
      'iteration.context',
      'event.malformed',
      'iteration.finished',
      'loop.idle',
      'loop.woke',
      'iteration.started',
      'iteration.context',
      'completion.decided',
      'iteration.finished',
      'loop.terminated',
    ]);
    const byName = (n: string) => orch.filter((l) => l.event === n);
    expect(byName('iteration.started').map((l) => [l.iteration, l.hat])).toEqual([
      [1, 'builder'],
      [2, 'reviewer'],
      [3, 'reviewer'],
    ]);
    expect(byName('hat.activated')[1]).toMatchObject({
      hat: 'reviewer',
      hat_id: 'reviewer',
      hat_name: 'Reviewer',
      triggered_by: ['work.done'],
    });
    expect(byName('iteration.context').map((l) => l.scratchpad)).toEqual(['- [ ] item a', '', null]);
    expect(byName('event.published')[0]).toMatchObject({
      topic: 'work.done',
      source: 'agent',
      payload: { item: 'a.txt', big: '10', self: '[Circular]' },
    });
    expect(byName('completion.decided').map((l) => [l.outcome, l.reasons])).toEqual([
      ['rejected', ['2 tasks open']],
      ['accepted', []],
    ]);
    expect(byName('event.malformed')[0]).toMatchObject({
      iteration: 2,
      line: 'not json',
      error: 'Unexpected token',
    });
    expect(byName('loop.terminated')[0]).toMatchObject({
      stop_reason: 'completed',
      message: 'completion promise seen',
      exit_code: 0,
    });

    const perf = readLines(join(sink.dir, 'performance.jsonl'));
    expect(perf).toHaveLength(3);
    expect(perf[0]).toMatchObject({
      iteration: 1,
      hat: 'builder',
      duration_ms: 1000,
      agent_latency_ms: 150,
      tokens: { total: 15 },
      cost_usd: 0.01,
      context_pct: 12.5,
    });
    expect(perf[1]).toMatchObject({ iteration: 2, hat: 'reviewer', agent_latency_ms: null });

    const trace = readLines(join(sink.dir, 'trace.jsonl'));
    expect(trace.some((l) => l.type === 'agent.output')).toBe(false);
    expect(trace).toHaveLength(names.length + agent.length);
    const prompt = trace.find((l) => l.type === 'prompt.assembled')!;
    expect(prompt).toMatchObject({ iteration: 1, hat: 'builder', bytes: 3030 });
    expect(prompt.prompt.startsWith(longPrompt.slice(0, 2000))).toBe(true);
    expect(prompt.prompt.length).toBeLessThan(2100);

    const errors = readLines(join(sink.dir, 'errors.jsonl'));
    expect(errors.map((l) => l.event)).toEqual([
      'notice',
      'agent.error',
      'event.malformed',
      'iteration.failed',
    ]);
    expect(errors[3]).toMatchObject({
      iteration: 2,
      hat: 'reviewer',
      reason: 'exit code 1',
      exit_code: 1,
      signal: null,
      killed_by: null,
    });

    const prompts = readFileSync(join(sink.dir, 'prompt-log.md'), 'utf8');
    expect(prompts).toContain(
      `## Iteration 1 — hat builder (3030 bytes)\n\n\`\`\`\`\`\n${longPrompt}\n\`\`\`\`\`\n`,
    );
    expect(prompts).toContain('## Iteration 2 — hat reviewer (7 bytes)\n\n```\nReview.\n```\n');
    expect(prompts).toContain('## Iteration 3 — hat reviewer (14 bytes)\n\n```\nReview again.\n```\n');

    const log = readFileSync(sink.logFile, 'utf8');
    expect(basename(sink.logFile)).toBe('ralph-2024-01-02T03-04-05.log');
    expect(log).toContain('[1 builder] stdout| hello\n');
    expect(log).toContain('[1 builder] stdout| world\n');
    expect(log).toContain('completion rejected: 2 tasks open');
    expect(log).toContain('iteration 2 failure — exit code 1');
    expect(log.trimEnd().split('\n')).toHaveLength(trace.length + 2);
  });

  it('records a non-zero loop exit in errors.jsonl and survives unserialisable payloads', () => {
    const sink = createDiagnosticsSink(ws, { now });
    const hostile = {
      get boom(): never {
        throw new Error('getter');
      },
      toJSON: undefined,
      fn: () => 1,
      nan: Number.NaN,
    };
    sink.onEvent(started(1, 'builder'));
    sink.onEvent({
      type: 'event.published',
      iteration: 1,
      hat: 'builder',
      topic: 't',
      payload: hostile,
      source: 'agent',
    });
    sink.onEvent({
      type: 'loop.finished',
      runId: 'run-1',
      stopReason: 'consecutive_failures',
      message: '3 failures in a row',
      exitCode: 1,
      iterations: 1,
      elapsedMs: 10,
      tokens: tokens(0),
      costUsd: 0,
      logFile: 'x.log',
    });
    sink.close();
    sink.onEvent(started(2, 'builder')); // after close: ignored, never throws
    const errors = readLines(join(sink.dir, 'errors.jsonl'));
    expect(errors).toEqual([
      expect.objectContaining({
        event: 'loop.terminated',
        stop_reason: 'consecutive_failures',
        exit_code: 1,
        hat: 'builder',
      }),
    ]);
    const published = readLines(join(sink.dir, 'orchestration.jsonl')).find(
      (l) => l.event === 'event.published',
    )!;
    expect(published.payload).toEqual({ boom: '[Unreadable]', nan: 'NaN' });
  });

  it('adds a suffix when the directory already exists', () => {
    const a = createDiagnosticsSink(ws, { now });
    const b = createDiagnosticsSink(ws, { now });
    a.close();
    b.close();
    expect(basename(b.dir)).toBe('2024-01-02T03-04-05-2');
    expect(basename(b.logFile)).toBe('ralph-2024-01-02T03-04-05-2.log');
  });

  it('rotates the logs to the newest keepLogs files, this one included', () => {
    const logs = join(ws, '.ralph', 'diagnostics', 'logs');
    mkdirSync(logs, { recursive: true });
    const old = [1, 2, 3, 4, 5, 6, 7].map((d) => `ralph-2023-12-0${d}T10-00-00.log`);
    for (const name of old) writeFileSync(join(logs, name), 'old\n');
    writeFileSync(join(logs, 'notes.txt'), 'not a log\n');
    const sink = createDiagnosticsSink(ws, { now });
    sink.close();
    expect(readdirSync(logs).sort()).toEqual(['notes.txt', ...old.slice(3), 'ralph-2024-01-02T03-04-05.log']);

    const kept = createDiagnosticsSink(ws, { now: () => START + 1000, keepLogs: 2 });
    kept.close();
    expect(readdirSync(logs).sort()).toEqual([
      'notes.txt',
      'ralph-2024-01-02T03-04-05.log',
      'ralph-2024-01-02T03-04-06.log',
    ]);
    expect(existsSync(kept.dir)).toBe(true);
  });
});

describe('helpers', () => {
  it('formats the local stamp and makes values JSON-safe', () => {
    expect(diagnosticsStamp(START)).toBe('2024-01-02T03-04-05');
    expect(toJsonSafe({ a: 'x'.repeat(10), m: new Map([['k', 1]]), s: new Set([1]) }, 4)).toEqual({
      a: 'xxxx… [6 more chars]',
      m: { k: 1 },
      s: [1],
    });
  });
});
