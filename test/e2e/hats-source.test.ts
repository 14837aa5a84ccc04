import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentStub } from '../helpers/agent-stubs.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

// ralph-orchestrator's split config through the built CLI: `ralph run -c ralph.yml -H hats.yml`
// (its docs/guide/cli-reference.md), with a hat imported from a file of its own (its issue 209).

/** The planner asks for a build, then completes once it is built; the builder builds. */
const WORK = [
  'case "$RALPH_HAT" in',
  '  builder|maker) echo "$RALPH_HAT" >> built.txt; ralph emit build.done ;;',
  '  planner) if [ -f built.txt ]; then ralph emit FEATURE_DONE; else ralph emit build.task; fi ;;',
  '  *) echo "$RALPH_HAT" >> wrong-hat.txt ;;',
  'esac',
].join('\n');

/** The core: the backend, the limits, and a hat of its own the hats source replaces. */
const CORE = [
  'cli:',
  '  backend: custom',
  '  command: ./agent.sh',
  'event_loop:',
  '  max_iterations: 6',
  '  starting_event: work.start',
  'hats:',
  '  solo:',
  '    triggers: [work.start]',
  '    instructions: Work alone.',
  '',
].join('\n');

const hatsFile = (builder: string, planner: string) =>
  [
    'name: feature',
    'event_loop:',
    '  starting_event: feature.start',
    '  completion_promise: FEATURE_DONE',
    'events:',
    '  build.done:',
    '    description: The build is done',
    'hats:',
    '  planner:',
    planner,
    `  ${builder}:`,
    '    triggers: [build.task]',
    '    publishes: [build.done]',
    '    instructions: Build.',
    '',
  ].join('\n');

function workspace(files: Record<string, string>): string {
  const dir = makeWorkspace({ 'PROMPT.md': 'build the feature\n', 'ralph.yml': CORE, ...files });
  writeFileSync(join(dir, 'agent.sh'), agentStub('custom', WORK));
  chmodSync(join(dir, 'agent.sh'), 0o755);
  return dir;
}

describe('ralph run -H <hats source> through the built CLI', () => {
  it("validates, then runs the source's hats (one imported) to its completion promise", async () => {
    const dir = workspace({
      'hats/feature.yml': hatsFile(
        'builder',
        '    import: shared/planner.yml\n    instructions: Plan small.',
      ),
      'hats/shared/planner.yml':
        'name: Planner\ntriggers: [feature.start, build.done]\npublishes: [build.task, FEATURE_DONE]\ninstructions: Plan.\n',
    });
    const v = await runRalph(['config', 'validate', '-c', 'ralph.yml', '-H', 'hats/feature.yml'], dir);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain('ralph.yml + hats hats/feature.yml: valid (backend custom, 2 hats)');
    expect(v.stdout).toContain(
      '  · ralph.yml:7:1: hats: replaced by the hats of the hats source hats/feature.yml (-H)',
    );

    const r = await runRalph(['run', '-c', 'ralph.yml', '-H', 'hats/feature.yml', '--no-tui'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    expect(readRecords(dir).map((x) => x.hat)).toEqual(['planner', 'builder', 'planner']);
    expect(readdirSync(dir)).not.toContain('wrong-hat.txt');
  });

  it('an edit of the hats file is never served from the config cache', async () => {
    const cache = makeWorkspace();
    const env = { XDG_CACHE_HOME: cache };
    const planner =
      '    triggers: [feature.start, build.done]\n    publishes: [build.task, FEATURE_DONE]\n    instructions: Plan.';
    const dir = workspace({ 'hats.yml': hatsFile('builder', planner) });
    const first = await runRalph(['run', '-H', 'hats.yml', '--no-tui'], dir, env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // The first start cached its config: the second is a hit unless the hats file is part of the key.
    expect(readdirSync(join(cache, 'ralph', 'config'))).toHaveLength(1);
    writeFileSync(join(dir, 'hats.yml'), hatsFile('maker', planner));
    rmSync(join(dir, 'built.txt'));
    const second = await runRalph(['run', '--fresh', '-H', 'hats.yml', '--no-tui'], dir, env);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(readRecords(dir).map((x) => x.hat)).toEqual([
      'planner',
      'builder',
      'planner',
      'planner',
      'maker',
      'planner',
    ]);
  });

  it('under sandbox: on the agent cannot rewrite the hats file or the hat file it imports', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'agent.sh':
        '#!/bin/sh\necho "hats: {}" > hats.yml\necho "triggers: [x]" > parts/worker.yml\necho LOOP_COMPLETE\n',
      'ralph.yml':
        'event_loop:\n  max_iterations: 1\ncli:\n  backend: custom\n  command: ./agent.sh\nsandbox: on\n',
      'hats.yml': 'hats:\n  worker:\n    import: parts/worker.yml\n',
      'parts/worker.yml': 'triggers: [task.start]\ninstructions: Work.\n',
    });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'agent');
    const before = ['hats.yml', 'parts/worker.yml'].map((f) => readFileSync(join(dir, f), 'utf8'));
    const r = await runRalph(['run', '--no-tui', '-H', 'hats.yml'], dir);
    expect(r.stderr).toContain(
      'sandbox refused 2 write(s) or read(s): hats.yml (config), parts/worker.yml (config)',
    );
    expect(['hats.yml', 'parts/worker.yml'].map((f) => readFileSync(join(dir, f), 'utf8'))).toEqual(before);
    const [record] = readRecords(dir);
    expect(record!.hat).toBe('worker');
    const denied = Object.fromEntries(
      (record!.sandbox.denials as { path: string; reason: string }[]).map((d) => [d.path, d.reason]),
    );
    expect(denied).toMatchObject({
      [join(dir, 'hats.yml')]: 'config',
      [join(dir, 'parts', 'worker.yml')]: 'config',
    });
  });
});
