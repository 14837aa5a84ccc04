import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// Issue 36: `--json` on every command a script reads, one flag, snake_case keys.

const YML = 'event_loop:\n  prompt: go\ncli:\n  backend: custom\n  command: /bin/true\n';

describe('--json on the commands scripts read', () => {
  it('config validate --json: the verdict and each problem located, in both outcomes', async () => {
    const ok = makeWorkspace({ 'ralph.yml': YML });
    const valid = await runCliInMemory(['config', 'validate', '--json', '--schema-only'], { cwd: ok });
    expect(valid.code, valid.stderr).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ valid: true, backend: 'custom', hats: 0, warnings: [] });
    const bad = makeWorkspace({ 'ralph.yml': `${YML}  max_iteratons: 3\n` });
    const invalid = await runCliInMemory(['config', 'validate', '--json'], { cwd: bad });
    expect(invalid.code).toBe(1);
    const report = JSON.parse(invalid.stdout);
    expect(report.valid).toBe(false);
    expect(report.errors[0]).toMatchObject({ line: 6, key: 'cli.max_iteratons' });
    expect(report.errors[0].file).toMatch(/ralph\.yml$/);
  });

  it('presets --json, answer --json, events --json and tools … --json', async () => {
    const dir = makeWorkspace({
      'ralph.yml': YML,
      '.ralph/current-events': '.ralph/events-1.jsonl',
      '.ralph/events-1.jsonl': '{"topic":"work.done","payload":"x","ts":"2026-11-29T00:00:00Z"}\n',
    });
    const presets = JSON.parse((await runCliInMemory(['presets', '--json'], { cwd: dir })).stdout);
    expect(presets.map((p: { name: string }) => p.name)).toContain('solo');
    expect(JSON.parse((await runCliInMemory(['answer', '--json'], { cwd: dir })).stdout)).toEqual([]);
    const add = await runCliInMemory(['tools', 'task', 'add', 'write the parser', '--json'], { cwd: dir });
    expect(JSON.parse(add.stdout)).toMatchObject({ title: 'write the parser', status: 'open' });
    const list = await runCliInMemory(['tools', 'task', 'list', '--json'], { cwd: dir });
    expect(JSON.parse(list.stdout)).toHaveLength(1);
    const events = await runCliInMemory(['events', '--json'], { cwd: dir });
    expect(events.code, events.stderr).toBe(0);
    expect(JSON.parse(events.stdout)).toMatchObject([{ topic: 'work.done' }]);
  });
});
