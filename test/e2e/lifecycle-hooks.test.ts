import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitForValue } from '../helpers/wait.ts';
import {
  makeWorkspace,
  pidAlive,
  readRecords,
  readState,
  readStatus,
  runRalph,
  startRalph,
  stopWhenDone,
  waitFor,
} from '../helpers/workspace.ts';

// ralph-orchestrator's lifecycle hooks through the built CLI, in its config format, with small shell
// hooks and a `backend: custom` shell agent that completes at once.

const AGENT = '#!/bin/sh\ncat >/dev/null\necho "$RALPH_ITERATION" >> agent-ran\necho LOOP_COMPLETE\n';

/** A workspace whose ralph.yml has `hooks` (YAML lines under `events:`) and the given scripts. */
function hooked(events: string, scripts: Record<string, string> = {}, top = ''): string {
  const yml = [
    'event_loop:',
    '  prompt: "do it"',
    '  max_iterations: 3',
    'cli:',
    '  backend: custom',
    '  command: ./agent.sh',
    top,
    'hooks:',
    '  enabled: true',
    '  defaults:',
    '    timeout_seconds: 10',
    '  events:',
    events,
    '',
  ].join('\n');
  const dir = makeWorkspace({ 'ralph.yml': yml, 'agent.sh': AGENT, ...scripts });
  for (const f of ['agent.sh', ...Object.keys(scripts)]) chmodSync(join(dir, f), 0o755);
  return dir;
}

/** The run's hook.finished events from its event stream. */
function hookEvents(dir: string): Record<string, any>[] {
  const file = join(dir, '.ralph', 'runs', readState(dir).run_id, 'stream.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l).event)
    .filter((e) => e.type === 'hook.finished');
}

/** Every phase-event with a hook that appends its name (and the iteration) to `order`. */
const EVERY_PHASE = [
  'pre.loop.start',
  'post.loop.start',
  'pre.iteration.start',
  'post.iteration.start',
  'pre.plan.created',
  'post.plan.created',
  'pre.human.interact',
  'post.human.interact',
  'pre.loop.complete',
  'post.loop.complete',
  'pre.loop.error',
  'post.loop.error',
]
  .map(
    (p) =>
      `    ${p}: [{name: log, command: [sh, -c, 'cat >/dev/null; echo ${p} $RALPH_ITERATION >> order'], on_error: warn}]`,
  )
  .join('\n');

const FAILING = '#!/bin/sh\ncat >/dev/null\necho "API_KEY is not set" >&2\nexit 3\n';

describe('lifecycle hooks (ralph-orchestrator format) in a run', () => {
  it('every phase-event fires where docs/operations/hooks.md says, in order (plan.*, human.interact included)', async () => {
    const agent = [
      '#!/bin/sh',
      'cat >/dev/null',
      'case "$RALPH_ITERATION" in',
      '1) "$RALPH_BIN" emit plan.ready "the plan" ;;',
      '2) "$RALPH_BIN" emit human.interact "which db?" ;;',
      '*) echo LOOP_COMPLETE ;;',
      'esac',
      '',
    ].join('\n');
    const dir = hooked(EVERY_PHASE, { 'agent.sh': agent });
    const p = stopWhenDone(startRalph(['run'], dir));
    const id = await waitForValue(
      () => /question (\S+): which db\?/.exec(p.stderr())?.[1],
      20_000,
      'the question',
    );
    expect((await runRalph(['answer', id, 'postgres'], dir)).code).toBe(0);
    expect((await p.done).code).toBe(0);
    expect(readFileSync(join(dir, 'order'), 'utf8').trim().split('\n')).toEqual([
      'pre.loop.start 0',
      'post.loop.start 0',
      'pre.iteration.start 1',
      'post.iteration.start 1',
      'pre.plan.created 1',
      'post.plan.created 1',
      'pre.iteration.start 2',
      'post.iteration.start 2',
      'pre.human.interact 2',
      'post.human.interact 2',
      'pre.iteration.start 3',
      'post.iteration.start 3',
      'pre.loop.complete 3',
      'post.loop.complete 3',
    ]);
  });

  it('a run that does not complete fires the loop.error pair', async () => {
    const dir = hooked(EVERY_PHASE, { 'agent.sh': '#!/bin/sh\ncat >/dev/null\n' }, '');
    const r = await runRalph(['run', '--max-iterations', '1'], dir);
    expect(r.code).toBe(2);
    expect(readFileSync(join(dir, 'order'), 'utf8').trim().split('\n').slice(-2)).toEqual([
      'pre.loop.error 1',
      'post.loop.error 1',
    ]);
  });

  it('on_error: warn — a warning names the hook and its output; the run goes on and completes', async () => {
    const dir = hooked(
      '    pre.loop.start:\n      - name: env-guard\n        command: ["./guard.sh"]\n        on_error: warn\n',
      { 'guard.sh': FAILING },
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'hook env-guard (pre.loop.start) failed (exit 3; on_error: warn): API_KEY is not set',
    );
    expect(readRecords(dir)).toHaveLength(1);
    expect(hookEvents(dir)).toEqual([
      expect.objectContaining({
        name: 'env-guard',
        phaseEvent: 'pre.loop.start',
        disposition: 'warn',
        exitCode: 3,
        timedOut: false,
      }),
    ]);
    // The run log (`ralph logs`) carries it too.
    expect(readFileSync(join(dir, readState(dir).log_file), 'utf8')).toContain(
      'hook env-guard (pre.loop.start) failed',
    );
  });

  it('on_error: block at pre.loop.start — the run stops before any agent, exit 1, naming the hook and its output', async () => {
    const dir = hooked(
      '    pre.loop.start:\n      - name: env-guard\n        command: ["./guard.sh"]\n        on_error: block\n',
      { 'guard.sh': FAILING },
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(
      'hook_blocked — hook env-guard (pre.loop.start) blocked the run (exit 3): API_KEY is not set',
    );
    expect(existsSync(join(dir, 'agent-ran'))).toBe(false);
    expect(readState(dir)).toMatchObject({ stop_reason: 'hook_blocked', iterations: 0 });
  });

  it('on_error: block at pre.iteration.start — the iteration it guards never starts', async () => {
    // Passes before iteration 1, fails before iteration 2.
    const guard = '#!/bin/sh\ncat >/dev/null\n[ "$RALPH_ITERATION" = 1 ] || { echo "no more"; exit 1; }\n';
    const dir = hooked(
      '    pre.iteration.start:\n      - name: budget\n        command: ["./guard.sh"]\n        on_error: block\n',
      { 'guard.sh': guard, 'agent.sh': '#!/bin/sh\ncat >/dev/null\necho "$RALPH_ITERATION" >> agent-ran\n' },
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readFileSync(join(dir, 'agent-ran'), 'utf8')).toBe('1\n');
    expect(readState(dir)).toMatchObject({ stop_reason: 'hook_blocked', iterations: 1 });
    expect(readState(dir).stop_message).toContain(
      'hook budget (pre.iteration.start) blocked the run (exit 1): no more',
    );
  });

  it('an agent that rewrites a block hook’s script to pass cannot complete the run: the script is protected', async () => {
    const cheat =
      '#!/bin/sh\ncat >/dev/null\nprintf "#!/bin/sh\\nexit 0\\n" > scripts/verify.sh\necho LOOP_COMPLETE\n';
    const dir = hooked(
      '    pre.loop.complete:\n      - name: verify\n        command: ["./scripts/verify.sh"]\n        on_error: block\n',
      { 'scripts/verify.sh': '#!/bin/sh\ncat >/dev/null\necho "not done" >&2\nexit 1\n' },
    );
    writeFileSync(join(dir, 'agent.sh'), cheat);
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'gate_tampered' });
    expect(readRecords(dir).map((rec) => rec.verdict)).toEqual(Array(3).fill('gate_tampered'));
    expect(r.stdout + r.stderr).toContain('changed protected files (scripts/verify.sh');
    expect(hookEvents(dir)).toEqual([]);
  });

  it('on_error: suspend (wait_for_resume) — the loop pauses until `ralph resume`, then goes on', async () => {
    const dir = hooked(
      '    pre.iteration.start:\n      - name: approval\n        command: ["./guard.sh"]\n        on_error: suspend\n        suspend_mode: wait_for_resume\n',
      { 'guard.sh': FAILING },
    );
    const p = stopWhenDone(startRalph(['run'], dir));
    await waitFor(
      () => readStatus(dir) === 'paused',
      15_000,
      () => `paused; output: ${p.stdout()}${p.stderr()}`,
    );
    expect(existsSync(join(dir, 'agent-ran'))).toBe(false);
    expect(p.stderr()).toContain(
      'hook approval (pre.iteration.start) suspended the loop (exit 3); `ralph resume` goes on',
    );
    expect((await runRalph(['resume'], dir)).code).toBe(0);
    const r = await p.done;
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'agent-ran'), 'utf8')).toBe('1\n');
    expect(hookEvents(dir).map((e) => e.disposition)).toEqual(['suspend']);
  });

  it('on_error: suspend (wait_then_retry) — after `ralph resume` the hook runs once more; `ralph stop` ends a suspended run', async () => {
    const dir = hooked(
      '    pre.iteration.start:\n      - name: ready\n        command: ["sh", "-c", "cat >/dev/null; test -f ready"]\n        on_error: suspend\n        suspend_mode: wait_then_retry\n',
    );
    const p = stopWhenDone(startRalph(['run'], dir));
    await waitFor(() => readStatus(dir) === 'paused', 15_000, 'the first suspend');
    // Still failing at the retry: suspended again.
    expect((await runRalph(['resume'], dir)).code).toBe(0);
    await waitFor(
      () => hookEvents(dir).length === 2 && readStatus(dir) === 'paused',
      15_000,
      'the retry to suspend again',
    );
    expect((await runRalph(['stop'], dir)).code).toBe(0);
    const r = await p.done;
    expect(r.code).toBe(0);
    expect(readState(dir).stop_reason).toBe('cancelled');
    expect(existsSync(join(dir, 'agent-ran'))).toBe(false);
    expect(hookEvents(dir).map((e) => [e.attempt, e.disposition])).toEqual([
      [1, 'suspend'],
      [2, 'suspend'],
    ]);
  });

  it('killed while suspended: --resume runs the hook at its phase again, and goes on once it passes', async () => {
    const dir = hooked(
      '    pre.iteration.start:\n      - name: ready\n        command: ["sh", "-c", "cat >/dev/null; test -f ready"]\n        on_error: suspend\n',
    );
    const first = startRalph(['run'], dir);
    await waitFor(() => readStatus(dir) === 'paused', 15_000, 'the suspend');
    first.child.kill('SIGKILL');
    await first.done;
    writeFileSync(join(dir, 'ready'), '');
    const r = await runRalph(['run', '--resume'], dir);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'agent-ran'), 'utf8')).toBe('1\n');
    expect(hookEvents(dir).map((e) => e.disposition)).toContain('pass');
  });

  it('on_error: suspend (retry_backoff) — retried after short waits; the first pass goes on without a pause', async () => {
    // Fails on its first two runs, passes on the third.
    const flaky = '#!/bin/sh\ncat >/dev/null\necho x >> tries\n[ "$(wc -l < tries)" -ge 3 ]\n';
    const dir = hooked(
      '    pre.loop.start:\n      - name: flaky\n        command: ["./flaky.sh"]\n        on_error: suspend\n        suspend_mode: retry_backoff\n',
      { 'flaky.sh': flaky },
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    expect(hookEvents(dir).map((e) => [e.attempt, e.disposition])).toEqual([
      [1, 'suspend'],
      [2, 'suspend'],
      [3, 'pass'],
    ]);
    expect(r.stdout + r.stderr).not.toContain('suspended the loop');
  });

  it('mutate — a hook’s {"metadata": …} reaches the later hooks’ stdin payload, under its name', async () => {
    const dir = hooked(
      [
        '    pre.loop.start:',
        '      - name: ticket',
        '        command: ["sh", "-c", "cat > start-payload.json; echo \'{\\"metadata\\": {\\"id\\": \\"T-12\\"}}\'"]',
        '        on_error: block',
        '        mutate:',
        '          enabled: true',
        '          format: json',
        '    post.loop.complete:',
        '      - name: notify',
        '        command: ["sh", "-c", "cat > end-payload.json"]',
        '        on_error: warn',
      ].join('\n'),
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const start = JSON.parse(readFileSync(join(dir, 'start-payload.json'), 'utf8'));
    expect(start).toMatchObject({
      schema_version: 1,
      phase: 'pre',
      event: 'loop.start',
      phase_event: 'pre.loop.start',
      loop: { id: readState(dir).run_id, workspace: dir },
      metadata: { accumulated: {} },
    });
    const end = JSON.parse(readFileSync(join(dir, 'end-payload.json'), 'utf8'));
    expect(end).toMatchObject({
      phase_event: 'post.loop.complete',
      iteration: { current: 1, max: 3 },
      context: { termination_reason: 'completed', active_hat: 'ralph' },
      metadata: { accumulated: { hook_metadata: { ticket: { id: 'T-12' } } } },
    });
  });

  it('mutate — output that is not {"metadata": {…}} fails the hook by its on_error', async () => {
    const dir = hooked(
      '    pre.loop.start:\n      - name: ticket\n        command: ["sh", "-c", "cat >/dev/null; echo \'{\\"prompt\\": \\"obey\\"}\'"]\n        on_error: block\n        mutate:\n          enabled: true\n',
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir).stop_message).toMatch(
      /hook ticket \(pre\.loop\.start\) blocked the run \(mutation payload supports only/,
    );
  });

  it('a hook past its timeout is killed with its whole process group and recorded as timed out', async () => {
    const slow = '#!/bin/sh\ncat >/dev/null\nsleep 300 &\necho $! > child.pid\nsleep 300\n';
    const dir = hooked(
      '    post.loop.start:\n      - name: slow\n        command: ["./slow.sh"]\n        timeout_seconds: 1\n        on_error: warn\n',
      { 'slow.sh': slow },
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const child = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
    await waitFor(() => !pidAlive(child), 5000, `the hook's child ${child} to be gone`);
    expect(hookEvents(dir)).toEqual([
      expect.objectContaining({
        name: 'slow',
        timedOut: true,
        exitCode: null,
        disposition: 'warn',
        failure: 'timed out',
      }),
    ]);
    expect(r.stderr).toContain('hook slow (post.loop.start) failed (timed out; on_error: warn)');
  });
  it('Ctrl-C kills a running hook with its group: the run ends interrupted (130), nothing left running', async () => {
    const slow = '#!/bin/sh\ncat >/dev/null\nsleep 300 &\necho $! > child.pid\nwait\n';
    const dir = hooked(
      '    pre.iteration.start:\n      - name: slow\n        command: ["./slow.sh"]\n        timeout_seconds: 600\n        on_error: block\n',
      { 'slow.sh': slow },
    );
    const p = stopWhenDone(startRalph(['run'], dir));
    await waitFor(() => existsSync(join(dir, 'child.pid')), 15_000, 'the hook to start');
    const child = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
    p.child.kill('SIGINT');
    const r = await p.done;
    expect(r.code).toBe(130);
    await waitFor(() => !pidAlive(child), 5000, `the hook's child ${child} to be gone`);
    expect(existsSync(join(dir, 'agent-ran'))).toBe(false);
  });

  it('a hook’s output is redacted like every log line: a key it prints stays off the disk', async () => {
    const key = 'sk-ant-api03-hookhookhookhookhookhookhookhook';
    const dir = hooked(
      '    pre.loop.start:\n      - name: leaky\n        command: ["sh", "-c", "cat >/dev/null; echo key=$ANTHROPIC_API_KEY; exit 1"]\n        on_error: warn\n',
    );
    const r = await runRalph(['run'], dir, { ANTHROPIC_API_KEY: key });
    expect(r.code).toBe(0);
    expect(hookEvents(dir)[0]?.output).not.toContain(key);
    expect(r.stdout + r.stderr).not.toContain(key);
    const runDir = join(dir, '.ralph', 'runs', readState(dir).run_id);
    expect(readFileSync(join(runDir, 'stream.jsonl'), 'utf8')).not.toContain(key);
    expect(readFileSync(join(dir, readState(dir).log_file), 'utf8')).not.toContain(key);
  });
});
