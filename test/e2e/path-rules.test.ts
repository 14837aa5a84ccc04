import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import {
  fakeConfig,
  readRecords,
  readState,
  readStatus,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

/** A committed project whose agent runs `turns` under `rules` (docs/concepts/rollback-and-rules.md). */
function project(rules: string, turns: string[], maxIterations = 2): string {
  return makeGitWorkspace({
    'PROMPT.md': 'work\n',
    'package.json': '{ "name": "demo" }\n',
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'ralph.yml': `${fakeConfig({ max_iterations: maxIterations })}rules:\n${rules}git:\n  commit: true\n`,
    'fake-agent.yml': ['turns:', ...turns].join('\n'),
  });
}

const ADD_DEPENDENCY = [
  '  - do:',
  '      - write: { path: package.json, content: "{ \\"name\\": \\"demo\\", \\"dependencies\\": { \\"left-pad\\": \\"1\\" } }\\n" }',
  '      - print: LOOP_COMPLETE',
];

describe('rules: allow, deny, approve', () => {
  it('a denied path is rolled back with verdict rule_violation, and the next prompt names the file and the rule', async () => {
    const dir = project('  deny: ["secrets/**"]\n', [
      '  - when: { iteration: 1 }',
      '    do:',
      '      - write: { path: secrets/key, content: "hunter2\\n" }',
      '      - write: { path: ok.txt, content: "fine\\n" }',
      '      - print: LOOP_COMPLETE',
      '  - do:',
      '      - save_prompt: .ralph/p2.md',
      '      - write: { path: ok.txt, content: "fine\\n" }',
      '      - print: LOOP_COMPLETE',
    ]);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [first, second] = readRecords(dir);
    const ref = `refs/ralph/rescue/${readState(dir).run_id}/1`;
    expect(first).toMatchObject({ verdict: 'rule_violation', commit: null, rollback: { ref } });
    expect(second).toMatchObject({ verdict: 'complete' });
    expect(existsSync(join(dir, 'secrets', 'key'))).toBe(false);
    expect(git(dir, 'show', `${ref}:secrets/key`)).toBe('hunter2\n');
    expect(readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8')).toContain(
      'Iteration 1 was rolled back: rule_violation: it changed secrets/key (inside rules.deny)',
    );
  });

  it('an approve path waits for `ralph approve`, then is committed', async () => {
    const dir = project('  approve: ["package.json"]\n', ADD_DEPENDENCY, 1);
    const loop = startRalph(['run'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'waiting_for_human');
    expect(readFileSync(join(dir, '.ralph', 'control', 'questions.jsonl'), 'utf8')).toContain(
      'changed files that need a person (rules.approve): package.json',
    );
    expect((await runRalph(['approve'], dir)).code).toBe(0);
    const r = await loop.done;
    expect(r.code, r.stderr).toBe(0);
    expect(readRecords(dir)[0]).toMatchObject({ verdict: 'complete' });
    expect(git(dir, 'show', 'HEAD:package.json')).toContain('left-pad');
  });

  it('an approve path rejected is rolled back, the reason in the record', async () => {
    const dir = project('  approve: ["package.json"]\n', ADD_DEPENDENCY, 1);
    const loop = startRalph(['run'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'waiting_for_human');
    expect((await runRalph(['reject', 'no new dependencies'], dir)).code).toBe(0);
    await loop.done;
    const [record] = readRecords(dir);
    expect(record?.reason).toContain(
      'a human did not approve its change of package.json (rules.approve): no new dependencies',
    );
    expect(record?.rollback?.ref).toBe(`refs/ralph/rescue/${readState(dir).run_id}/1`);
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe('{ "name": "demo" }\n');
  });
});
