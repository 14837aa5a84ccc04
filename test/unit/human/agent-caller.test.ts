import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RalphError } from '../../../src/errors.ts';
import { ownAgentMark, refuseAnyAgent } from '../../../src/human/agent-caller.ts';
import { answer, approve, pause, reject, resume, tell } from '../../../src/human/control.ts';
import { type LoopState, writeLoopState } from '../../../src/state/loop-state.ts';
import { ralphPaths } from '../../../src/state/paths.ts';
import { makeWorkspace } from '../../helpers/workspace.ts';

/** A workspace whose state.json names run `run-a` (no loop runs: nothing holds its lock). */
function workspace(): string {
  const ws = makeWorkspace();
  mkdirSync(join(ws, '.ralph'));
  const state: LoopState = {
    version: 1,
    run_id: 'run-a',
    status: 'waiting_for_human',
    started_at: new Date(0).toISOString(),
    updated_at: new Date(0).toISOString(),
    pid: 1,
    workspace: ws,
    backend: 'fake',
    max_iterations: 3,
    iterations: 1,
    current: null,
    consecutive_failures: 0,
    cost_usd: 0,
    tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
    elapsed_ms: 0,
    pending_events: [],
    events_file: '.ralph/events-x.jsonl',
    events_offset: 0,
    seen_topics: [],
    hat_activations: {},
    recoveries: 0,
    last_signature: null,
    signature_repeats: 0,
    malformed_streak: 0,
    idle: false,
    log_file: '.ralph/logs/x.log',
    stop_reason: null,
    stop_message: null,
    exit_code: null,
  };
  writeLoopState(ralphPaths(ws).state, state);
  return ws;
}

/** The code a call throws (undefined when it returns). */
function codeOf(call: () => unknown): string | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    if (error instanceof RalphError) return error.code;
    throw error;
  }
}

describe('only a person settles what a loop waits for', () => {
  it("the loop's own agent, by any of its marks, is refused approve, reject, answer and resume", () => {
    const ws = workspace();
    const own: NodeJS.ProcessEnv[] = [
      { RALPH_WORKSPACE_ROOT: ws, RALPH_ITERATION_MARK: 'run-a:1' },
      { RALPH_RUN_ID: 'run-a' },
      { RALPH_ITERATION_MARK: 'run-a:12' },
      { RALPH_EVENTS_FILE: join(ws, '.ralph', 'events-x.jsonl') },
    ];
    for (const env of own) {
      const target = { workspace: ws, env };
      expect(ownAgentMark(env, ws)).toBeDefined();
      expect(codeOf(() => approve(target))).toBe('human_only');
      expect(codeOf(() => reject(target, 'no'))).toBe('human_only');
      expect(codeOf(() => answer(target, 'yes'))).toBe('human_only');
      expect(codeOf(() => resume(target))).toBe('human_only');
      // Asking, telling and stopping give the agent nothing it could not do by ending its turn.
      expect(codeOf(() => tell(target, 'note to self'))).toBeUndefined();
      expect(codeOf(() => pause(target))).toBe('not_running');
    }
  });

  it('names the mark and what to do instead', () => {
    const ws = workspace();
    expect(() => approve({ workspace: ws, env: { RALPH_RUN_ID: 'run-a' } })).toThrow(
      "`ralph approve` is for a person: this process carries a Ralph agent's environment (RALPH_RUN_ID=run-a), and an agent cannot settle its own loop's approvals or questions — run it from your own terminal",
    );
  });

  it("a person, or another loop's agent, gets as far as the approval itself", () => {
    const ws = workspace();
    const others: NodeJS.ProcessEnv[] = [
      {},
      { RALPH_WORKSPACE_ROOT: makeWorkspace(), RALPH_RUN_ID: 'run-b', RALPH_ITERATION_MARK: 'run-b:1' },
      // The workspace root alone is not a mark (`ralph plan` sets it for a person's session).
      { RALPH_WORKSPACE_ROOT: ws },
    ];
    for (const env of others) {
      expect(ownAgentMark(env, ws)).toBeUndefined();
      expect(codeOf(() => approve({ workspace: ws, env }))).toBe('no_question');
    }
  });

  it('the dashboard refuses any agent environment', () => {
    expect(codeOf(() => refuseAnyAgent({ RALPH_RUN_ID: 'any' }, '`ralph dashboard`'))).toBe('human_only');
    expect(codeOf(() => refuseAnyAgent({ HOME: '/home/me' }, '`ralph dashboard`'))).toBeUndefined();
  });
});
