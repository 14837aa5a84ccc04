import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

/** The notes in the workspace's progress file, as written. */
const notes = (dir: string) =>
  readFileSync(join(dir, '.ralph', 'control', 'progress.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));

/** An agent's environment inside iteration 3 of run r-1, with the human channel the loop set. */
const agentEnv = (channel: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  RALPH_RUN_ID: 'r-1',
  RALPH_ITERATION: '3',
  RALPH_HUMAN_CHANNEL: channel,
  ...extra,
});

const progress = (dir: string, words: string[], env: NodeJS.ProcessEnv) =>
  runCliInMemory(['tools', 'interact', 'progress', ...words], { cwd: dir, env });

describe('ralph tools interact progress', () => {
  it('inside a loop with Telegram: records the note for the loop to send, says so, exits 0 at once', async () => {
    const dir = makeWorkspace();
    const r = await progress(dir, ['Parser', 'done;', 'starting the tests'], agentEnv('telegram'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sent p-[0-9a-f]{8}: the loop passes it to the human on Telegram\n$/);
    const [note] = notes(dir);
    expect(note).toMatchObject({ text: 'Parser done; starting the tests', run_id: 'r-1', iteration: 3 });
    expect(r.stdout).toContain(note.id);
  });

  it('inside a loop with no human channel: recorded, and it says nobody is notified (exit 0)', async () => {
    const dir = makeWorkspace();
    const r = await progress(dir, ['halfway'], agentEnv('none'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^recorded p-[0-9a-f]{8} in the run log and event stream: no human channel is configured \(RObot\.enabled is false\), so nobody is notified\n$/,
    );
    expect(notes(dir)).toHaveLength(1);
  });

  it('outside a loop: recorded in the file, and it says nothing sends it (exit 0)', async () => {
    const dir = makeWorkspace();
    const r = await progress(dir, ['hello'], {
      RALPH_RUN_ID: '',
      RALPH_ITERATION: '',
      RALPH_HUMAN_CHANNEL: '',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/no loop runs this command, so nothing sends it\n$/);
    expect(notes(dir)[0]).toMatchObject({ text: 'hello', run_id: null, iteration: null });
  });

  it('writes to the loop’s workspace (RALPH_WORKSPACE_ROOT) from a subdirectory', async () => {
    const dir = makeWorkspace({ 'src/x.txt': 'x' });
    const r = await runCliInMemory(['tools', 'interact', 'progress', 'from below'], {
      cwd: join(dir, 'src'),
      env: agentEnv('none', { RALPH_WORKSPACE_ROOT: dir }),
    });
    expect(r.code).toBe(0);
    expect(notes(dir)[0].text).toBe('from below');
  });

  it('secrets of the agent’s environment and key shapes are redacted before anything is written', async () => {
    const dir = makeWorkspace();
    const secret = 'hunter2-very-secret-value';
    const key = `sk-ant-${'a'.repeat(30)}`;
    const r = await progress(
      dir,
      [`token ${secret} and ${key}`],
      agentEnv('telegram', { MY_API_KEY: secret }),
    );
    expect(r.code).toBe(0);
    const file = readFileSync(join(dir, '.ralph', 'control', 'progress.jsonl'), 'utf8');
    expect(file).not.toContain(secret);
    expect(file).not.toContain(key);
    expect(notes(dir)[0].text).toBe('token [redacted] and [redacted]');
  });

  it('a note over 2,000 characters is cut (and it says so on stderr); still exit 0', async () => {
    const dir = makeWorkspace();
    const r = await progress(dir, ['x'.repeat(5000)], agentEnv('none'));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('ralph: the note was longer than 2000 characters and was cut\n');
    const [note] = notes(dir);
    expect(note.text).toHaveLength(2000);
    expect(note.text.endsWith('…')).toBe(true);
  });

  it('an empty note is a usage error naming the command; nothing is written', async () => {
    const dir = makeWorkspace();
    const r = await progress(dir, ['  '], agentEnv('none'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the progress note is empty: ralph tools interact progress "<message>"');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, '.ralph', 'control', 'progress.jsonl'))).toBe(false);
    const missing = await runCliInMemory(['tools', 'interact', 'progress'], {
      cwd: dir,
      env: agentEnv('none'),
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("missing required argument 'message'");
  });
});
