import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { runLoopIn } from '../helpers/library-loop.ts';
import { fakeConfig, makeWorkspace } from '../helpers/workspace.ts';

// Issue 33, item 8: the loop cleaned every agent file of secrets twice an iteration, changed or
// not; a 50 kB memories file cost a full redaction scan per look. Counted, not timed.

/** The texts the run's redactor was given (every run of this file builds its redactor here). */
const scanned: string[] = [];
vi.mock('../../src/engine/context/run-redactor.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/engine/context/run-redactor.ts')>();
  return {
    ...actual,
    runRedactor: (...args: Parameters<typeof actual.runRedactor>) => {
      const redact = actual.runRedactor(...args);
      return (text: string) => {
        scanned.push(text);
        return redact(text);
      };
    },
  };
});

const SECRET = 'acme-Zq8vR2pL9xW4tY7u-scan';

/**
 * Puts the clock well past the racy window: every file the test and its agent write counts as
 * settled, so only the stat key (its change time) tells an edit.
 */
function settle(): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
}

afterEach(() => {
  vi.useRealTimers();
  scanned.length = 0;
});

/** The run's environment: the secret, and user files in a temp dir. */
function runEnv(): NodeJS.ProcessEnv {
  const home = makeWorkspace();
  return { ...process.env, HOME: home, XDG_DATA_HOME: join(home, 'data'), ACME_CLOUD_API_KEY: SECRET };
}

describe('the agent files are scanned for secrets only when they changed', () => {
  it('an unchanged 50 kB memories file is scanned once over 5 iterations (2 looks each)', async () => {
    const memories = `# Memories\n${'- a clean note about the build\n'.repeat(1700)}`;
    expect(memories.length).toBeGreaterThan(50_000);
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 5 }),
      '.ralph/agent/memories.md': memories,
      'fake-agent.yml': ['turns:', '  - do:', '      - append: { path: log.txt, content: "x\\n" }'].join(
        '\n',
      ),
    });
    settle();
    const result = await runLoopIn(dir, { env: runEnv() });
    expect(result.stopReason).toBe('max_iterations');
    expect(scanned.filter((t) => t === memories)).toHaveLength(1);
  });

  it('a secret in memories of the clean size and mtime, in tasks renamed over, in a new scratchpad: cleaned before the commit', async () => {
    const agent = '.ralph/agent';
    // Memories in place (same inode), tasks by a rename over them, both the same size with the
    // times put back: only the change time moves. The scratchpad appears in the last turn.
    const write = (secret: boolean) =>
      [
        "const fs = require('fs');",
        `fs.mkdirSync('${agent}', { recursive: true });`,
        'const key = process.env.ACME_CLOUD_API_KEY;',
        `const note = ${secret} ? key : 'x'.repeat(key.length);`,
        'const pin = (f) => fs.utimesSync(f, 1700000000, 1700000000);',
        `fs.writeFileSync('${agent}/memories.md', '# Memories\\n- deploy key ' + note + '\\n');`,
        `pin('${agent}/memories.md');`,
        `fs.writeFileSync('${agent}/tasks.new', JSON.stringify({ title: 'rotate ' + note }) + '\\n');`,
        `pin('${agent}/tasks.new');`,
        `fs.renameSync('${agent}/tasks.new', '${agent}/tasks.jsonl');`,
        `if (${secret}) fs.writeFileSync('${agent}/scratchpad.md', 'note: ' + key + '\\n');`,
      ].join('\n');
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
      'ralph.yml': `${fakeConfig({ max_iterations: 3 })}git:\n  commit: true\n`,
      'clean.js': write(false),
      'secret.js': write(true),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - run: node clean.js',
        '      - write: { path: one.txt, content: "1\\n" }',
        '  - when: { iteration: 2 }',
        '    do:',
        '      - write: { path: two.txt, content: "2\\n" }',
        '  - do:',
        '      - run: node secret.js',
        '      - write: { path: three.txt, content: "3\\n" }',
      ].join('\n'),
    });
    const start = git(dir, 'rev-parse', 'HEAD').trim();
    settle();
    const result = await runLoopIn(dir, { env: runEnv() });
    expect(result.stopReason).toBe('max_iterations');
    // Not vacuous: the clean version was found clean once and not scanned again in iteration 2.
    const clean = `# Memories\n- deploy key ${'x'.repeat(SECRET.length)}\n`;
    expect(scanned.filter((t) => t === clean)).toHaveLength(1);
    const read = (name: string) => readFileSync(join(dir, agent, name), 'utf8');
    expect(read('memories.md')).toBe('# Memories\n- deploy key [redacted]\n');
    expect(read('tasks.jsonl')).toBe('{"title":"rotate [redacted]"}\n');
    expect(read('scratchpad.md')).toBe('note: [redacted]\n');
    const history = git(dir, 'log', '-p', '--all', `^${start}`);
    expect(history).toContain('deploy key [redacted]');
    expect(history).not.toContain(SECRET);
  });
});
