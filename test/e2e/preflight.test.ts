import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, readRecords, runRalph } from '../helpers/workspace.ts';

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: dir });

/** A committed git workspace with a fake agent that would complete at once. */
function workspace(yml: string, files: Record<string, string> = {}): string {
  const dir = makeWorkspace({
    'PROMPT.md': 'Do it.\n',
    'agent.yml': 'turns:\n  - do: [{ run: "touch agent-ran" }, { print: LOOP_COMPLETE }]\n',
    'ralph.yml': yml,
    ...files,
  });
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'init');
  return dir;
}

const FAKE = 'event_loop:\n  prompt_file: PROMPT.md\ncli:\n  backend: fake\n  fake_script: agent.yml\n';

/** Each case: what run would fail on later, and how validate/doctor name it now. */
const CASES: [string, () => string, RegExp][] = [
  [
    'custom backend without command',
    () => workspace('cli:\n  backend: custom\n'),
    /✗ backend: cli\.backend is "custom" but cli\.command is not set/,
  ],
  [
    'a missing prompt file',
    () => workspace(FAKE.replace('PROMPT.md', 'PLAN.md')),
    /✗ prompt: event_loop\.prompt_file PLAN\.md does not exist/,
  ],
  [
    'a dirty tree with git.require_clean',
    () => {
      const dir = workspace(`${FAKE}git:\n  commit: true\n`);
      execFileSync('sh', ['-c', 'echo change >> PROMPT.md'], { cwd: dir });
      return dir;
    },
    /✗ git: git\.require_clean: uncommitted changes in 1 file\(s\): PROMPT\.md/,
  ],
  [
    'git.push with no remote',
    () => workspace(`${FAKE}git:\n  commit: true\n  push: true\n`),
    /✗ git: git\.push is on but the repository has no remote "origin"/,
  ],
  [
    'an agent binary not on PATH',
    () => workspace('cli:\n  backend: custom\n  command: no-such-agent-cli\n'),
    /✗ agent: agent binary not found: no-such-agent-cli/,
  ],
  [
    'a gate command that does not exist',
    () => workspace(`${FAKE}gates:\n  tests:\n    command: no-such-test-runner --ci\n`),
    /✗ gates: gates\.tests\.command runs `no-such-test-runner`, which is not there/,
  ],
];

describe('one preflight: config validate and doctor catch what run would fail on', () => {
  it.each(CASES)('%s', async (_name, make, problem) => {
    const dir = make();
    const validate = await runRalph(['config', 'validate'], dir);
    expect(validate.code, validate.stdout + validate.stderr).toBe(1);
    expect(validate.stdout).toContain('but `ralph run` would stop before its first iteration:');
    expect(validate.stdout).toMatch(problem);
    const doctor = await runRalph(['doctor'], dir);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout.replace(/ {2,}/g, ' ')).toMatch(
      new RegExp(problem.source.replace(/: /, ' ').replace('✗ ', '✗ ')),
    );
    expect((await runRalph(['config', 'validate', '--schema-only'], dir)).code).toBe(0);
  });

  it('run stops before the first agent call on a missing gate command and a missing push remote', async () => {
    for (const yml of [
      `${FAKE}gates:\n  tests:\n    command: no-such-test-runner --ci\n`,
      `${FAKE}git:\n  commit: true\n  push: true\n`,
    ]) {
      const dir = workspace(yml);
      const r = await runRalph(['run'], dir);
      expect(r.code, r.stdout).toBe(1);
      // The console says it in words once ("health check failed (gates)"); state.json names the reason.
      expect(r.stdout + r.stderr).toMatch(/health check failed/);
      expect(JSON.parse(readFileSync(join(dir, '.ralph', 'state.json'), 'utf8')).stop_reason).toBe(
        'health_check',
      );
      expect(existsSync(join(dir, 'agent-ran'))).toBe(false);
      expect(readRecords(dir)).toEqual([]);
    }
  });

  it('a healthy workspace validates with exit 0 and no problems', async () => {
    const dir = workspace(FAKE);
    const r = await runRalph(['config', 'validate'], dir);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\S*ralph\.yml: valid \(backend fake\)$/);
  });
});
