import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  makeWorkspace,
  readRecords,
  readState,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

const DESIGN = `# Design: tiny CLI

## Milestone 1: Foundation

### Setup
- [ ] Create the package layout
- [ ] Add a test runner

## Milestone 2: Features

- [ ] Parse arguments
- [ ] Print help
`;

/** Checks off the first unchecked task and journals it, as an orchestrator agent would. */
const CHECK_ONE = `
      - run: |
          cp "$RALPH_FAKE_PROMPT" "prompt-{{iteration}}.md"
          n=$(grep -n -m1 -- '- \\[ \\]' DESIGN.md | cut -d: -f1)
          t=$(sed -n "\${n}p" DESIGN.md | sed 's/.*\\] //')
          sed -i "\${n}s/- \\[ \\]/- [x]/" DESIGN.md
          printf '\\n## %s (2026-11-21)\\n### Files Modified\\n- src/%s\\n' "$t" "{{iteration}}" >> JOURNAL.md`;

function checklistProject(
  opts: { condition?: string; maxIterations?: number; script?: string } = {},
): string {
  return makeWorkspace({
    'DESIGN.md': DESIGN,
    'JOURNAL.md': '# Journal\n',
    'PROMPT.md': 'You are the orchestrator. Do the next unchecked task of DESIGN.md.\n',
    'ralph.yml': [
      'event_loop:',
      '  prompt_file: PROMPT.md',
      `  max_iterations: ${opts.maxIterations ?? 20}`,
      '  completion_promise: ALL_MILESTONES_COMPLETE',
      'cli:',
      '  backend: fake',
      '  fake_script: fake-agent.yml',
      'completion:',
      '  checklist: DESIGN.md',
      `  condition: ${opts.condition ?? 'all_tasks'}`,
      'context:',
      '  journal: JOURNAL.md',
      '  iteration_markers: true',
    ].join('\n'),
    'fake-agent.yml': opts.script ?? `turns:\n  - do:${CHECK_ONE}\n`,
  });
}

describe('checklist loop (seed 003)', () => {
  it('all_tasks: one task per iteration until every box is checked, with banners, context and summary', async () => {
    const dir = checklistProject();
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    expect(readState(dir)).toMatchObject({ iterations: 4, stop_reason: 'completed' });
    expect(r.stdout).toContain('iteration 1/20 · fake · Foundation · tasks 0/4');
    expect(r.stdout).toContain('iteration 3/20 · fake · Features · tasks 2/4');
    expect(r.stdout).toMatch(/milestones completed 2 \(2\/2 done\) · tasks completed 4 \(4\/4 done\)/);
    // Each prompt starts with the context block: iteration N of M, milestone, counts, next task, journal.
    const second = readFileSync(join(dir, 'prompt-2.md'), 'utf8');
    expect(second.startsWith('Continuing autonomous execution (iteration 2 of 20)')).toBe(true);
    expect(second).toContain('Tasks completed: 1/2');
    expect(second).toContain('Add a test runner');
    expect(second).toContain('Create the package layout (2026-11-21)');
    expect(second.indexOf('Continuing autonomous')).toBeLessThan(second.indexOf('You are the orchestrator'));
    // Iteration markers in the journal.
    const journal = readFileSync(join(dir, 'JOURNAL.md'), 'utf8');
    expect(journal).toMatch(/## --- Iteration 1 Start \(\d{4}-\d\d-\d\d \d\d:\d\d\) ---/);
    expect(journal).toMatch(/## --- Iteration 4 Start/);
  });

  it('milestone: stops when the milestone that was current at the start is complete', async () => {
    const dir = checklistProject({ condition: 'milestone' });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    expect(readState(dir)).toMatchObject({ iterations: 2, stop_reason: 'completed' });
    expect(readState(dir).stop_message).toContain('milestone "Foundation" is complete');
    expect(readFileSync(join(dir, 'DESIGN.md'), 'utf8')).toContain('- [ ] Parse arguments');
  });

  it('promise: completes on the promise line; with all_tasks the same claim alone does not complete', async () => {
    const early =
      'turns:\n  - do:\n      - print: "Everything is done, trust me"\n      - print: ALL_MILESTONES_COMPLETE\n';
    const promised = checklistProject({ condition: 'promise', script: early });
    expect((await runRalph(['run'], promised)).code).toBe(0);
    expect(readState(promised).iterations).toBe(1);

    const strict = checklistProject({ condition: 'all_tasks', maxIterations: 2, script: early });
    const r = await runRalph(['run'], strict);
    expect(r.code).toBe(2);
    expect(readState(strict).stop_reason).toBe('max_iterations');
  });

  it('is already complete at start: says so and exits 0 without an iteration', async () => {
    const dir = checklistProject();
    writeFileSync(join(dir, 'DESIGN.md'), DESIGN.replaceAll('- [ ]', '- [x]'));
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('already checked');
    expect(readState(dir).iterations).toBe(0);
  });

  it('stops after 3 consecutive failures', async () => {
    const dir = checklistProject({ script: 'turns:\n  - do: [{ exit: 1 }]\n' });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'consecutive_failures', iterations: 3 });
  });

  it('--dry-run previews the first prompt with its context block and the command', async () => {
    const dir = checklistProject();
    const r = await runRalph(['run', '--dry-run'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Continuing autonomous execution (iteration 1 of 20)');
    expect(r.stdout).toContain('Next task: Create the package layout');
    expect(r.stdout).toContain('# agent command');
    expect(existsSync(join(dir, '.ralph', 'state.json'))).toBe(false);
  });

  it('resume: a run on the same design document needs --resume or --fresh (no terminal); --resume continues it', async () => {
    const dir = checklistProject({ maxIterations: 2 });
    expect((await runRalph(['run'], dir)).code).toBe(2);
    const refused = await runRalph(['run'], dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'an earlier run on DESIGN.md exists (iteration 2 of 2, stopped: max_iterations)',
    );
    expect(refused.stderr).toContain('--resume');
    const resumed = await runRalph(['run', '--resume', '--max-iterations', '10'], dir);
    expect(resumed.code).toBe(0);
    expect(readState(dir)).toMatchObject({ iterations: 4, stop_reason: 'completed' });
    expect(readRecords(dir).map((x) => x.iteration)).toEqual([1, 2, 3, 4]);
  });

  it('resume after a crash mid-iteration continues with the same design-document progress', async () => {
    const script = `turns:\n  - when: { iteration: 2, file_missing: go.flag }\n    do: [{ run: "echo $PPID > agent.pid" }, { hang: true }]\n  - do:${CHECK_ONE}\n`;
    const dir = checklistProject({ script });
    const first = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'agent.pid')), 15_000, 'iteration 2');
    first.child.kill('SIGKILL');
    await first.done;
    writeFileSync(join(dir, 'go.flag'), '');
    const r = await runRalph(['run', '--resume'], dir);
    expect(r.code).toBe(0);
    expect(readState(dir).iterations).toBe(4);
    expect(r.stdout).toContain('iteration 2/20 · fake · Foundation · tasks 1/4');
  });

  it('prints the pre-flight checks', async () => {
    const dir = checklistProject({ maxIterations: 1 });
    const r = await runRalph(['run'], dir);
    expect(r.stdout).toContain('Pre-flight checks');
    expect(r.stdout).toMatch(/✓ .*disk/i);
  });
});

describe('checklist resume on a terminal', () => {
  it('asks whether to resume or start over, and does what the answer says', async () => {
    const { runCli } = await import('../../src/cli/cli-program.ts');
    const dir = checklistProject({ maxIterations: 1 });
    const io = (answers: string[], out: string[]) => ({
      out: (t: string) => out.push(t),
      err: (t: string) => out.push(t),
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1' },
      color: false,
      ask: async (q: string) => {
        out.push(q);
        return answers.shift() ?? 'q';
      },
    });
    expect(await runCli(['run', '-q'], io([], []))).toBe(2);
    const first = readState(dir).run_id;

    const resumed: string[] = [];
    expect(await runCli(['run', '-q', '--max-iterations', '2'], io(['maybe', 'y'], resumed))).toBe(2);
    expect(resumed.join('')).toContain(
      'An earlier run on DESIGN.md exists (iteration 1 of 1, stopped: max_iterations). Resume it?',
    );
    expect(readState(dir)).toMatchObject({ run_id: first, iterations: 2 });

    const restarted: string[] = [];
    expect(await runCli(['run', '-q', '--max-iterations', '1'], io(['n'], restarted))).toBe(2);
    expect(readState(dir).run_id).not.toBe(first);
    expect(readState(dir).iterations).toBe(1);
  });
});
