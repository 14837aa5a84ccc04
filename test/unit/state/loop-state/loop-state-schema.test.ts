import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RUN_STATUSES } from '../../../../src/state/loop-state/fields.ts';
import { parseLoopState } from '../../../../src/state/loop-state.ts';
import { zodParseLoopState } from '../../../support/loop-state-zod.ts';

// state.json is checked by hand so that `ralph run` starts without zod; the zod schema it replaced
// is the spec (test/support/loop-state-zod.ts): the same files accepted, the same defaults and key
// order kept, the same `state_corrupt` message word for word.

type Outcome = { ok: true; json: string } | { ok: false; message: string };

function outcome(parse: (text: string, where: string) => unknown, text: string): Outcome {
  try {
    return { ok: true, json: JSON.stringify(parse(text, '.ralph/state.json')) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

const expectSame = (text: string): Outcome => {
  const spec = outcome(zodParseLoopState, text);
  expect(outcome(parseLoopState, text)).toEqual(spec);
  return spec;
};

// Numbers at the edges the checks care about (sign, zero, integer, the safe range).
const edgy = fc.constantFrom(0, -0, 1, -1, 0.5, -0.5, 2 ** 53, -(2 ** 53), 2 ** 60, -(2 ** 60), 1e308);
const count = fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER));
const num = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), edgy);
const str = fc.string({ maxLength: 8 });
const nstr = fc.option(str, { nil: null });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const loose = <T extends Record<string, unknown>>(fields: { [K in keyof T]: fc.Arbitrary<T[K]> }) =>
  fc.record(fields);
const metricResult = loose({
  iteration: count,
  commit: nstr,
  values: fc.array(num, { maxLength: 3 }),
  value: num,
  spread: num,
});
const metricNote = loose({ iteration: count, idea: str, value: maybe(num), why: str });

/** A state.json that the schema accepts; the keys older versions lacked are sometimes absent. */
const validState = fc.record(
  {
    version: fc.constant(1),
    run_id: fc.string({ minLength: 1, maxLength: 8 }),
    status: fc.constantFrom(...RUN_STATUSES),
    started_at: str,
    updated_at: str,
    pid: fc.integer(),
    workspace: str,
    backend: str,
    max_iterations: count,
    iterations: count,
    current: maybe(
      loose({
        number: fc.integer({ min: 1 }),
        hat: nstr,
        started_at: str,
        agent_pid: maybe(fc.integer()),
        agent_start_time: nstr,
        head_before: nstr,
      }),
    ),
    consecutive_failures: count,
    cost_usd: fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }),
    tokens: loose({ input: count, output: count, cache_read: count, cache_write: count, total: count }),
    elapsed_ms: fc.nat(),
    pending_events: fc.array(
      loose({ topic: str, payload: fc.jsonValue({ maxDepth: 2 }), source: str, iteration: maybe(num) }),
      { maxLength: 2 },
    ),
    events_file: fc.string({ minLength: 1, maxLength: 8 }),
    events_offset: count,
    seen_topics: fc.array(str, { maxLength: 3 }),
    hat_activations: fc.dictionary(str, count, { maxKeys: 3 }),
    recoveries: count,
    last_signature: nstr,
    signature_repeats: count,
    malformed_streak: count,
    idle: fc.boolean(),
    idle_next_scan_at: maybe(num),
    parked: maybe(loose({ until: num, message: str, transient: fc.boolean() })),
    parks: loose({ rateLimit: count, transient: count }),
    checklist: nstr,
    start_progress: maybe(loose({ tasks_done: count, milestones_done: count })),
    tdd: loose({
      report_misses: count,
      report_feedback: nstr,
      last_signature: nstr,
      signature_repeats: count,
    }),
    last_record: maybe(loose({ iteration: fc.integer({ min: 1 }) })),
    pending_stop: maybe(loose({ reason: str, message: str, exit_code: fc.integer() })),
    control: loose({ offset: count, consumed: fc.array(str, { maxLength: 2 }) }),
    guidance: fc.array(
      loose({ id: str, kind: fc.constantFrom('guidance', 'answer', 'rejection'), text: str, source: str }),
      { maxLength: 2 },
    ),
    paused: fc.boolean(),
    waiting_for: maybe(
      loose({ id: str, kind: fc.constantFrom('question', 'approval'), text: str, expires_at: maybe(num) }),
    ),
    held_question: maybe(
      loose({
        id: str,
        point: maybe(fc.constantFrom('before_commit', 'before_push', 'before_complete')),
        iteration: count,
        completes: nstr,
        commit: maybe(
          loose({
            hat: nstr,
            backend: str,
            summary: str,
            before: nstr,
            tests: nstr,
            repo_tests: fc.dictionary(str, nstr, { maxKeys: 2 }),
          }),
        ),
        repos: fc.array(str, { maxLength: 2 }),
      }),
    ),
    repo_heads: fc.dictionary(str, nstr, { maxKeys: 2 }),
    // An older Ralph's workspace rollback, or today's list of repositories.
    rollback: maybe(
      fc.oneof(
        loose({
          iteration: fc.integer({ min: 1 }),
          ref: fc.string({ minLength: 1 }),
          to: fc.string({ minLength: 1 }),
          why: str,
          rescued: fc.boolean(),
        }),
        loose({
          iteration: fc.integer({ min: 1 }),
          ref: fc.string({ minLength: 1 }),
          trees: fc.array(
            loose({ repo: nstr, to: fc.string({ minLength: 1 }), why: str, rescued: fc.boolean() }),
            { maxLength: 2 },
          ),
        }),
      ),
    ),
    repos_rollback: maybe(
      loose({
        iteration: fc.integer({ min: 1 }),
        ref: fc.string({ minLength: 1 }),
        why: str,
        repos: fc.array(loose({ name: fc.string({ minLength: 1 }), to: fc.string({ minLength: 1 }) }), {
          maxLength: 2,
        }),
        done: fc.array(str, { maxLength: 2 }),
      }),
    ),
    metric: loose({
      baseline: metricResult,
      best: metricResult,
      not_kept_streak: count,
      kept: fc.array(metricNote, { maxLength: 2 }),
      failed: fc.array(metricNote, { maxLength: 1 }),
    }),
    progress_marks: loose({ tree: nstr, tasks: str }),
    fallback: maybe(loose({ index: count, until: num })),
    review: loose({
      start_head: nstr,
      rounds: fc.array(
        loose({ iteration: num, approved: fc.boolean(), findings: fc.array(str, { maxLength: 2 }) }),
        { maxLength: 2 },
      ),
      cost_usd: num,
      tokens: num,
    }),
    protected: loose({
      globs: fc.array(str, { maxLength: 2 }),
      hashes: fc.dictionary(str, str, { maxKeys: 2 }),
    }),
    usage_samples: fc.array(loose({ hat: nstr, backend: str, costUsd: num, tokens: num }), { maxLength: 2 }),
    limit_warnings: fc.dictionary(str, num, { maxKeys: 2 }),
    ladder: fc.dictionary(str, loose({ rung: count, failures: count, successes: count, reason: nstr }), {
      maxKeys: 2,
    }),
    cost_by_model: fc.dictionary(str, fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), {
      maxKeys: 2,
    }),
    log_file: fc.string({ minLength: 1, maxLength: 8 }),
    stop_reason: nstr,
    stop_message: nstr,
    exit_code: maybe(fc.integer()),
    start_milestone: nstr,
    feedback: nstr,
    stop_requested: fc.boolean(),
    uncommitted_changes: fc.boolean(),
    last_green: nstr,
    human_timeout: nstr,
    did_work: fc.boolean(),
    no_progress_streak: count,
    extra_key: fc.jsonValue({ maxDepth: 1 }),
  },
  {
    requiredKeys: [
      'version',
      'run_id',
      'status',
      'started_at',
      'pid',
      'workspace',
      'backend',
      'max_iterations',
      'iterations',
      'current',
      'consecutive_failures',
      'cost_usd',
      'tokens',
      'elapsed_ms',
      'events_file',
      'log_file',
    ],
  },
);

/** Every place in a JSON value: the path of each key and index under it. */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return [at, ...value.flatMap((v, i) => paths(v, [...at, i]))];
  if (typeof value === 'object' && value !== null)
    return [at, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...at, k]))];
  return [at];
}

/** What is put in place of a value: wrong types, nulls, edge numbers, strings, empty containers. */
const replacement = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    '',
    'x',
    [],
    {},
    [1],
    { a: 1 },
    { length: 0 },
    { length: '2' },
    'running',
    1,
  ),
  edgy,
  fc.jsonValue({ maxDepth: 1 }),
);
type Mutation = { pick: number; kind: 'delete' | 'replace' | 'add'; value: unknown; key: string };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  kind: fc.constantFrom('delete', 'replace', 'add'),
  value: replacement,
  key: fc.constantFrom('extra', '__proto__', 'toString', 'constructor', '0'),
});

/** Applies one mutation at the `pick`-th place of `state` (a JSON copy, changed in place). */
function mutate(state: unknown, m: Mutation): unknown {
  const all = paths(state);
  const path = all[m.pick % all.length]!;
  // A copy: the constant replacement objects are shared between runs, and a later mutation of this
  // run may add a key inside the value it put in (a `__proto__` pointing at itself, seen once).
  const value = structuredClone(m.value);
  if (path.length === 0) return m.kind === 'replace' ? value : state;
  const parent = path.slice(0, -1).reduce<any>((v, k) => v[k], state);
  const key = path[path.length - 1]!;
  if (m.kind === 'replace') parent[key] = value;
  else if (m.kind === 'delete' && Array.isArray(parent)) parent.splice(Number(key), 1);
  else if (m.kind === 'delete') delete parent[key];
  else if (!Array.isArray(parent))
    Object.defineProperty(parent, m.key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return state;
}

describe('state.json without zod', () => {
  it('accepts every valid state as zod did, with the same defaults and key order', () => {
    fc.assert(
      fc.property(validState, (state) => {
        expect(expectSame(JSON.stringify(state)).ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects a damaged state with the same message, and accepts the same harmless changes', () => {
    let rejected = 0;
    fc.assert(
      fc.property(validState, fc.array(mutation, { minLength: 1, maxLength: 4 }), (state, mutations) => {
        const damaged = mutations.reduce<unknown>((s, m) => mutate(s, m), JSON.parse(JSON.stringify(state)));
        if (!expectSame(JSON.stringify(damaged)).ok) rejected++;
      }),
      { numRuns: 600 },
    );
    expect(rejected).toBeGreaterThan(100); // the mutations do damage, not only add extra keys
  });

  it('words texts that are not a state as zod did: empty, not JSON, not an object, Infinity', () => {
    for (const text of ['', '  \n', '{', 'null', '[]', '"state"', '{}', '{"version": 1e400}'])
      expect(expectSame(text).ok).toBe(false);
    const state = fc.sample(validState, { numRuns: 1, seed: 22 })[0]!;
    const text = JSON.stringify({ ...state, pid: 0, cost_usd: 0 });
    const infinite = expectSame(
      text.replace('"pid":0', '"pid":-1e400').replace('"cost_usd":0', '"cost_usd":1e400'),
    );
    expect(infinite).toMatchObject({ message: expect.stringContaining('received -Infinity') });
    // zod measures the length of a non-string that has one (the counterexample fast-check found).
    for (const runId of [[], [1], { length: 0 }, { length: null }, { length: '2' }])
      expect(expectSame(JSON.stringify({ ...state, run_id: runId })).ok).toBe(false);
    expect(expectSame(JSON.stringify({ ...state, run_id: [] }))).toMatchObject({
      message: expect.stringContaining('run_id: Too small: expected array to have >=1 items'),
    });
    expect(outcome(parseLoopState, '{}')).toMatchObject({ message: expect.stringContaining(', and ') });
  });
});
