import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// A snarktank/ralph PRD, written in its documented layout (userStories[] with passes flags).
const PRD = `${JSON.stringify(
  {
    project: 'Todo',
    branchName: 'ralph/todo',
    description: 'A todo list',
    userStories: [
      {
        id: 'US-002',
        title: 'List todos',
        description: 'As a user I see my todos.',
        acceptanceCriteria: ['Typecheck passes'],
        priority: 2,
        passes: false,
        notes: '',
      },
      {
        id: 'US-001',
        title: 'Add a todo',
        description: 'As a user I add a todo.',
        acceptanceCriteria: ['Typecheck passes'],
        priority: 1,
        passes: false,
        notes: '',
      },
    ],
  },
  null,
  2,
)}\n`;

const project = () =>
  makeWorkspace({
    'ralph.yml':
      'cli:\n  backend: custom\n  command: "true"\nevent_loop:\n  prompt_file: prompt.md\ntasks:\n  source: prd.json\n',
    'prompt.md': 'Work through the PRD.\n',
    'prd.json': PRD,
  });

const tools = async (dir: string, args: string[]) => {
  const r = await runCliInMemory(['tools', 'task', ...args], { cwd: dir });
  return { ...r, json: () => JSON.parse(r.stdout) };
};

describe('tasks.source: prd.json', () => {
  it('lists the stories as tasks, the most urgent open one ready', async () => {
    const dir = project();
    const list = await tools(dir, ['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/US-002\s+open\s+2\s+List todos/);
    expect(list.stdout).toMatch(/US-001\s+open\s+1\s+Add a todo/);
    expect((await tools(dir, ['ready', '--format', 'json'])).json().map((t: { id: string }) => t.id)).toEqual(
      ['US-001', 'US-002'],
    );
    expect((await tools(dir, ['show', 'US-001'])).stdout).toMatch(/Acceptance criteria:/);
  });

  it('task close sets passes: true in prd.json, reopen sets it back; start and fail are refused', async () => {
    const dir = project();
    const closed = await tools(dir, ['close', 'US-001']);
    expect(closed.stdout.trim()).toBe('US-001 closed');
    const doc = JSON.parse(readFileSync(join(dir, 'prd.json'), 'utf8'));
    expect(doc.userStories.map((s: { passes: boolean }) => s.passes)).toEqual([false, true]);
    expect(doc.branchName).toBe('ralph/todo');
    expect((await tools(dir, ['ready', '--format', 'json'])).json().map((t: { id: string }) => t.id)).toEqual(
      ['US-002'],
    );
    const start = await tools(dir, ['start', 'US-002']);
    expect(start.code).not.toBe(0);
    expect(start.stderr).toContain('US-002 is a story of');
    expect(start.stderr).toContain('ralph tools task close US-002');
    expect((await tools(dir, ['fail', 'US-002'])).code).not.toBe(0);
    expect((await tools(dir, ['reopen', 'US-001'])).stdout.trim()).toBe('US-001 open');
    expect(readFileSync(join(dir, 'prd.json'), 'utf8')).toBe(PRD);
  });

  it("the agent's own tasks stay in the tasks file beside the stories", async () => {
    const dir = project();
    const id = (await tools(dir, ['add', 'Refactor the store'])).stdout.trim();
    expect((await tools(dir, ['close', id])).stdout.trim()).toBe(`${id} closed`);
    expect(readFileSync(join(dir, 'prd.json'), 'utf8')).toBe(PRD);
    expect((await tools(dir, ['list'])).stdout).toMatch(new RegExp(`${id}\\s+closed`));
  });

  it('the first prompt shows the ready stories like tasks', async () => {
    const dir = project();
    const r = await runCliInMemory(['run', '--dry-run'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('US-001');
    expect(r.stdout).toContain('Add a todo');
  });

  it('a broken prd.json is one line naming the file', async () => {
    const dir = project();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'prd.json'), '{"userStories": [');
    const r = await tools(dir, ['list']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/prd\.json: not JSON/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
