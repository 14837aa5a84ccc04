import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { makeGitWorkspace } from './git-workspace.ts';
import { markedProcesses } from './marked-processes.ts';
import { fakeConfig, readRecords, runRalph } from './workspace.ts';

// Issue 32's adversarial e2e tests: the scripted agent plants a program git would run; each planted
// program logs its name to .git/attack-ran when it runs, so a test can show it never ran in Ralph's
// own git calls (and, with plain git afterwards, that the plant was live).

export const ATTACK_LOG = '.git/attack-ran';

/** A shell script whose first act is to log `name` to ATTACK_LOG (found from any directory of the repository). */
export function attackScript(name: string, body: string): string {
  return `#!/bin/sh\necho ${name} >> "$(git rev-parse --git-common-dir)/attack-ran"\n${body}\n`;
}

/** Fake-agent steps that write an executable attack script at `path`. */
export function plant(path: string, name: string, body: string): string[] {
  return [
    `      - write: { path: ${path}, content: ${JSON.stringify(attackScript(name, body))} }`,
    `      - run: "chmod +x ${path}"`,
  ];
}

/** The honest part of every attack: a real change, and the claim of being done. */
export const WORK = ['      - write: { path: ok.txt, content: "fine\\n" }', '      - print: LOOP_COMPLETE'];

/** A committed project whose one iteration runs `steps`; `extra` is more ralph.yml. */
export function project(steps: string[], extra = '', files: Record<string, string> = {}): string {
  return makeGitWorkspace({
    'PROMPT.md': 'work\n',
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'ralph.yml': `${fakeConfig({ max_iterations: 1 })}${extra}`,
    'fake-agent.yml': ['turns:', '  - do:', ...steps, ...WORK].join('\n'),
    ...files,
  });
}

/** The names ATTACK_LOG holds: every planted program that ran, in order. */
export const attacksRan = (dir: string): string[] =>
  existsSync(join(dir, ATTACK_LOG)) ? readFileSync(join(dir, ATTACK_LOG), 'utf8').trim().split('\n') : [];

/** `run:` step of the fake agent (sh -c in the workspace; a failing command fails the agent). */
export const sh = (command: string): string => `run: ${JSON.stringify(command)}`;

/** Runs the loop once and returns its only iteration record (no stack trace, no process of the run left behind). */
export async function attack(dir: string): Promise<Record<string, any>> {
  const r = await runRalph(['run'], dir);
  expect(r.stderr).not.toMatch(/\n\s+at /); // never a stack trace
  expect(markedProcesses(dir)).toEqual([]);
  const records = readRecords(dir);
  expect(records, r.stdout + r.stderr).toHaveLength(1);
  return records[0] as Record<string, any>;
}
