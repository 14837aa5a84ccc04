import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/state/io/file-lock.ts';
import { readMemories } from '../../src/state/memories/memories-file.ts';
import { readTasks } from '../../src/state/tasks/task-file.ts';
import { waitFor } from '../helpers/wait.ts';
import { makeWorkspace, ROOT } from '../helpers/workspace.ts';

const DIST = join(ROOT, 'dist', 'state');

beforeAll(() => {
  if (!existsSync(join(DIST, 'tasks', 'task-changes.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
});

/** Runs `code` (an ES module body; `mod` is the imported dist module) in a child node process. */
function runChild(
  module: string,
  code: string,
  args: string[],
): Promise<{ code: number | null; stderr: string }> {
  const url = pathToFileURL(join(DIST, module)).href;
  const script = `const mod = await import(${JSON.stringify(url)});\nconst args = process.argv.slice(1);\n${code}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  return new Promise((resolve) => child.on('close', (c) => resolve({ code: c, stderr })));
}

async function all(runs: Promise<{ code: number | null; stderr: string }>[]): Promise<void> {
  for (const r of await Promise.all(runs)) expect(r, r.stderr).toMatchObject({ code: 0 });
}

/** Files in `dir` besides `keep`: stray locks or temp files would show up here. */
function leftovers(dir: string, keep: string): string[] {
  return readdirSync(dir).filter((f) => f !== keep);
}

describe('concurrent writers lose no updates', () => {
  it('8 processes adding 10 tasks each leave 80 tasks', async () => {
    const dir = join(makeWorkspace(), '.ralph', 'agent');
    const file = join(dir, 'tasks.jsonl');
    const code = `for (let i = 0; i < 10; i++) mod.addTask(args[0], { title: args[1] + '-' + i, priority: 1 + (i % 5) });`;
    await all(
      Array.from({ length: 8 }, (_, p) => runChild('tasks/task-changes.js', code, [file, `writer${p}`])),
    );
    const tasks = readTasks(file);
    expect(tasks).toHaveLength(80);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(80);
    expect(new Set(tasks.map((t) => t.title)).size).toBe(80);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(80);
    for (const line of lines) JSON.parse(line);
    expect(leftovers(dir, 'tasks.jsonl')).toEqual([]);
  });

  it('concurrent updates of different tasks all land', async () => {
    const dir = join(makeWorkspace(), '.ralph', 'agent');
    const file = join(dir, 'tasks.jsonl');
    // Each writer adds its own tasks, then starts and closes them while the others do the same.
    const code = `
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(mod.addTask(args[0], { title: args[1] + i }).id);
      for (const id of ids) { mod.startTask(args[0], id); mod.closeTask(args[0], id); }
      mod.ensureTask(args[0], 'shared', { title: 'only once' });`;
    await all(Array.from({ length: 8 }, (_, p) => runChild('tasks/task-changes.js', code, [file, `w${p}-`])));
    const tasks = readTasks(file);
    expect(tasks).toHaveLength(41);
    expect(tasks.filter((t) => t.key === 'shared')).toHaveLength(1);
    expect(tasks.filter((t) => t.status === 'closed')).toHaveLength(40);
    expect(leftovers(dir, 'tasks.jsonl')).toEqual([]);
  });

  it('8 processes adding 10 memories each leave 80 memories', async () => {
    const dir = join(makeWorkspace(), '.ralph', 'agent');
    const file = join(dir, 'memories.md');
    const code = `
      const types = ['pattern', 'decision', 'fix', 'context'];
      for (let i = 0; i < 10; i++) mod.addMemory(args[0], { content: args[1] + ' ' + i, type: types[i % 4], tags: [args[1]] });`;
    await all(
      Array.from({ length: 8 }, (_, p) => runChild('memories/memories-file.js', code, [file, `writer${p}`])),
    );
    const entries = readMemories(file);
    expect(entries).toHaveLength(80);
    expect(new Set(entries.map((e) => e.id)).size).toBe(80);
    expect(new Set(entries.map((e) => e.content)).size).toBe(80);
    expect(leftovers(dir, 'memories.md')).toEqual([]);
  });
});

describe('withFileLock', () => {
  const deadPid = () =>
    Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString(),
    );

  it('takes over a lock left by a dead process', () => {
    const file = join(makeWorkspace(), 'data.txt');
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'dead' }));
    expect(withFileLock(file, () => 'ran', { timeoutMs: 1000 })).toBe('ran');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('waits for a live holder, then times out naming it; a lock older than staleMs is taken over', () => {
    const file = join(makeWorkspace(), 'data.txt');
    // pid 1 is alive (and not ours), so only age can make this lock stale.
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: 1, host: hostname(), token: 'init' }));
    const started = Date.now();
    expect(() => withFileLock(file, () => 'ran', { timeoutMs: 300 })).toThrow(
      /timed out after 0.3 s waiting for .*data\.txt\.lock \(held by pid 1 on .*\); retry, or delete the lock file/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    expect(withFileLock(file, () => 'ran', { timeoutMs: 300 })).toBe('ran');
  });

  it('takes over an empty lock only after its grace period', () => {
    const file = join(makeWorkspace(), 'data.txt');
    writeFileSync(`${file}.lock`, '');
    expect(() => withFileLock(file, () => 'ran', { timeoutMs: 200 })).toThrow(/timed out/);
    const old = new Date(Date.now() - 5000);
    utimesSync(`${file}.lock`, old, old);
    expect(withFileLock(file, () => 'ran', { timeoutMs: 200 })).toBe('ran');
  });

  it('runs a nested call on the same file inline and releases only its own lock', () => {
    const file = join(makeWorkspace(), 'data.txt');
    const result = withFileLock(file, () => withFileLock(file, () => 42));
    expect(result).toBe(42);
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(() =>
      withFileLock(file, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('serialises with a holder in another process', async () => {
    const dir = makeWorkspace();
    const file = join(dir, 'data.txt');
    mkdirSync(dir, { recursive: true });
    const holding = join(dir, 'holding');
    const code = `
      const { writeFileSync } = await import('node:fs');
      mod.withFileLock(args[0], () => {
        writeFileSync(args[1], '');
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
        writeFileSync(args[0], 'child');
      });`;
    const child = runChild('io/file-lock.js', code, [file, holding]);
    await waitFor(() => existsSync(holding), 5000, 'the child holding the lock');
    const seen = withFileLock(file, () => readFileSync(file, 'utf8'));
    expect(seen).toBe('child');
    await all([child]);
  });
});
