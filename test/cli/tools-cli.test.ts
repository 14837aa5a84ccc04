import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

/** Runs `ralph tools …` and expects success; returns stdout. */
async function tools(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await runCliInMemory(['tools', ...args], { cwd: dir, env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

describe('ralph tools task', () => {
  it('adds, lists, starts, closes and unblocks tasks', async () => {
    const dir = makeWorkspace();
    const env = { RALPH_RUN_ID: 'run-e2e' };
    const a = (await tools(dir, ['task', 'add', 'Write the parser', '-p', '2', '-d', 'lenient'], env)).trim();
    expect(a).toMatch(/^task-[0-9a-f]{8}$/);
    const b = JSON.parse(
      await tools(dir, ['task', 'add', 'Test the parser', '--blocked-by', a, '--format', 'json'], env),
    );
    expect(b).toMatchObject({ title: 'Test the parser', status: 'open', priority: 3, blocked_by: [a] });
    expect(b.loop_id).toBe('run-e2e');

    const lines = readFileSync(join(dir, '.ralph', 'agent', 'tasks.jsonl'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([a, b.id]);

    const table = await tools(dir, ['task', 'list']);
    expect(table.split('\n')[0]).toMatch(/^ID\s+STATUS\s+PRI\s+TITLE\s+BLOCKED BY$/);
    expect(table).toMatch(new RegExp(`${a}\\s+open\\s+2\\s+Write the parser`));
    expect(table).toMatch(new RegExp(`${b.id}\\s+open\\s+3\\s+Test the parser\\s+${a}`));

    const ready = async () =>
      JSON.parse(await tools(dir, ['task', 'ready', '--format', 'json'])).map((t: any) => t.id);
    expect(await ready()).toEqual([a]);
    expect((await tools(dir, ['task', 'start', a])).trim()).toBe(`${a} in_progress`);
    expect(await ready()).toEqual([]);
    expect((await tools(dir, ['task', 'close', a])).trim()).toBe(`${a} closed`);
    expect(await ready()).toEqual([b.id]);

    const open = JSON.parse(await tools(dir, ['task', 'list', '--status', 'open', '--format', 'json']));
    expect(open.map((t: any) => t.id)).toEqual([b.id]);
    const shown = await tools(dir, ['task', 'show', a]);
    expect(shown).toMatch(/^id:\s+task-/);
    expect(shown).toMatch(/status:\s+closed/);
    expect(shown).toMatch(/description:\s+lenient/);
  });

  it('--format quiet prints the ids alone, one a line, as ralph-orchestrator’s scripts read them', async () => {
    const dir = makeWorkspace();
    const q = ['--format', 'quiet'];
    const a = await tools(dir, ['task', 'ensure', 'Run baseline', '--key', 'ar:baseline', '-d', 'x', ...q]);
    expect(a).toMatch(/^task-[0-9a-f]{8}\n$/);
    const b = await tools(dir, ['task', 'add', 'Second', ...q]);
    const [idA, idB] = [a.trim(), b.trim()];
    expect(await tools(dir, ['task', 'list', ...q])).toBe(`${idA}\n${idB}\n`);
    expect(await tools(dir, ['task', 'ready', ...q])).toBe(`${idA}\n${idB}\n`);
    expect(await tools(dir, ['task', 'start', idA, ...q])).toBe(`${idA}\n`);
    expect(await tools(dir, ['task', 'show', idA, ...q])).toBe(`${idA}\n`);
    expect(await tools(dir, ['task', 'close', idA, ...q])).toBe(`${idA}\n`);
    const m = (await tools(dir, ['memory', 'add', 'use mix test', ...q])).trim();
    expect(await tools(dir, ['memory', 'list', ...q])).toBe(`${m}\n`);
    expect(await tools(dir, ['memory', 'search', 'mix', ...q])).toBe(`${m}\n`);
  });

  it('ensure is idempotent by key; fail records a reason; reopen clears it', async () => {
    const dir = makeWorkspace();
    const first = (await tools(dir, ['task', 'ensure', 'build', 'Build it'])).trim();
    expect((await tools(dir, ['task', 'ensure', 'build', 'Build it again'])).trim()).toBe(first);
    const failed = JSON.parse(
      await tools(dir, ['task', 'fail', first, '--reason', 'compiler crashed', '--format', 'json']),
    );
    expect(failed).toMatchObject({ id: first, status: 'failed', reason: 'compiler crashed', key: 'build' });
    expect((await tools(dir, ['task', 'reopen', first])).trim()).toBe(`${first} open`);
    const shown = JSON.parse(await tools(dir, ['task', 'show', first, '--format', 'json']));
    expect(shown.reason).toBeUndefined();
    expect(JSON.parse(await tools(dir, ['task', 'list', '--format', 'json']))).toHaveLength(1);
  });

  it('uses RALPH_WORKSPACE_ROOT over the current directory', async () => {
    const root = makeWorkspace();
    const elsewhere = makeWorkspace();
    const id = (await tools(elsewhere, ['task', 'add', 'Rooted'], { RALPH_WORKSPACE_ROOT: root })).trim();
    expect(readFileSync(join(root, '.ralph', 'agent', 'tasks.jsonl'), 'utf8')).toContain(id);
    expect(existsSync(join(elsewhere, '.ralph'))).toBe(false);
  });

  it('list says which lines of tasks.jsonl it skipped (a torn write), and keeps them', async () => {
    const good = JSON.stringify({
      id: 't-1',
      title: 'Parse',
      status: 'open',
      priority: 3,
      blocked_by: [],
      created: '',
    });
    const dir = makeWorkspace({ '.ralph/agent/tasks.jsonl': `${good}\n{"id":"t-2","tit\n` });
    const r = await runCliInMemory(['tools', 'task', 'list'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Parse');
    expect(r.stderr).toContain('skipped 1 line(s) of');
    expect(r.stderr).toContain('(line 2)');
    expect(readFileSync(join(dir, '.ralph', 'agent', 'tasks.jsonl'), 'utf8')).toContain('{"id":"t-2","tit');
  });

  it('prints "no tasks" and [] for an empty list', async () => {
    const dir = makeWorkspace();
    expect(await tools(dir, ['task', 'list'])).toBe('no tasks\n');
    expect(JSON.parse(await tools(dir, ['task', 'ready', '--format', 'json']))).toEqual([]);
  });

  it('rejects bad input with exit 1 and a message that says what to do', async () => {
    const dir = makeWorkspace();
    const badPriority = await runCliInMemory(['tools', 'task', 'add', 'x', '-p', '9'], { cwd: dir });
    expect(badPriority.code).toBe(1);
    expect(badPriority.stderr).toContain('priority must be a whole number from 1 (most urgent) to 5');
    const badBlocker = await runCliInMemory(['tools', 'task', 'add', 'x', '--blocked-by', 'task-12345678'], {
      cwd: dir,
    });
    expect(badBlocker.code).toBe(1);
    expect(badBlocker.stderr).toContain('unknown task task-12345678');
    const unknown = await runCliInMemory(['tools', 'task', 'close', 'task-deadbeef'], { cwd: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('ralph tools task list');
    const badFormat = await runCliInMemory(['tools', 'task', 'list', '--format', 'xml'], { cwd: dir });
    expect(badFormat.code).toBe(1);
    expect(badFormat.stderr).toMatch(/xml/);
  });
});

describe('ralph tools memory', () => {
  it('adds, lists, searches, primes and deletes memories', async () => {
    const dir = makeWorkspace();
    const p = (await tools(dir, ['memory', 'add', 'Uses barrel exports', '--tags', 'structure'])).trim();
    expect(p).toMatch(/^mem-\d+-[0-9a-f]{4}$/);
    const f = JSON.parse(
      await tools(dir, [
        'memory',
        'add',
        'ECONNREFUSED: start postgres',
        '-t',
        'fix',
        '--tags',
        'db,docker',
        '--format',
        'json',
      ]),
    );
    expect(f).toMatchObject({ type: 'fix', content: 'ECONNREFUSED: start postgres', tags: ['db', 'docker'] });

    const file = readFileSync(join(dir, '.ralph', 'agent', 'memories.md'), 'utf8');
    expect(file).toMatch(/^# Memories\n/);
    expect(file).toContain(
      `## Patterns\n\n### ${p}\n> Uses barrel exports\n<!-- tags: structure | created: `,
    );
    expect(file).toContain(
      `## Fixes\n\n### ${f.id}\n> ECONNREFUSED: start postgres\n<!-- tags: db, docker | created: `,
    );

    const list = await tools(dir, ['memory', 'list']);
    expect(list.split('\n')[0]).toMatch(/^ID\s+TYPE\s+TAGS\s+CREATED\s+CONTENT$/);
    expect(list).toContain('Uses barrel exports');
    const fixes = JSON.parse(await tools(dir, ['memory', 'list', '--type', 'fix', '--format', 'json']));
    expect(fixes.map((m: any) => m.id)).toEqual([f.id]);
    const found = JSON.parse(await tools(dir, ['memory', 'search', 'postgres', '--format', 'json']));
    expect(found.map((m: any) => m.id)).toEqual([f.id]);
    const byTag = JSON.parse(
      await tools(dir, ['memory', 'search', '', '--tags', 'structure', '--format', 'json']),
    );
    expect(byTag.map((m: any) => m.id)).toEqual([p]);
    expect(await tools(dir, ['memory', 'search', 'nothing-like-this'])).toBe('no matching memories\n');

    const prime = await tools(dir, ['memory', 'prime']);
    expect(prime).toMatch(/^# Memories\n\n## Patterns\n/);
    expect(prime).toContain('Uses barrel exports');
    expect(prime).toContain('ECONNREFUSED');
    const small = await tools(dir, ['memory', 'prime', '--budget', '45']);
    expect(small.length).toBeLessThanOrEqual(180);
    expect(small).toContain(f.id); // the newest one fits
    expect(small).not.toContain(p);

    expect((await tools(dir, ['memory', 'delete', p])).trim()).toBe(`deleted ${p}`);
    expect(
      JSON.parse(await tools(dir, ['memory', 'list', '--format', 'json'])).map((m: any) => m.id),
    ).toEqual([f.id]);
  });

  it('rejects an unknown type and an unknown id with exit 1', async () => {
    const dir = makeWorkspace();
    const badType = await runCliInMemory(['tools', 'memory', 'add', 'x', '-t', 'idea'], { cwd: dir });
    expect(badType.code).toBe(1);
    expect(badType.stderr).toMatch(/idea/);
    const missing = await runCliInMemory(['tools', 'memory', 'delete', 'mem-1-abcd'], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no memory "mem-1-abcd"');
    const badBudget = await runCliInMemory(['tools', 'memory', 'prime', '--budget', 'lots'], { cwd: dir });
    expect(badBudget.code).toBe(1);
  });
});
