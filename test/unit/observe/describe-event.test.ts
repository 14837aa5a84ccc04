import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/backends/types.ts';
import {
  createConsoleReporter,
  describeEvent,
  type LoopEvent,
  type LoopEventType,
} from '../../../src/index.ts';
import type { ParallelEvent, WorkerView } from '../../../src/observe/parallel-events.ts';
import { createRunLogSink } from '../../../src/observe/reporters/run-log.ts';
import type { IterationRecord } from '../../../src/state/iteration-record-shape.ts';

/** Any text, newlines and blanks included: a description must still be one non-empty line. */
const text = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '\n', '\r', '\t', '—', '`', '0') });
const n = fc.nat({ max: 10_000_000 });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const gate = fc.constantFrom('validate' as const, 'tests' as const);
const tokens = fc.record({ input: n, output: n, cache_read: n, cache_write: n, total: n });
const progress = fc.record({
  milestone: fc.option(text, { nil: null }),
  milestoneDone: n,
  milestoneTotal: n,
  milestonesDone: n,
  milestonesTotal: n,
  tasksDone: n,
  tasksTotal: n,
});
const agentEvent: fc.Arbitrary<AgentEvent> = fc.oneof(
  fc.record({ type: fc.constant('system' as const), model: maybe(text), sessionId: maybe(text) }),
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({ type: fc.constant('tool_call' as const), name: text, input: fc.jsonValue() }),
  fc.record({ type: fc.constant('tool_result' as const), output: text, isError: fc.boolean() }),
  fc.record({
    type: fc.constant('usage' as const),
    usage: fc.record({ inputTokens: n, outputTokens: n, cacheReadTokens: n, cacheWriteTokens: n }),
  }),
  fc.record({
    type: fc.constant('result' as const),
    text,
    isError: fc.boolean(),
    costUsd: maybe(fc.double({ min: 0, max: 100, noNaN: true })),
  }),
  fc.record({ type: fc.constant('error' as const), message: text }),
  fc.record({ type: fc.constant('rate_limit' as const), message: text, resetAt: maybe(n) }),
);
const record = fc
  .record({
    iteration: n,
    verdict: text,
    reason: fc.option(text, { nil: null }),
    duration_ms: n,
    tokens,
    cost_usd: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null }),
  })
  .map((r) => r as unknown as IterationRecord);

/** One arbitrary per event kind: a kind left out of this table does not compile. */
const EVENTS: { [K in LoopEventType]: fc.Arbitrary<Extract<LoopEvent, { type: K }>> } = {
  'loop.started': fc.record({
    type: fc.constant('loop.started'),
    runId: text,
    resumed: fc.boolean(),
    workspace: text,
    backend: text,
    maxIterations: n,
    branch: maybe(text),
    logFile: text,
    at: n,
  }),
  notice: fc.record({
    type: fc.constant('notice'),
    level: fc.constantFrom('info' as const, 'warn' as const),
    message: text,
  }),
  preflight: fc.record({
    type: fc.constant('preflight'),
    checks: fc.array(
      fc.record({
        check: text,
        level: fc.constantFrom('ok' as const, 'warn' as const, 'fatal' as const),
        message: text,
      }),
    ),
  }),
  'iteration.started': fc.record({
    type: fc.constant('iteration.started'),
    iteration: n,
    maxIterations: n,
    hat: fc.option(text, { nil: null }),
    backend: text,
    elapsedMs: n,
    branch: maybe(text),
    startedAt: n,
    progress: maybe(progress),
  }),
  'hat.activated': fc.record({
    type: fc.constant('hat.activated'),
    iteration: n,
    hatId: text,
    hatName: text,
    triggeredBy: fc.array(text),
  }),
  'prompt.assembled': fc.record({
    type: fc.constant('prompt.assembled'),
    iteration: n,
    hat: fc.option(text, { nil: null }),
    prompt: text,
    bytes: n,
    scratchpad: fc.option(text, { nil: null }),
  }),
  'agent.spawned': fc.record(
    { type: fc.constant('agent.spawned'), iteration: n, pid: n, command: text, sandboxed: fc.constant(true) },
    { requiredKeys: ['type', 'iteration', 'pid', 'command'] },
  ),
  'event.published': fc.record({
    type: fc.constant('event.published'),
    iteration: n,
    hat: fc.option(text, { nil: null }),
    topic: text,
    payload: fc.jsonValue(),
    source: text,
  }),
  'event.malformed': fc.record({
    type: fc.constant('event.malformed'),
    iteration: n,
    line: text,
    error: text,
  }),
  'completion.decided': fc.record({
    type: fc.constant('completion.decided'),
    iteration: n,
    accepted: fc.boolean(),
    reasons: fc.array(text),
    persistent: fc.boolean(),
  }),
  'hook.started': fc.record({
    type: fc.constant('hook.started'),
    iteration: n,
    phaseEvent: text,
    name: text,
    command: text,
    attempt: n,
  }),
  'hook.finished': fc.record({
    type: fc.constant('hook.finished'),
    iteration: n,
    phaseEvent: text,
    name: text,
    attempt: n,
    disposition: fc.constantFrom('pass' as const, 'warn' as const, 'block' as const, 'suspend' as const),
    exitCode: fc.option(n, { nil: null }),
    timedOut: fc.boolean(),
    durationMs: n,
    failure: fc.option(text, { nil: null }),
    output: text,
    truncated: fc.boolean(),
  }),
  'gate.started': fc.record({ type: fc.constant('gate.started'), iteration: n, gate, command: text }),
  'gate.output': fc.record({ type: fc.constant('gate.output'), iteration: n, gate, text }),
  'gate.finished': fc.record({
    type: fc.constant('gate.finished'),
    iteration: n,
    gate,
    output: text,
    summary: fc.record({
      command: text,
      passed: fc.boolean(),
      exit_code: fc.option(n, { nil: null }),
      timed_out: fc.boolean(),
      duration_ms: n,
    }),
  }),
  'git.committed': fc.record({
    type: fc.constant('git.committed'),
    iteration: n,
    commit: text,
    message: text,
  }),
  'git.pushed': fc.record({ type: fc.constant('git.pushed'), iteration: n, remote: text, branch: text }),
  'forge.pull_request': fc.record({
    type: fc.constant('forge.pull_request'),
    iteration: n,
    action: fc.constantFrom('opened', 'adopted', 'ready', 'waiting', 'merged', 'closed'),
    number: n,
    url: text,
    draft: fc.boolean(),
    milestone: text,
    branch: text,
    base: text,
  }),
  'loop.parked': fc.record({
    type: fc.constant('loop.parked'),
    iteration: n,
    until: n,
    remainingMs: n,
    message: text,
    first: fc.boolean(),
  }),
  'control.received': fc.record({
    type: fc.constant('control.received'),
    iteration: n,
    id: text,
    kind: text,
    text: maybe(text),
    ref: maybe(text),
    source: text,
  }),
  'loop.paused': fc.record({ type: fc.constant('loop.paused'), iteration: n }),
  'loop.resumed': fc.record({
    type: fc.constant('loop.resumed'),
    iteration: n,
    from: fc.constantFrom('paused' as const, 'parked' as const, 'waiting_for_human' as const),
  }),
  'human.question': fc.record({
    type: fc.constant('human.question'),
    iteration: n,
    id: text,
    kind: fc.constantFrom('question' as const, 'approval' as const),
    text,
    options: maybe(fc.array(text)),
    point: maybe(text),
    expiresAt: fc.option(n, { nil: null }),
  }),
  'human.progress': fc.record({
    type: fc.constant('human.progress'),
    iteration: n,
    id: text,
    text,
    channel: fc.constantFrom('telegram' as const, 'none' as const),
  }),
  'human.answered': fc.record({
    type: fc.constant('human.answered'),
    iteration: n,
    id: text,
    kind: fc.constantFrom('question' as const, 'approval' as const),
    answer: text,
    by: text,
    reason: maybe(text),
  }),
  'review.finished': fc.record({
    type: fc.constant('review.finished'),
    iteration: n,
    backend: text,
    approved: fc.boolean(),
    findings: fc.array(text),
    round: n,
    costUsd: fc.double({ min: 0, max: 100, noNaN: true }),
  }),
  'limit.warning': fc.record({
    type: fc.constant('limit.warning'),
    limit: fc.constantFrom('iterations' as const, 'runtime' as const, 'cost' as const, 'tokens' as const),
    percent: n,
    message: text,
  }),
  'loop.idle': fc.record({
    type: fc.constant('loop.idle'),
    iteration: n,
    watch: fc.array(text),
    cooldownMs: n,
  }),
  'loop.woke': fc.record({ type: fc.constant('loop.woke'), iteration: n, reason: text }),
  'agent.heartbeat': fc.record({
    type: fc.constant('agent.heartbeat'),
    iteration: n,
    runningMs: n,
    silentMs: n,
  }),
  'agent.output': fc.record({
    type: fc.constant('agent.output'),
    iteration: n,
    stream: fc.constantFrom('stdout' as const, 'stderr' as const),
    text,
  }),
  'agent.event': fc.record({ type: fc.constant('agent.event'), iteration: n, event: agentEvent }),
  'iteration.finished': fc.record({
    type: fc.constant('iteration.finished'),
    record,
    totals: fc.record({ costUsd: fc.double({ min: 0, max: 1000, noNaN: true }), tokens: n }),
  }),
  'loop.finished': fc.record({
    type: fc.constant('loop.finished'),
    runId: text,
    stopReason: fc.constantFrom(
      'completed' as const,
      'max_iterations' as const,
      'interrupted' as const,
      'error' as const,
    ),
    message: text,
    exitCode: fc.constantFrom(0, 1, 2, 130),
    iterations: n,
    elapsedMs: n,
    tokens,
    costUsd: fc.double({ min: 0, max: 1000, noNaN: true }),
    logFile: text,
    next: maybe(text),
  }),
};

const worker: fc.Arbitrary<WorkerView> = fc.record({
  worker: text,
  task: fc.option(text, { nil: null }),
  title: fc.option(text, { nil: null }),
  kind: fc.constantFrom('task' as const, 'resolve' as const, null),
  pid: fc.option(n, { nil: null }),
  iteration: n,
  costUsd: fc.double({ min: 0, max: 100, noNaN: true }),
  status: text,
});
const PARALLEL: { [K in ParallelEvent['type']]: fc.Arbitrary<Extract<ParallelEvent, { type: K }>> } = {
  'parallel.started': fc.record({
    type: fc.constant('parallel.started'),
    id: text,
    target: text,
    workers: n,
    source: text,
    tasks: n,
    resumed: fc.boolean(),
  }),
  'worker.started': fc.record({
    type: fc.constant('worker.started'),
    worker: text,
    task: text,
    title: text,
    kind: fc.constantFrom('task' as const, 'resolve' as const),
    pid: n,
    worktree: text,
    adopted: fc.boolean(),
  }),
  'worker.finished': fc.record({
    type: fc.constant('worker.finished'),
    worker: text,
    task: text,
    outcome: text,
    iterations: n,
    costUsd: fc.double({ min: 0, max: 100, noNaN: true }),
  }),
  'workers.progress': fc.record({
    type: fc.constant('workers.progress'),
    workers: fc.array(worker),
    costUsd: fc.double({ min: 0, max: 100, noNaN: true }),
    tokens: n,
  }),
  'task.state': fc.record({
    type: fc.constant('task.state'),
    task: text,
    title: text,
    state: fc.constantFrom(
      'open' as const,
      'failed' as const,
      'needs_review' as const,
    ) as fc.Arbitrary<never>,
    reason: maybe(text),
  }),
  'merge.started': fc.record({ type: fc.constant('merge.started'), task: text, title: text }),
  'merge.conflict': fc.record({
    type: fc.constant('merge.conflict'),
    task: text,
    files: fc.array(text),
    attempt: n,
  }),
  'merge.gates': fc.record({
    type: fc.constant('merge.gates'),
    task: text,
    phase: fc.constantFrom('started' as const, 'passed' as const, 'failed' as const),
    summary: fc.option(text, { nil: undefined }),
  }) as fc.Arbitrary<Extract<ParallelEvent, { type: 'merge.gates' }>>,
  'merge.merged': fc.record({
    type: fc.constant('merge.merged'),
    task: text,
    title: text,
    commit: text,
    doneCommit: fc.option(text, { nil: null }),
  }),
  'merge.pull_request': fc.record({
    type: fc.constant('merge.pull_request'),
    task: text,
    title: text,
    action: fc.constantFrom(
      'opened' as const,
      'adopted' as const,
      'waiting' as const,
      'merged' as const,
      'closed' as const,
      'unreachable' as const,
    ),
    number: n,
    url: text,
    message: maybe(text),
  }),
  'parallel.limit': fc.record({ type: fc.constant('parallel.limit'), reason: text, message: text }),
  'parallel.finished': fc.record({
    type: fc.constant('parallel.finished'),
    reason: text,
    exitCode: n,
    merged: n,
    total: n,
    message: text,
  }),
};

const oneLine = (line: string) => {
  expect(line.trim()).not.toBe('');
  expect(line).not.toMatch(/[\r\n]/);
};

describe('describeEvent: every event as one line of text', () => {
  it.each(Object.keys(EVENTS) as LoopEventType[])(
    '%s: any event of the kind gives a non-empty single line',
    (kind) => {
      fc.assert(
        fc.property(EVENTS[kind] as fc.Arbitrary<LoopEvent>, (e) => oneLine(describeEvent(e))),
        { numRuns: 200 },
      );
    },
  );

  it.each(Object.keys(PARALLEL) as ParallelEvent['type'][])(
    'parallel %s: a non-empty single line',
    (kind) => {
      fc.assert(
        fc.property(PARALLEL[kind] as fc.Arbitrary<ParallelEvent>, (e) => oneLine(describeEvent(e))),
        { numRuns: 200 },
      );
    },
  );

  it('says what happened, in the console wording', () => {
    expect(
      describeEvent({ type: 'agent.spawned', iteration: 1, pid: 42, command: 'claude', sandboxed: true }),
    ).toBe('agent started (pid 42, sandboxed): claude');
    expect(
      describeEvent({ type: 'git.committed', iteration: 1, commit: 'abcdef1234', message: 'Add x\n\nbody' }),
    ).toBe('committed abcdef1 Add x');
    expect(
      describeEvent({
        type: 'control.received',
        iteration: 1,
        id: 'c1',
        kind: 'guidance',
        text: 'use tabs\nplease',
        source: 'cli',
      }),
    ).toBe('← guidance from cli: use tabs');
    expect(
      describeEvent({
        type: 'completion.decided',
        iteration: 2,
        accepted: false,
        reasons: ['2 tasks open'],
        persistent: false,
      }),
    ).toBe('completion rejected: 2 tasks open');
    expect(describeEvent({ type: 'notice', level: 'warn', message: 'first\nsecond' })).toBe('first ⏎ second');
  });

  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** What the console reporter printed and the run log holds after `events`. */
  function printAndLog(events: LoopEvent[], verbosity: 'quiet' | 'normal'): { out: string; logged: string } {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-describe-'));
    dirs.push(dir);
    const log = createRunLogSink(join(dir, 'run.log'));
    let out = '';
    const console = createConsoleReporter({
      out: (t) => (out += t),
      err: (t) => (out += t),
      verbosity,
      color: false,
    });
    for (const e of events) {
      log.onEvent(e);
      console.onEvent(e);
    }
    log.close();
    return { out, logged: readFileSync(join(dir, 'run.log'), 'utf8') };
  }

  it('is the text the console and the run log print for an event', () => {
    const events: LoopEvent[] = [
      { type: 'git.committed', iteration: 1, commit: 'abcdef1234', message: 'Add x' },
      {
        type: 'gate.finished',
        iteration: 1,
        gate: 'tests',
        output: 'boom\n',
        summary: { command: 'npm test', passed: false, exit_code: 1, timed_out: false, duration_ms: 5 },
      },
      { type: 'notice', level: 'info', message: 'took over a stale lock' },
    ];
    const { out, logged } = printAndLog(events, 'normal');
    for (const e of events) {
      expect(out).toContain(describeEvent(e));
      expect(logged).toContain(describeEvent(e));
    }
  });

  it('the end-of-run summary says the same facts in the same order on the console and in the run log', () => {
    const finished: LoopEvent = {
      type: 'loop.finished',
      runId: 'r1',
      stopReason: 'max_iterations',
      message: 'reached max_iterations (2)',
      exitCode: 2,
      iterations: 2,
      elapsedMs: 252_000,
      tokens: { input: 1000, output: 234, cache_read: 0, cache_write: 0, total: 1234 },
      costUsd: 0.04,
      costByModel: { cheap: 0.01, strong: 0.03 },
      logFile: '/w/.ralph/logs/run.log',
    };
    const { out, logged } = printAndLog([finished], 'quiet');
    const facts = [
      'iterations 2 · duration 4m 12s · tokens 1,234 (in 1,000, out 234) · cost $0.0400 · exit 2',
      'spend by model: cheap $0.0100 · strong $0.0300',
    ];
    expect(out).toContain(`ralph: reached max_iterations (2)\n  ${facts.join('\n  ')}\n`);
    expect(logged).toContain(`# stopped: reached max_iterations (2) · ${facts.join(' · ')}\n`);
  });
});
