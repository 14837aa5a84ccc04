import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WaveMemberRecord } from '../../src/state/iteration-record-shape.ts';
import { agentStub, ranLog, stubBin } from '../helpers/agent-stubs.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { waitFor } from '../helpers/wait.ts';
import { makeWorkspace, readRecords, readState, runRalph, startRalph } from '../helpers/workspace.ts';

// Agent waves through the built CLI (docs/guide/agent-waves.md): a config in ralph-orchestrator's
// three-hat wave format, run by a `backend: custom` shell agent that dispatches with `ralph wave emit`.

/** Coordinator → reviewer (a wave, concurrency 2) → synthesizer (aggregate), as their docs lay it out. */
const WAVE_YML = [
  'event_loop:',
  '  prompt_file: PROMPT.md',
  '  starting_event: review.start',
  '  completion_promise: review.complete',
  '  max_iterations: 6',
  'cli:',
  '  backend: custom',
  '  command: ./agent.sh',
  'hats:',
  '  coordinator:',
  '    name: Coordinator',
  '    triggers: [review.start]',
  '    publishes: [review.perspective]',
  '    instructions: Dispatch one reviewer per perspective as a wave.',
  '  reviewer:',
  '    name: Reviewer',
  '    triggers: [review.perspective]',
  '    publishes: [review.done]',
  '    concurrency: 2',
  '    timeout: 60',
  '    instructions: Review from the perspective in your event.',
  '  synthesizer:',
  '    name: Synthesizer',
  '    triggers: [review.done]',
  '    publishes: [review.complete]',
  '    aggregate:',
  '      mode: wait_for_all',
  '      timeout: 120',
  '    instructions: Merge the findings.',
  '',
].join('\n');

/**
 * The agent. A reviewer logs `start i` / `end i` to wave.log, and holds until two members have
 * started (proving two run at once; one at a time would hold forever) and `hold` is absent (the
 * member whose role is `$FREE_ROLE` does not wait for that); the
 * member whose role is `$FAIL_ROLE` exits 3 without a result. The synthesizer keeps its prompt.
 */
const AGENT = `#!/bin/sh
prompt=$(cat)
case "$RALPH_HAT" in
  coordinator) ralph wave emit review.perspective --payloads "ROLE: Rust" "ROLE: Frontend" "ROLE: Docs" ;;
  reviewer)
    role=$(printf '%s' "$prompt" | grep -o 'ROLE: [A-Za-z]*' | head -1 | cut -c7-)
    echo "start $RALPH_WAVE_INDEX $role" >> wave.log
    while [ "$(grep -c '^start' wave.log)" -lt 2 ] || { [ -f hold ] && [ "$role" != "$FREE_ROLE" ]; }; do sleep 0.05; done
    echo "end $RALPH_WAVE_INDEX $role" >> wave.log
    if [ "$role" = "$FAIL_ROLE" ]; then echo "cannot review $role" >&2; exit 3; fi
    ralph emit review.done "findings of $role" ;;
  synthesizer) printf '%s' "$prompt" > synthesizer-prompt.txt; ralph emit review.complete report ;;
esac
echo done
`;

function waveWorkspace(extra: Record<string, string> = {}): string {
  const dir = makeWorkspace({ 'PROMPT.md': 'Review the auth module\n', 'ralph.yml': WAVE_YML, ...extra });
  writeFileSync(join(dir, 'agent.sh'), AGENT);
  chmodSync(join(dir, 'agent.sh'), 0o755);
  return dir;
}

/** The most members wave.log shows running at once. */
function mostAtOnce(dir: string): number {
  let running = 0;
  let most = 0;
  for (const line of readFileSync(join(dir, 'wave.log'), 'utf8').trim().split('\n')) {
    running += line.startsWith('start') ? 1 : -1;
    most = Math.max(most, running);
  }
  return most;
}

/** The `review.done` lines of the synthesizer's prompt (its Events section). */
const resultsSeen = (dir: string) =>
  readFileSync(join(dir, 'synthesizer-prompt.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('- review.done:'));

const workspaces: string[] = [];
afterEach(() => killLeftovers(workspaces.splice(0)));

describe('agent waves through the built CLI', () => {
  it('validates, runs a wave of 3 two at a time, and hands the synthesizer every result once', async () => {
    const dir = waveWorkspace();
    workspaces.push(dir);
    const v = await runRalph(['config', 'validate', '--strict'], dir);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain('valid (backend custom, 3 hats)');

    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(mostAtOnce(dir)).toBe(2);
    expect(resultsSeen(dir).sort()).toEqual([
      '- review.done: findings of Docs',
      '- review.done: findings of Frontend',
      '- review.done: findings of Rust',
    ]);
    const records = readRecords(dir);
    expect(records.map((x) => x.hat)).toEqual(['coordinator', 'reviewer', 'synthesizer']);
    const wave = records[1]!.wave!;
    expect(wave.concurrency).toBe(2);
    expect(wave.members.map((m: WaveMemberRecord) => [m.index, m.verdict, m.events])).toEqual([
      [0, 'success', ['review.done']],
      [1, 'success', ['review.done']],
      [2, 'success', ['review.done']],
    ]);
    expect(records[1]!.events).toEqual(['review.done', 'review.done', 'review.done']);
    // Each member published into its own file; the run's events file names the member of each result.
    const shown = await runRalph(['events', '--json'], dir);
    const results = (
      JSON.parse(shown.stdout) as { topic: string; source: string; wave_member: number }[]
    ).filter((e) => e.topic === 'review.done');
    expect(results.map((e) => [e.source, e.wave_member])).toEqual([
      ['wave', 0],
      ['wave', 1],
      ['wave', 2],
    ]);
    const explain = await runRalph(['explain', '2'], dir);
    expect(explain.stdout).toContain('wave: 3 members, 2 at once');
  });

  it('a member that fails is recorded as failed; the others’ results still reach the synthesizer', async () => {
    const dir = waveWorkspace();
    workspaces.push(dir);
    const r = await runRalph(['run'], dir, { FAIL_ROLE: 'Frontend' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr + r.stdout).toMatch(/wave member 2\/3 failed: agent exited with code 3/);
    expect(resultsSeen(dir).sort()).toEqual([
      '- review.done: findings of Docs',
      '- review.done: findings of Rust',
    ]);
    const wave = readRecords(dir)[1]!.wave!;
    expect(wave.members.map((m: WaveMemberRecord) => [m.verdict, m.exit_code])).toEqual([
      ['success', 0],
      ['failure', 3],
      ['success', 0],
    ]);
    expect(wave.members[1]!.reason).toBe('agent exited with code 3');
  });

  it('SIGTERM mid-wave leaves no process; --resume runs the wave again whole and counts each result once', async () => {
    const dir = waveWorkspace({ hold: '' });
    workspaces.push(dir);
    const run = startRalph(['run'], dir);
    await waitFor(
      () =>
        existsSync(join(dir, 'wave.log')) &&
        readFileSync(join(dir, 'wave.log'), 'utf8').split('\n').length > 2,
      20_000,
      'two wave members running',
    );
    expect(markedProcesses(dir).length).toBeGreaterThanOrEqual(2);
    run.child.kill('SIGTERM');
    const stopped = await run.done;
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(130);
    expect(markedProcesses(dir)).toEqual([]);
    expect(readState(dir).status).toBe('interrupted');
    // The interrupted wave is recorded as aborted with its members; none of its results was handed on.
    const aborted = readRecords(dir)[1]!;
    expect(aborted).toMatchObject({ hat: 'reviewer', verdict: 'aborted', events: [] });
    expect(aborted.wave.members.map((m: WaveMemberRecord) => m.killed_by)).toEqual([
      'interrupted',
      'interrupted',
      null,
    ]);

    // The dry run of the resume shows each member's prompt, with its one event.
    const dry = await runRalph(['run', '--resume', '--dry-run'], dir);
    expect(dry.stdout.match(/^# first prompt \(wave member \d of 3, 2 at once, \d+ bytes\)$/gm)).toHaveLength(
      3,
    );
    expect(dry.stdout).toContain('## Wave member 2 of 3');
    expect(dry.stdout.match(/^- review\.perspective: ROLE: Frontend$/gm)).toHaveLength(1);

    writeFileSync(join(dir, 'wave.log'), '');
    rmSync(join(dir, 'hold'));
    const resumed = await runRalph(['run', '--resume'], dir);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resultsSeen(dir)).toHaveLength(3);
    const records = readRecords(dir);
    expect(records.map((x) => [x.hat, x.verdict])).toEqual([
      ['coordinator', 'success'],
      ['reviewer', 'aborted'],
      ['reviewer', 'success'],
      ['synthesizer', 'complete'],
    ]);
    expect(records[2]!.wave.members.map((m: WaveMemberRecord) => m.verdict)).toEqual([
      'success',
      'success',
      'success',
    ]);
  });

  it('kill -9 mid-wave: --resume kills the orphaned members, runs the wave again whole, each result once', async () => {
    const dir = waveWorkspace({ hold: '' });
    workspaces.push(dir);
    const run = startRalph(['run'], dir);
    const twoStarted = () =>
      existsSync(join(dir, 'wave.log')) && readFileSync(join(dir, 'wave.log'), 'utf8').split('\n').length > 2;
    await waitFor(twoStarted, 20_000, 'two wave members running');
    run.child.kill('SIGKILL');
    await run.done;
    const orphans = markedProcesses(dir).map((p) => p.pid);
    expect(orphans.length).toBeGreaterThanOrEqual(2);

    writeFileSync(join(dir, 'wave.log'), '');
    const resumed = startRalph(['run', '--resume'], dir);
    await waitFor(twoStarted, 20_000, 'the re-run wave’s members running');
    // The first try's members were killed before the wave ran again.
    expect(markedProcesses(dir).filter((p) => orphans.includes(p.pid))).toEqual([]);
    rmSync(join(dir, 'hold'));
    const done = await resumed.done;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(resultsSeen(dir)).toHaveLength(3);
    const records = readRecords(dir);
    expect(records.map((x) => x.hat)).toEqual(['coordinator', 'reviewer', 'synthesizer']);
    expect(records[1]!.events).toEqual(['review.done', 'review.done', 'review.done']);
  });

  it('max_tokens counts every member together: the wave is stopped though no member alone reached it', async () => {
    // Each reviewer reports 600 tokens, then holds: alone under the cap of 1000, two together over it.
    const claude = [
      '#!/bin/sh',
      'cat > /dev/null',
      'case "$RALPH_HAT" in',
      '  coordinator) ralph wave emit review.perspective --payloads a b c ;;',
      '  reviewer)',
      '    echo "start $RALPH_WAVE_INDEX" >> wave.log',
      `    printf '%s\\n' '{"type":"result","subtype":"success","is_error":false,"result":"x","usage":{"input_tokens":600,"output_tokens":0}}'`,
      '    while [ -f hold ]; do sleep 0.05; done ;;',
      'esac',
      `printf '%s\\n' '{"type":"result","subtype":"success","is_error":false,"result":"done"}'`,
      '',
    ].join('\n');
    const dir = waveWorkspace({
      hold: '',
      'ralph.yml': WAVE_YML.replace('  max_iterations: 6', '  max_iterations: 6\n  max_tokens: 1000').replace(
        '  backend: custom\n  command: ./agent.sh',
        '  backend: claude',
      ),
    });
    workspaces.push(dir);
    const r = await runRalph(['run'], dir, { PATH: `${stubBin({ claude })}:${process.env.PATH}` });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(readState(dir).stop_reason).toBe('max_tokens');
    const wave = readRecords(dir)[1]!;
    expect(wave.killed_by).toBe('max_tokens');
    expect(wave.tokens.total).toBe(1200);
    expect(wave.wave.members.map((m: WaveMemberRecord) => m.killed_by)).toEqual([
      'max_tokens',
      'max_tokens',
      null,
    ]);
    expect(wave.wave.members[2].reason).toMatch(/^not started/);
    expect(markedProcesses(dir)).toEqual([]);
  });

  it('a config laid out as ralph-orchestrator ships its wave review (claude, guardrails, disallowed_tools, default_publishes) runs unchanged', async () => {
    const yml = [
      'event_loop:',
      '  prompt_file: PROMPT.md',
      '  completion_promise: review.complete',
      '  starting_event: review.start',
      '  max_iterations: 20',
      '  max_runtime_seconds: 3600',
      'cli:',
      '  backend: claude',
      'core:',
      '  guardrails:',
      '    - Stay in your specialty.',
      'hats:',
      '  coordinator:',
      '    name: "📋 Coordinator"',
      '    description: Dispatches the reviewers as a wave.',
      '    triggers: [review.start]',
      '    publishes: [review.perspective]',
      '    instructions: Dispatch with ralph wave emit.',
      '  reviewer:',
      '    name: "🔍 Reviewer"',
      '    description: One specialist perspective.',
      '    triggers: [review.perspective]',
      '    publishes: [review.done]',
      '    concurrency: 3',
      '    timeout: 600',
      '    instructions: Review from your perspective.',
      '  synthesizer:',
      '    name: "📊 Synthesizer"',
      '    description: Merges the findings.',
      '    triggers: [review.done]',
      '    publishes: [review.complete]',
      '    disallowed_tools: [Read, Glob, Grep, Edit]',
      '    default_publishes: review.complete',
      '    aggregate:',
      '      mode: wait_for_all',
      '      timeout: 300',
      '    instructions: Merge the review.done events.',
      '',
    ].join('\n');
    const claude = agentStub(
      'claude',
      [
        'case "$RALPH_HAT" in',
        '  coordinator) ralph wave emit review.perspective --payloads "ROLE: Rust" "ROLE: Frontend" "ROLE: Docs" ;;',
        '  reviewer) ralph emit review.done "findings $RALPH_WAVE_INDEX of $RALPH_WAVE_TOTAL" ;;',
        'esac',
      ].join('\n'),
    );
    const dir = makeWorkspace({ 'PROMPT.md': 'Review the auth module\n', 'ralph.yml': yml });
    workspaces.push(dir);
    const env = { PATH: `${stubBin({ claude })}:${process.env.PATH}` };
    const v = await runRalph(['config', 'validate', '--strict'], dir, env);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const records = readRecords(dir);
    expect(records.map((x) => [x.hat, x.verdict])).toEqual([
      ['coordinator', 'success'],
      ['reviewer', 'success'],
      ['synthesizer', 'complete'],
    ]);
    expect(records[1]!.wave.concurrency).toBe(3);
    expect(records[2]!.decision.route.triggered_by).toEqual(['review.done', 'review.done', 'review.done']);
    // The synthesizer's disallowed tools reached claude.
    expect(ranLog(dir).at(-1)).toContain('--disallowedTools');
  });

  it('sandbox: on: each member runs sandboxed and publishes into its own file', async () => {
    const dir = waveWorkspace({ 'ralph.yml': `sandbox: on\n${WAVE_YML}` });
    workspaces.push(dir);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(resultsSeen(dir)).toHaveLength(3);
    // Their files sit beside the events file, which the sandbox lets an agent write.
    expect(readRecords(dir)[1]!.wave.members.map((m: WaveMemberRecord) => m.verdict)).toEqual([
      'success',
      'success',
      'success',
    ]);
  });

  it("aggregate.timeout ends the wave: members still running are killed as failed, the finished one's result handed on", async () => {
    const dir = waveWorkspace({
      hold: '',
      'ralph.yml': WAVE_YML.replace('      timeout: 120', '      timeout: 2').replace(
        'concurrency: 2',
        'concurrency: 3',
      ),
    });
    workspaces.push(dir);
    const r = await runRalph(['run'], dir, { FREE_ROLE: 'Rust' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(resultsSeen(dir)).toEqual(['- review.done: findings of Rust']);
    const record = readRecords(dir)[1]!;
    expect(record.verdict).toBe('success');
    expect(record.wave.members.map((m: WaveMemberRecord) => [m.verdict, m.killed_by])).toEqual([
      ['success', null],
      ['failure', 'wave_timeout'],
      ['failure', 'wave_timeout'],
    ]);
    expect(markedProcesses(dir)).toEqual([]);
  });
});
