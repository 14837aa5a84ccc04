import { chmodSync, existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, initGitRepo } from '../helpers/git-workspace.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { fakeConfig, makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

// Issue 32: protected files are protected as git sees them — content, executable bit and file
// type — and the crash-recovery record of a gate's swap (.ralph/protected/swap.json), which the
// agent can write, can never make its version of a protected file the one a run checks against.

const used: string[] = [];
afterEach(() => {
  killLeftovers(used.splice(0));
});

/** A committed project (`exec` files committed executable) whose agent plays `turns`; its parent is the test's own. */
function project(extra: string, turns: string[], files: Record<string, string>, exec: string[]): string {
  const dir = makeWorkspace(
    {
      'PROMPT.md': 'work\n',
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}git:\n  commit: true\n${extra}`,
      'fake-agent.yml': ['turns:', ...turns].join('\n'),
      ...files,
    },
    'repo',
  );
  for (const f of exec) chmodSync(join(dir, f), 0o755);
  used.push(dir);
  return initGitRepo(dir);
}

const commits = (dir: string): number => Number(git(dir, 'rev-list', '--count', 'HEAD').trim());

describe('protected files: mode and type count, not only content', () => {
  it('chmod -x on the validate hook is gate_tampered, not "no hook": nothing committed, the mode stays in the tree', async () => {
    const dir = project(
      '',
      [
        '  - do:',
        '      - run: "chmod -x .ralph/validate.sh"',
        '      - write: { path: a.txt, content: "a\\n" }',
        '      - print: LOOP_COMPLETE',
      ],
      { '.ralph/validate.sh': '#!/bin/sh\ntest -f never-exists\n' },
      ['.ralph/validate.sh'],
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).not.toBe(0);
    const [record] = readRecords(dir);
    expect(record).toMatchObject({
      verdict: 'gate_tampered',
      commit: null,
      tampered: ['.ralph/validate.sh'],
    });
    expect(commits(dir)).toBe(1);
    expect(git(dir, 'ls-files', '-s', '.ralph/validate.sh')).toMatch(/^100755 /);
    expect(markedProcesses(dir)).toEqual([]);
  });

  it('a protected script replaced by a symlink to an agent file with the same content is gate_tampered', async () => {
    const check = 'test -f never-exists\n';
    const dir = project(
      'gates:\n  tests:\n    command: "sh tests/check.sh"\n',
      [
        '  - do:',
        `      - write: { path: mine.sh, content: ${JSON.stringify(check)} }`,
        '      - run: "rm tests/check.sh && ln -s ../mine.sh tests/check.sh"',
        '      - print: LOOP_COMPLETE',
      ],
      { 'tests/check.sh': check },
      [],
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).not.toBe(0);
    const [record] = readRecords(dir);
    expect(record).toMatchObject({ verdict: 'gate_tampered', commit: null, tampered: ['tests/check.sh'] });
    // The agent's symlink is back in the tree after the gates ran from the protected file.
    expect(lstatSync(join(dir, 'tests/check.sh')).isSymbolicLink()).toBe(true);
    expect(commits(dir)).toBe(1);
    expect(markedProcesses(dir)).toEqual([]);
  });

  it.each([
    ['moved away', 'mv tests moved'],
    [
      'replaced by a link to a directory outside the workspace',
      'mv tests ../outside && ln -s ../outside tests',
    ],
  ])(
    'a protected script whose directory is %s is gate_tampered, not an error stop, and Ralph writes nothing there',
    async (_, move) => {
      const dir = project(
        'gates:\n  tests:\n    command: "sh tests/check.sh"\n',
        ['  - do:', `      - run: "${move}"`, '      - print: LOOP_COMPLETE'],
        { 'tests/check.sh': 'test -f never-exists\n' },
        [],
      );
      const r = await runRalph(['run'], dir);
      expect(r.stderr).not.toContain('cannot write');
      const [record] = readRecords(dir);
      expect(record).toMatchObject({ verdict: 'gate_tampered', commit: null, tampered: ['tests/check.sh'] });
      expect(readState(dir).stop_reason).not.toBe('error');
      expect(existsSync(join(dir, '..', 'outside', 'check.sh'))).toBe(move.includes('outside'));
      expect(markedProcesses(dir)).toEqual([]);
    },
  );

  it('a protected script replaced by a directory is gate_tampered, not a crash', async () => {
    const dir = project(
      'gates:\n  tests:\n    command: "sh tests/check.sh"\n',
      ['  - do:', '      - run: "rm tests/check.sh && mkdir tests/check.sh"', '      - print: LOOP_COMPLETE'],
      { 'tests/check.sh': 'test -f never-exists\n' },
      [],
    );
    const r = await runRalph(['run'], dir);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const [record] = readRecords(dir);
    expect(record).toMatchObject({ verdict: 'gate_tampered', commit: null, tampered: ['tests/check.sh'] });
    expect(lstatSync(join(dir, 'tests/check.sh')).isDirectory()).toBe(true);
    expect(markedProcesses(dir)).toEqual([]);
  });
});

describe('the swap journal (.ralph/protected/swap.json) written by the agent', () => {
  it('a forged journal putting back "exit 0" over the tests script: the next run refuses the iteration, tests/check.sh named', async () => {
    const dir = project(
      'gates:\n  tests:\n    command: "sh tests/check.sh"\n',
      [],
      { 'tests/check.sh': 'test -f never-exists\n' },
      [],
    );
    const journal = JSON.stringify({
      files: [
        { path: join(dir, 'tests/check.sh'), agent_content: Buffer.from('exit 0\n').toString('base64') },
      ],
    });
    const turns = [
      '  - when: { file_missing: .ralph/protected/swap.json }',
      '    do:',
      '      - write: { path: work.txt, content: "work\\n" }',
      `      - write: { path: .ralph/protected/swap.json, content: ${JSON.stringify(journal)} }`,
      '  - do:',
      '      - append: { path: work.txt, content: "more\\n" }',
      '      - print: LOOP_COMPLETE',
    ];
    writeFileSync(join(dir, 'fake-agent.yml'), ['turns:', ...turns].join('\n'));
    git(dir, 'commit', '-qam', "the agent's script");
    await runRalph(['run'], dir);
    const second = await runRalph(['run', '--max-iterations', '2'], dir);
    expect(second.code).not.toBe(0);
    const records = readRecords(dir);
    const last = records.at(-1);
    expect(last).toMatchObject({ verdict: 'gate_tampered', commit: null, tampered: ['tests/check.sh'] });
    expect(records.every((rec) => rec.verdict !== 'complete')).toBe(true);
    // What git holds is the user's script: no commit carries the agent's version.
    expect(git(dir, 'show', 'HEAD:tests/check.sh')).toBe('test -f never-exists\n');
    expect(readFileSync(join(dir, 'tests/check.sh'), 'utf8')).toBe('exit 0\n');
    expect(markedProcesses(dir)).toEqual([]);
  });

  it('a journal naming a file outside the workspace: the run stops saying so, nothing is written there', async () => {
    const dir = project('', [], {}, []);
    const outside = join(dir, '..', 'outside.txt');
    const journal = JSON.stringify({
      files: [{ path: outside, agent_content: Buffer.from('planted\n').toString('base64') }],
    });
    const turns = [
      '  - when: { file_missing: .ralph/protected/swap.json }',
      '    do:',
      '      - write: { path: work.txt, content: "work\\n" }',
      `      - write: { path: .ralph/protected/swap.json, content: ${JSON.stringify(journal)} }`,
    ];
    writeFileSync(join(dir, 'fake-agent.yml'), ['turns:', ...turns].join('\n'));
    git(dir, 'commit', '-qam', "the agent's script");
    await runRalph(['run'], dir);
    const second = await runRalph(['run'], dir);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('which is not a file of the work tree');
    expect(second.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(outside)).toBe(false);
    expect(markedProcesses(dir)).toEqual([]);
  });
});
