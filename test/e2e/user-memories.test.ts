import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeGitWorkspace } from '../helpers/git-workspace.ts';
import { fakeConfig, removeWhenDone, runRalph } from '../helpers/workspace.ts';

const SAVE_PROMPT = 'turns:\n  - do: [{ save_prompt: got-1.md }]\n';
const project = () =>
  makeGitWorkspace({
    'PROMPT.md': 'Do the work.\n',
    'ralph.yml': fakeConfig({ max_iterations: 1 }),
    'fake-agent.yml': SAVE_PROMPT,
  });

/** A user data directory of its own ($XDG_DATA_HOME), so the tests share no user memories. */
const userEnv = () => ({ XDG_DATA_HOME: removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-data-'))) });

async function ralph(args: string[], dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const r = await runRalph(args, dir, env);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

describe('memories with scope: user ($XDG_DATA_HOME/ralph/memories.md)', () => {
  it("a memory promoted in project A is in project B's first prompt, byte for byte what the agent gets", async () => {
    const env = userEnv();
    const a = project();
    const b = project();
    await ralph(['tools', 'memory', 'add', 'only in project A', '--type', 'context'], a, env);
    const id = (
      await ralph(
        ['tools', 'memory', 'add', 'pnpm, never npm', '--type', 'decision', '--tags', 'tooling'],
        a,
        env,
      )
    ).trim();
    expect(await ralph(['tools', 'memory', 'promote', id], a, env)).toContain(`promoted ${id}`);

    // Moved, not copied: A keeps only its own memory; the user's file holds the promoted one as it was.
    expect(readFileSync(join(a, '.ralph', 'agent', 'memories.md'), 'utf8')).not.toContain('pnpm');
    const userFile = readFileSync(join(env.XDG_DATA_HOME, 'ralph', 'memories.md'), 'utf8');
    expect(userFile).toContain(`### ${id}\n> pnpm, never npm\n<!-- tags: tooling | created: `);
    expect(await ralph(['tools', 'memory', 'list', '--scope', 'user'], b, env)).toContain(id);

    const dry = await ralph(['run', '--dry-run'], b, env);
    const printed = /# first prompt \([^\n]*\)\n([\s\S]*)\n# agent command/.exec(dry)?.[1] ?? '';
    expect(printed).toContain(`# Memories across projects\n\n## Decisions\n\n### ${id}\n> pnpm, never npm`);
    expect(printed).not.toContain('only in project A');
    const run = await runRalph(['run', '--no-tui'], b, env);
    expect(run.code, run.stderr).toBe(2); // max_iterations reached
    expect(readFileSync(join(b, 'got-1.md'), 'utf8')).toBe(printed);

    // Another machine user (another XDG_DATA_HOME) does not get it.
    const other = await ralph(['run', '--dry-run'], b, userEnv());
    expect(other).not.toContain('pnpm, never npm');
  });

  it('refuses a duplicate and an unknown id; promotes from two projects at once without losing either', async () => {
    const env = userEnv();
    const a = project();
    const b = project();
    const first = (await ralph(['tools', 'memory', 'add', 'Run the linter first'], a, env)).trim();
    await ralph(['tools', 'memory', 'promote', first], a, env);
    const again = (await ralph(['tools', 'memory', 'add', 'run the linter first'], b, env)).trim();
    const dup = await runRalph(['tools', 'memory', 'promote', again], b, env);
    expect(dup.code).not.toBe(0);
    expect(dup.stderr).toContain(`already holds this memory as ${first}`);
    expect(readFileSync(join(b, '.ralph', 'agent', 'memories.md'), 'utf8')).toContain(again);
    const missing = await runRalph(['tools', 'memory', 'promote', 'mem-0-none'], b, env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('no memory "mem-0-none"');

    const ids = await Promise.all(
      [a, b].map(async (dir, i) => ({
        dir,
        id: (await ralph(['tools', 'memory', 'add', `lesson ${i}`], dir, env)).trim(),
      })),
    );
    await Promise.all(ids.map(({ dir, id }) => ralph(['tools', 'memory', 'promote', id], dir, env)));
    const user = readFileSync(join(env.XDG_DATA_HOME, 'ralph', 'memories.md'), 'utf8');
    for (const { id } of ids) expect(user).toContain(`### ${id}`);
    expect(user).toContain(`### ${first}`);
  });
});
