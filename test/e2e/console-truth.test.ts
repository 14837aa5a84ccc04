import { chmodSync, existsSync, readFileSync } from 'node:fs';
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

/** What the console printed, without colours. */
const plain = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;

const CHECKLIST_YML = [
  'event_loop:',
  '  prompt_file: PROMPT.md',
  'cli:',
  '  backend: fake',
  '  fake_script: fake-agent.yml',
  'completion:',
  '  checklist: DESIGN.md',
].join('\n');

/** Checks off the first unchecked task of DESIGN.md. */
const CHECK_ONE =
  'turns:\n  - do:\n      - run: |\n          n=$(grep -n -m1 -- \'- \\[ \\]\' DESIGN.md | cut -d: -f1)\n          sed -i "${n}s/- \\[ \\]/- [x]/" DESIGN.md\n';

describe('the console says what happened', () => {
  it('an iteration whose validate hook failed is shown and recorded as failed, not ✓ success', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      'ralph.yml':
        'event_loop:\n  prompt_file: PROMPT.md\ncli:\n  backend: fake\n  fake_script: fake-agent.yml\ngates:\n  validate: "echo broken; exit 3"\n',
      'fake-agent.yml': 'turns:\n  - do: [{ print: "all good\\nLOOP_COMPLETE" }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(plain(r)).not.toMatch(/✓ iteration 1/);
    expect(plain(r)).toMatch(
      /✗ iteration 1 failure — validation failed: `echo broken; exit 3` exited with 3/,
    );
    const [record] = readRecords(dir);
    expect(record).toMatchObject({
      verdict: 'failure',
      reason: 'validation failed: `echo broken; exit 3` exited with 3',
    });
    expect(readState(dir).stop_reason).toBe('validation_failed');
  });

  it('a design document with no tasks says so instead of "all milestones done · tasks 0/0"', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      'DESIGN.md': '# Design\n\nNothing planned yet.\n',
      'ralph.yml': CHECKLIST_YML,
      'fake-agent.yml': 'turns:\n  - do: [{ print: "thinking" }]\n',
    });
    const r = await runRalph(['run', '--max-iterations', '1'], dir);
    expect(plain(r)).not.toContain('all milestones done');
    expect(plain(r)).toContain('no `- [ ]` tasks in the design document yet');
  });

  it('after --resume the summary counts the tasks of the whole run, like its iterations', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do the next task.\n',
      'DESIGN.md': '# Design\n\n## Milestone 1: All\n\n- [ ] one\n- [ ] two\n- [ ] three\n',
      'ralph.yml': CHECKLIST_YML,
      'fake-agent.yml': CHECK_ONE,
    });
    const first = await runRalph(['run', '--max-iterations', '1'], dir);
    expect(first.code).toBe(2);
    expect(plain(first)).toContain('tasks completed 1 (1/3 done)');
    const second = await runRalph(['run', '--resume', '--max-iterations', '2'], dir);
    expect(second.code).toBe(2);
    expect(plain(second)).toMatch(/iterations 2 · /);
    expect(plain(second)).toContain('tasks completed 2 (2/3 done)');
  });
});

describe('what to do next is the last thing said', () => {
  it('a limit stop ends with the command that continues the run', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      'ralph.yml':
        'event_loop:\n  prompt_file: PROMPT.md\n  max_iterations: 1\ncli:\n  backend: fake\n  fake_script: agent.yml\n',
      'agent.yml': 'turns:\n  - do: [{ print: "working" }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('  next: ralph run --resume --max-iterations 2');
    const more = await runRalph(['run', '--resume', '--max-iterations', '2'], dir);
    expect(more.code).toBe(2);
    expect(readState(dir).iterations).toBe(2);
  });

  it('a solo promise that is not on the last line: the reason and the next prompt say where it must be', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      'ralph.yml':
        'event_loop:\n  prompt_file: PROMPT.md\n  max_iterations: 2\ncli:\n  backend: fake\n  fake_script: agent.yml\n',
      'agent.yml': [
        'turns:',
        '  - when: { prompt: "## Last iteration" }',
        '    do: [{ print: "All done.\\nLOOP_COMPLETE" }]',
        '  - do: [{ print: "All done.\\nLOOP_COMPLETE\\nThanks!" }]',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout).toBe(0);
    const [first, second] = readRecords(dir);
    expect(first!.reason).toBe(
      '"LOOP_COMPLETE" was on line 2 of 3 of the final message, not the last line, so it did not count; end the final message with a line containing only it',
    );
    expect(second!.verdict).toBe('complete');
  });
});

describe('a --resume that fails before any iteration', () => {
  it('leaves the interrupted run resumable: the next plain ralph run refuses to start over it', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      'ralph.yml': 'event_loop:\n  prompt_file: PROMPT.md\ncli:\n  backend: fake\n  fake_script: agent.yml\n',
      'agent.yml': 'turns:\n  - do: [{ print: "working" }]\n',
    });
    const first = await runRalph(['run'], dir, { RALPH_FAULT_SIGNAL_AFTER_WRITE: '4:SIGINT' });
    expect(first.code).toBe(130);
    // The disk check fails on resume (no space left): the resumed session stops before an iteration.
    const resumed = await runRalph(['run', '--resume'], dir, { RALPH_HEALTH_DISK_FREE_BYTES: '0' });
    expect(resumed.code).toBe(1);
    expect(readState(dir)).toMatchObject({ status: 'interrupted', stop_reason: 'health_check' });
    const plain = await runRalph(['run'], dir);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/--resume/);
  });
});

describe('a failed agent start says why, without -v', () => {
  const cases: [string, string, RegExp][] = [
    ['no such flag', 'error: unknown option --frobnicate', /check cli\.args and the arguments after `--`/],
    ['not logged in', 'Error: Invalid API key · Please run /login', /not logged in or its key is refused/],
    ['wrong model', 'API Error: model "claude-9" not found', /fix cli\.model/],
  ];
  it.each(cases)('%s: the agent stderr tail and the fix', async (_name, stderr, hint) => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      'agent.sh': `#!/bin/sh\necho "starting"\necho '${stderr}' >&2\nexit 1\n`,
      'ralph.yml':
        'event_loop:\n  prompt_file: PROMPT.md\n  max_iterations: 1\ncli:\n  backend: custom\n  command: ./agent.sh\n',
    });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    const r = await runRalph(['run'], dir);
    expect(r.stdout).toMatch(hint);
    expect(r.stdout).toContain(`  | ${stderr}`);
    expect(readRecords(dir)[0]).toMatchObject({ verdict: 'failure', stderr_tail: stderr });
  });
});

describe('a stop is said once', () => {
  it('Ctrl-C: "interrupted" once on the console and in the log, with the way to go on once', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      'ralph.yml': 'event_loop:\n  prompt_file: PROMPT.md\ncli:\n  backend: fake\n  fake_script: agent.yml\n',
      'agent.yml': 'turns:\n  - do: [{ run: "touch started" }, { hang: true }]\n',
    });
    const run = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'started')), 15_000, 'the agent at work');
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    const out = plain(r);
    expect(out).toContain(
      'ralph: interrupted (Ctrl-C, SIGTERM or SIGHUP); resume with `ralph run --resume`\n',
    );
    expect(out).not.toContain('interrupted — interrupted');
    // The stop's summary says it once, and its way to go on once (no `next:` repeating it).
    const summary = out.slice(out.indexOf('ralph: interrupted'));
    expect(summary.match(/interrupted/g)).toHaveLength(1);
    expect(summary.match(/ralph run --resume/g)).toHaveLength(1);
    const log = readFileSync(join(dir, readState(dir).log_file), 'utf8');
    expect(log).toContain('# stopped: interrupted (Ctrl-C, SIGTERM or SIGHUP)');
    expect(log).not.toMatch(/interrupted — interrupted/);
  });
});

describe('colour follows FORCE_COLOR and NO_COLOR, into a pipe too', () => {
  it('FORCE_COLOR=1 colours piped output; NO_COLOR wins over it', async () => {
    const dir = makeWorkspace({
      'ralph.yml':
        'event_loop:\n  prompt: "go"\n  max_iterations: 1\ncli:\n  backend: custom\n  command: /bin/true\n',
    });
    const forced = await runRalph(['run'], dir, { FORCE_COLOR: '1', NO_COLOR: undefined });
    expect(forced.stdout).toContain('\u001b[');
    const both = await runRalph(['run', '--fresh'], dir, { FORCE_COLOR: '1', NO_COLOR: '1' });
    expect(plain(both)).not.toContain('\u001b[');
  });
});
