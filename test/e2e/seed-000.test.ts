import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  makeWorkspace,
  ROOT,
  type RunResult,
  readRecords,
  readState,
  runRalph,
} from '../helpers/workspace.ts';

const preset = (f: string) => join(ROOT, 'presets', 'board', f);
const jsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

/** Seed 000's artifacts exactly as §4 gives them, plus the scripted agent acting out the hats. */
function seedWorkspace(): string {
  const dir = makeWorkspace({
    'ralph.yml': readFileSync(join(ROOT, 'test', 'fixtures', 'seed-000', 'ralph.yml'), 'utf8'),
    'PROMPT.md': readFileSync(join(ROOT, 'test', 'fixtures', 'seed-000', 'PROMPT.md'), 'utf8'),
  });
  mkdirSync(join(dir, 'work'));
  mkdirSync(join(dir, 'proposed'));
  mkdirSync(join(dir, 'done'));
  for (const item of ['item-1.txt', 'item-2.txt', 'item-3.txt'])
    copyFileSync(preset(join('work', item)), join(dir, 'work', item));
  copyFileSync(preset('fake-agent.yml'), join(dir, 'fake-agent.yml'));
  return dir;
}

describe('seed 000: the board spike, run unchanged with the scripted agent', () => {
  let dir: string;
  let run: RunResult;
  let events: Record<string, any>[];
  let orchestration: Record<string, any>[];
  let diagnostics: string;

  beforeAll(async () => {
    dir = seedWorkspace();
    run = await runRalph(
      [
        'run',
        '-v',
        '--no-tui',
        '-P',
        'PROMPT.md',
        '--set',
        'cli.backend=fake',
        '--set',
        'cli.fake_script=fake-agent.yml',
        '--set',
        'event_loop.cooldown_delay_seconds=1.5',
        '--max-iterations',
        '16',
      ],
      dir,
      { RALPH_DIAGNOSTICS: '1' },
    );
    events = JSON.parse((await runRalph(['events', '--format', 'json'], dir)).stdout);
    const diagRoot = join(dir, '.ralph', 'diagnostics');
    const runDir = readdirSync(diagRoot).find((d) => d !== 'logs')!;
    diagnostics = join(diagRoot, runDir);
    orchestration = jsonl(join(diagnostics, 'orchestration.jsonl'));
  }, 60_000);

  it('terminates cleanly at max_iterations with no failed iteration (check 9)', () => {
    expect(run.stderr).not.toMatch(/unexpected error/);
    expect(run.code).toBe(2);
    expect(readState(dir).stop_reason).toBe('max_iterations');
    expect(readRecords(dir).every((r) => ['success', 'complete', 'idle'].includes(r.verdict))).toBe(true);
  });

  it('moves all three items through both phases (check 1, §7 lifecycle)', () => {
    expect(readdirSync(join(dir, 'done')).sort()).toEqual(['item-1.txt', 'item-2.txt', 'item-3.txt']);
    expect(readdirSync(join(dir, 'work'))).toEqual([]);
    expect(readdirSync(join(dir, 'proposed'))).toEqual([]);
  });

  it('dispatches both work hats, work/ before proposed/ (check 2, §7 dispatch)', () => {
    const hats = orchestration
      .filter((o) => o.event === 'hat.activated')
      .map((o) => o.hat_id ?? o.hatId ?? o.hat);
    expect(hats).toContain('proposal_writer');
    expect(hats).toContain('finisher');
    const dispatches = events
      .filter((e) => e.topic === 'work.propose' || e.topic === 'work.finish')
      .map((e) => `${e.topic} ${e.payload}`);
    expect(dispatches).toEqual([
      'work.propose item-1.txt',
      'work.propose item-2.txt',
      'work.propose item-3.txt',
      'work.finish item-1.txt',
      'work.finish item-2.txt',
      'work.finish item-3.txt',
    ]);
    // Each work hat ran right after the scanner's dispatch, and the scanner right after each rescan.
    const sequence = readRecords(dir).map((r) => r.hat);
    expect(sequence.slice(0, 13)).toEqual([
      'board_scanner',
      'proposal_writer',
      'board_scanner',
      'proposal_writer',
      'board_scanner',
      'proposal_writer',
      'board_scanner',
      'finisher',
      'board_scanner',
      'finisher',
      'board_scanner',
      'finisher',
      'board_scanner',
    ]);
  });

  it('work hats publish board.rescan after each work.propose and work.finish (check 3)', () => {
    const topics = events.filter((e) => e.source === undefined).map((e) => e.topic);
    topics.forEach((t, i) => {
      if (t === 'work.propose' || t === 'work.finish') expect(topics[i + 1]).toBe('board.rescan');
    });
    expect(topics.filter((t) => t === 'board.rescan')).toHaveLength(6);
  });

  it('publishes LOOP_COMPLETE only once the board is empty, and persistent mode answers with task.resume (checks 4, 5)', () => {
    const topics = events.map((e) => e.topic);
    const firstComplete = topics.indexOf('LOOP_COMPLETE');
    expect(firstComplete).toBeGreaterThan(topics.lastIndexOf('work.finish'));
    expect(topics[firstComplete + 1]).toBe('task.resume');
    expect(events[firstComplete + 1]).toMatchObject({ source: 'persistent' });
    // The scanner fires again on task.resume: later idle scans publish LOOP_COMPLETE again.
    expect(topics.filter((t) => t === 'LOOP_COMPLETE').length).toBeGreaterThanOrEqual(2);
    const records = readRecords(dir);
    expect(records[13]?.hat).toBe('board_scanner');
    // Cooldown applies to the idle path only: the idle rescan waited, hand-offs did not.
    const gap = Date.parse(records[13]!.started_at) - Date.parse(records[12]!.finished_at);
    expect(gap).toBeGreaterThanOrEqual(1500);
    // A hand-off that waited would take the whole 1.5 s; the margin keeps a loaded machine out of it.
    const handoff = Date.parse(records[1]!.started_at) - Date.parse(records[0]!.finished_at);
    expect(handoff).toBeLessThan(1500);
  });

  it('self-clears the scratchpad before every dispatch, with no pollution from other items (checks 6, 7)', () => {
    const contexts = orchestration.filter((o) => o.event === 'iteration.context');
    const byIteration = new Map(contexts.map((c) => [c.iteration, c.scratchpad as string | null]));
    for (const r of readRecords(dir)) {
      if (r.hat === 'proposal_writer' || r.hat === 'finisher') {
        const pad = byIteration.get(r.iteration) ?? '';
        const phase = r.hat === 'proposal_writer' ? 'propose' : 'finish';
        expect(pad).toMatch(new RegExp(`^# Phase: ${phase} — item-\\d\\.txt\\nStarting fresh\\.\\n$`));
        if (r.hat === 'finisher') expect(pad).not.toContain('## Proposed');
      }
    }
  });

  it('the scanner deletes tasks.jsonl before dispatching: open tasks of one phase never reach the next (§7 state hygiene)', () => {
    // The proposal writer leaves a task open; the scanner sees it, then self-clears before dispatching.
    const prompts = readFileSync(join(diagnostics, 'prompt-log.md'), 'utf8');
    expect(prompts).toMatch(/## Ready tasks\n- task-\w+ \[P2\] Finish item-1\.txt/);
    // The finisher exits non-zero if it finds tasks.jsonl; every iteration succeeded.
    expect(
      readRecords(dir)
        .filter((r) => r.hat === 'finisher')
        .every((r) => r.verdict === 'success'),
    ).toBe(true);
  });

  it('logs idle scans in poll-log.txt after all items are done (check 8)', () => {
    const log = readFileSync(join(dir, 'poll-log.txt'), 'utf8').trim().split('\n');
    const lastFinish = log.findLastIndex((l) => l.includes('dispatching: work.finish'));
    expect(log.slice(lastFinish).filter((l) => l.endsWith('idle (no work)')).length).toBeGreaterThanOrEqual(
      2,
    );
    expect(log[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ — board\.scan — START$/);
  });

  it('keeps memories across items and phases (check 10, §7 memories)', () => {
    const memories = readFileSync(join(dir, '.ralph', 'agent', 'memories.md'), 'utf8');
    for (const item of ['item-1.txt', 'item-2.txt', 'item-3.txt']) expect(memories).toContain(item);
  });

  it('writes the diagnostics files spanning every phase (§5.2, §7 observability)', () => {
    for (const f of [
      'agent-output.jsonl',
      'orchestration.jsonl',
      'performance.jsonl',
      'trace.jsonl',
      'errors.jsonl',
      'prompt-log.md',
    ]) {
      expect(existsSync(join(diagnostics, f))).toBe(true);
    }
    const trace = readFileSync(join(diagnostics, 'trace.jsonl'), 'utf8');
    for (const hat of ['board_scanner', 'proposal_writer', 'finisher']) expect(trace).toContain(hat);
    expect(readFileSync(join(diagnostics, 'prompt-log.md'), 'utf8')).toContain('## Board Scanner');
    expect(readdirSync(join(dir, '.ralph', 'diagnostics', 'logs')).length).toBeGreaterThanOrEqual(1);
  });

  it('streams the agent output with -v', () => {
    expect(run.stdout).toContain('Wrote the proposal and published board.rescan.');
    expect(run.stdout).toContain('iteration 1/16 · board_scanner');
  });
});
