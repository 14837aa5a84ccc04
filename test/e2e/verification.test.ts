import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentStub, ranLog, stubBin } from '../helpers/agent-stubs.ts';
import { git, makeGitWorkspace, subjects } from '../helpers/git-workspace.ts';
import {
  fakeConfig,
  makeWorkspace,
  readRecords,
  readState,
  runRalph,
  shellAgentConfig,
} from '../helpers/workspace.ts';

// Where the loop's checks are the subject and the agent only prints, writes or emits, it is a shell
// script (agent.sh, shellAgentConfig): no node start per iteration.

describe('no-progress stop (event_loop.max_idle_iterations)', () => {
  it('stops with no_progress (exit 1) after N iterations that moved nothing, naming what was checked', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': shellAgentConfig({ max_iterations: 20, max_idle_iterations: 3 }),
      'agent.sh': "echo 'thinking about it'\n",
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'no_progress', iterations: 3 });
    expect(readState(dir).stop_message).toContain(
      'no file changed, no commit, no task or checklist item moved, no event published',
    );
    expect(readRecords(dir)[0]?.progress).toEqual({
      files: false,
      commit: false,
      tasks: false,
      events: false,
    });
  });

  it('an agent that changes files, moves tasks or publishes events goes on', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': shellAgentConfig({ max_iterations: 6, max_idle_iterations: 2 }),
      'agent.sh': [
        'case "$RALPH_ITERATION" in',
        '  1|4) echo x >> notes.md ;;',
        '  2|5) ralph emit step.done ;;',
        '  *) ralph tools task add "a task $RALPH_ITERATION" >/dev/null ;;',
        'esac',
        '',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(readRecords(dir).map((x) => x.progress)).toMatchObject([
      { files: true },
      { events: true },
      { tasks: true },
      { files: true },
      { events: true },
      { tasks: true },
    ]);
  });
});

describe('completion.require_work', () => {
  it('refuses completion from a run that changed nothing (default with git.commit), then accepts real work', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${shellAgentConfig({ max_iterations: 4 })}git:\n  commit: true\n`,
      'agent.sh': 'if [ "$RALPH_ITERATION" != 1 ]; then echo done > done.txt; fi\necho LOOP_COMPLETE\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const [first, second] = readRecords(dir);
    expect(first?.decision?.completion).toMatchObject({ accepted: false });
    expect(first?.decision?.completion?.reasons.join(' ')).toContain('completion.require_work');
    expect(second?.decision?.completion).toMatchObject({ accepted: true });
    expect(readState(dir)).toMatchObject({ stop_reason: 'completed', iterations: 2 });
  });
});

describe('budget foresight', () => {
  it('does not start an iteration projected past max_cost_usd (exit 2, with the projection)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 10, max_cost_usd: 1 }),
      'fake-agent.yml':
        'turns:\n  - do:\n      - append: { path: n.txt, content: "x" }\n      - result: { text: ok, cost_usd: 0.4, input_tokens: 10, output_tokens: 10 }\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    const state = readState(dir);
    expect(state).toMatchObject({ stop_reason: 'max_cost', iterations: 2 });
    expect(state.stop_message).toBe(
      'next iteration projected at $0.4000, $0.2000 left of max_cost_usd ($1); not started',
    );
    expect(r.stderr + r.stdout).toContain('80 % of the cost limit used');
  });
});

describe('ralph explain', () => {
  it('prints every iteration’s route, completion, gates, progress, limits and the stop; --json and --iteration', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 2, max_cost_usd: 5 })}gates:\n  tests:\n    command: "true"\n`,
      'fake-agent.yml':
        'turns:\n  - do:\n      - append: { path: n.txt, content: "x" }\n      - print: LOOP_COMPLETE\n',
    });
    expect((await runRalph(['run'], dir)).code).toBe(0);
    const r = await runRalph(['explain'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/iteration 1 · solo · fake · complete/);
    expect(r.stdout).toContain('  completion: accepted');
    expect(r.stdout).toContain('  gates: tests ✓');
    expect(r.stdout).toContain('  limits: iterations 1/2 · runtime');
    expect(r.stdout).toContain('cost $0.0000 of $5.00 (0 %)');
    expect(r.stdout).toMatch(/ {2}stop: completed — completion promise "LOOP_COMPLETE" accepted/);
    const json = await runRalph(['explain', '--json', '--iteration', '1'], dir);
    const line = JSON.parse(json.stdout.trim());
    expect(line.decision).toMatchObject({
      route: { hat: null, backend: 'fake' },
      completion: { accepted: true },
      gates: { tests: true },
      stop: { reason: 'completed' },
    });
    const missing = await runRalph(['explain', '--iteration', '9'], dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('has no recorded iteration 9');
  });
});

describe('protected gates (gates.protect)', () => {
  const CHECK = 'test -f fixed.txt\n';
  it('an iteration that edits the test script is gate_tampered: its gate runs the protected version, nothing is committed, the next prompt says why', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'make the check pass\n',
      'tests/check.sh': CHECK,
      'ralph.yml': `${fakeConfig({ max_iterations: 4 })}gates:\n  tests:\n    command: sh tests/check.sh\ngit:\n  commit: true\n`,
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - write: { path: tests/check.sh, content: "exit 0\\n" }',
        '      - print: LOOP_COMPLETE',
        '  - do:',
        '      - save_prompt: .ralph/p2.md',
        '      - run: "cp tests/check.sh seen.sh && git checkout -- tests/check.sh"',
        '      - write: { path: fixed.txt, content: "ok\\n" }',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const [first, second] = readRecords(dir);
    expect(first).toMatchObject({ verdict: 'gate_tampered', tampered: ['tests/check.sh'], commit: null });
    expect(first?.gates.tests?.passed).toBe(false);
    expect(first?.reason).toContain('changed protected files (tests/check.sh; gates.protect)');
    // The agent's edit stayed in the tree for it to see (and undo).
    expect(readFileSync(join(dir, 'seen.sh'), 'utf8')).toBe('exit 0\n');
    expect(readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8')).toContain(
      'Iteration not accepted: it changed protected files',
    );
    expect(second).toMatchObject({ verdict: 'complete' });
    expect(second?.gates.tests?.passed).toBe(true);
    expect(git(dir, 'show', 'HEAD:tests/check.sh')).toBe(CHECK);
    expect(subjects(dir)).toHaveLength(2);
  });

  it('keeps tampering until max_consecutive_failures: stop gate_tampered (exit 1)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      '.github/workflows/ci.yml': 'on: push\n',
      'ralph.yml': shellAgentConfig({ max_iterations: 9, max_consecutive_failures: 2 }),
      'agent.sh': 'echo "# $RALPH_ITERATION" >> .github/workflows/ci.yml\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'gate_tampered', iterations: 2 });
    expect(readState(dir).stop_message).toContain('.github/workflows/ci.yml');
  });
});

describe('second-opinion review (gates.review)', () => {
  const REVIEWER = [
    '  - when: { prompt: "second-opinion code reviewer", file_missing: README.md }',
    '    do:',
    '      - result: { text: "- add a README that says how to run it\\nREQUEST_CHANGES", cost_usd: 0.05, input_tokens: 100, output_tokens: 20 }',
    '  - when: { prompt: "second-opinion code reviewer" }',
    '    do:',
    '      - result: { text: "Looks right.\\nAPPROVE", cost_usd: 0.05, input_tokens: 100, output_tokens: 20 }',
  ];

  it('holds completion until the reviewer approves; findings reach the next prompt; its cost counts separately', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'write the tool\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 5 })}gates:\n  review:\n    backend: fake\n`,
      'fake-agent.yml': [
        'turns:',
        ...REVIEWER,
        '  - when: { iteration: 1 }',
        '    do:',
        '      - write: { path: tool.sh, content: "echo hi\\n" }',
        '      - print: LOOP_COMPLETE',
        '  - do:',
        '      - save_prompt: .ralph/p2.md',
        '      - write: { path: README.md, content: "run sh tool.sh\\n" }',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const [first, second] = readRecords(dir);
    expect(first?.review).toMatchObject({
      approved: false,
      findings: ['add a README that says how to run it'],
      round: 1,
      cost_usd: 0.05,
    });
    expect(first?.decision?.completion?.accepted).toBe(false);
    expect(second?.review).toMatchObject({ approved: true });
    expect(readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8')).toContain(
      '## Review findings (second opinion, round 1 of 3)',
    );
    const state = readState(dir);
    expect(state).toMatchObject({ stop_reason: 'completed', iterations: 2 });
    expect(state.review.cost_usd).toBeCloseTo(0.1);
    expect(state.cost_usd).toBeCloseTo(0.1);
    expect(r.stderr).toContain('ralph: review by fake requested changes (round 1)');
  });

  it('stops review_unresolved (exit 1) after max_rounds without approval', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'write the tool\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 9 })}gates:\n  review:\n    backend: fake\n    max_rounds: 2\n`,
      'fake-agent.yml': [
        'turns:',
        ...REVIEWER,
        '  - do:',
        '      - append: { path: tool.sh, content: "echo {{iteration}}\\n" }',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'review_unresolved', iterations: 2 });
    expect(readState(dir).stop_message).toContain('add a README');
  });
});

describe('provider fallback (cli.fallback)', () => {
  it('runs the iteration again on the next backend when the primary is parked for long', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 3 })}  args: [--loop-arg]\n  fallback: [codex]\n  fallback_after_seconds: 60\n`,
      'fake-agent.yml': 'turns:\n  - do:\n      - rate_limit: { resets_in_seconds: 3600 }\n',
    });
    const bin = stubBin({
      codex: agentStub('codex', 'echo "done by the fallback" > done.txt\nTEXT=LOOP_COMPLETE'),
    });
    const r = await runRalph(['run'], dir, { PATH: `${bin}:${process.env.PATH}` });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'done.txt'), 'utf8')).toBe('done by the fallback\n');
    // The fallback runs with its own flags, not the primary's cli.args.
    expect(ranLog(dir)).toEqual([
      'codex exec --json --skip-git-repo-check -c allow_login_shell=false --dangerously-bypass-approvals-and-sandbox',
    ]);
    const records = readRecords(dir);
    expect(records.at(-1)).toMatchObject({
      iteration: 1,
      backend: 'codex',
      command: 'codex',
      fallback_from: 'fake',
      verdict: 'complete',
    });
    expect(readState(dir).fallback).toMatchObject({ index: 0 });
    expect(r.stdout + r.stderr).toContain('runs again on codex (cli.fallback)');
  });
});
