import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// A beads export as bd keeps it in git: an epic, two children (one blocking the other), a stray issue.
const line = (o: Record<string, unknown>) =>
  JSON.stringify({
    status: 'open',
    priority: 2,
    issue_type: 'task',
    created_at: '2026-11-01T10:00:00Z',
    ...o,
  });
const EXPORT = `${[
  line({ id: 'shop-a1', title: 'Cart', issue_type: 'epic' }),
  line({ id: 'shop-a1.1', title: 'Add to cart', priority: 1, description: 'A button.' }),
  line({
    id: 'shop-a1.2',
    title: 'Cart total',
    dependencies: [{ issue_id: 'shop-a1.2', depends_on_id: 'shop-a1.1', type: 'blocks' }],
  }),
  line({ id: 'shop-z9', title: 'Unrelated' }),
].join('\n')}\n`;

const project = (beads = '  beads:\n    epic: shop-a1\n') =>
  makeWorkspace({
    'ralph.yml': `cli:\n  backend: custom\n  command: "true"\ntasks:\n  source: beads\n${beads}`,
    'PROMPT.md': 'Work through the epic.\n',
    '.beads/issues.jsonl': EXPORT,
  });

const tools = async (dir: string, args: string[]) => {
  const r = await runCliInMemory(['tools', 'task', ...args], { cwd: dir });
  return { ...r, json: () => JSON.parse(r.stdout) };
};
const ids = (r: { json: () => Array<{ id: string }> }) => r.json().map((t) => t.id);

describe('tasks.source: beads', () => {
  it("lists the epic's children as tasks, the unblocked one ready", async () => {
    const dir = project();
    const list = await tools(dir, ['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/shop-a1\.1\s+open\s+2\s+Add to cart/);
    expect(list.stdout).not.toContain('shop-z9');
    expect(list.stdout).not.toMatch(/shop-a1\s/);
    expect(ids(await tools(dir, ['ready', '--json']))).toEqual(['shop-a1.1']);
    expect((await tools(dir, ['show', 'shop-a1.1'])).stdout).toContain('A button.');
  });

  it('start, close and reopen write the status into the export; fail is refused', async () => {
    const dir = project();
    expect((await tools(dir, ['start', 'shop-a1.1'])).stdout.trim()).toBe('shop-a1.1 in_progress');
    expect((await tools(dir, ['close', 'shop-a1.1'])).stdout.trim()).toBe('shop-a1.1 closed');
    const lines = readFileSync(join(dir, '.beads/issues.jsonl'), 'utf8').split('\n');
    expect(JSON.parse(lines[1] as string)).toMatchObject({ id: 'shop-a1.1', status: 'closed' });
    expect(lines.filter((l, n) => l !== EXPORT.split('\n')[n])).toHaveLength(1);
    expect(ids(await tools(dir, ['ready', '--json']))).toEqual(['shop-a1.2']);
    const fail = await tools(dir, ['fail', 'shop-a1.2']);
    expect(fail.code).not.toBe(0);
    expect(fail.stderr).toContain('beads has no failed status');
    expect((await tools(dir, ['reopen', 'shop-a1.1'])).stdout.trim()).toBe('shop-a1.1 open');
  });

  it('the first prompt shows the ready issue like a task', async () => {
    const r = await runCliInMemory(['run', '--dry-run'], { cwd: project() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('shop-a1.1');
    expect(r.stdout).toContain('Add to cart');
  });

  it('config validate refuses tasks.beads without the beads source', async () => {
    const dir = makeWorkspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: "true"\ntasks:\n  beads:\n    epic: x\n',
      'PROMPT.md': 'Work.\n',
    });
    const r = await runCliInMemory(['config', 'validate'], { cwd: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toContain('set tasks.source: beads or remove tasks.beads');
  });

  it("a ralph.yml that cannot be read leaves the agent's own tasks working, and says so", async () => {
    const dir = project();
    const id = (await tools(dir, ['add', 'Refactor'])).stdout.trim();
    writeFileSync(join(dir, 'ralph.yml'), 'cli: [broken\n');
    const close = await tools(dir, ['close', id]);
    expect(close.code).toBe(0);
    expect(close.stdout.trim()).toBe(`${id} closed`);
    expect(close.stderr).toMatch(/only .*tasks\.jsonl is read: the config could not be/);
    const list = await tools(dir, ['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id);
    // Named with -c, a broken config is the error it is.
    expect((await tools(dir, ['list', '-c', 'ralph.yml'])).code).not.toBe(0);
  });
});
