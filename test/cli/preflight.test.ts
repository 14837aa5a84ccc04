import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { noAgentClis } from '../helpers/doctor-workspace.ts';
import { FAKE, preflightWorkspace as workspace } from '../helpers/preflight-workspace.ts';

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
  [
    'an affected-tests command that does not exist',
    () => workspace(`${FAKE}gates:\n  tests:\n    command: "true"\n    affected: no-such-runner {files}\n`),
    /✗ gates: gates\.tests\.affected runs `no-such-runner`, which is not there/,
  ],
];

describe('one preflight: config validate and doctor catch what run would fail on', () => {
  it.each(CASES)('%s', async (_name, make, problem) => {
    const dir = make();
    // The installed agent CLIs (node_modules/.bin) are no part of these problems; the doctor would run each one's --version.
    const env = noAgentClis();
    const validate = await runCliInMemory(['config', 'validate'], { cwd: dir, env });
    expect(validate.code, validate.stdout + validate.stderr).toBe(1);
    expect(validate.stdout).toContain('but `ralph run` would stop before its first iteration:');
    expect(validate.stdout).toMatch(problem);
    const doctor = await runCliInMemory(['doctor'], { cwd: dir, env });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout.replace(/ {2,}/g, ' ')).toMatch(
      new RegExp(problem.source.replace(/: /, ' ').replace('✗ ', '✗ ')),
    );
    expect((await runCliInMemory(['config', 'validate', '--schema-only'], { cwd: dir, env })).code).toBe(0);
  });

  it('a healthy workspace validates with exit 0 and no problems', async () => {
    const dir = workspace(FAKE);
    const r = await runCliInMemory(['config', 'validate'], { cwd: dir });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\S*ralph\.yml: valid \(backend fake\)$/);
  });
});
