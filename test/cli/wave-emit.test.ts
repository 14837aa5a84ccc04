import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// `ralph wave emit` (docs/guide/agent-waves.md): one tagged event per payload, in one write.

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('ralph wave emit', () => {
  it('appends one event per payload, tagged with one wave id, its index and the size; prints the id', async () => {
    const dir = makeWorkspace({ 'events.jsonl': '' });
    const file = join(dir, 'events.jsonl');
    const r = await runCliInMemory(
      ['wave', 'emit', 'review.perspective', '--payloads', 'ROLE: Rust', 'ROLE: Docs'],
      {
        cwd: dir,
        env: {
          RALPH_EVENTS_FILE: file,
          RALPH_ITERATION: '4',
          RALPH_HAT: 'coordinator',
          RALPH_WAVE_WORKER: '',
        },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^w-[0-9a-f]+-\d+-[0-9a-f]+$/);
    expect(lines(file)).toEqual([
      expect.objectContaining({
        topic: 'review.perspective',
        payload: 'ROLE: Rust',
        iteration: 4,
        hat: 'coordinator',
        wave_id: id,
        wave_index: 0,
        wave_total: 2,
      }),
      expect.objectContaining({
        topic: 'review.perspective',
        payload: 'ROLE: Docs',
        wave_id: id,
        wave_index: 1,
        wave_total: 2,
      }),
    ]);
  });

  it('is refused inside a wave member, saying how a member reports; writes nothing', async () => {
    const dir = makeWorkspace({ 'events.jsonl': '' });
    const file = join(dir, 'events.jsonl');
    const r = await runCliInMemory(['wave', 'emit', 'x', '--payloads', 'a'], {
      cwd: dir,
      env: { RALPH_EVENTS_FILE: file, RALPH_WAVE_WORKER: '1' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refused inside a wave');
    expect(r.stderr).toContain('ralph emit <topic>');
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('needs --payloads, and a topic that is a topic', async () => {
    const dir = makeWorkspace({ 'events.jsonl': '' });
    const env = { RALPH_EVENTS_FILE: join(dir, 'events.jsonl'), RALPH_WAVE_WORKER: '' };
    const none = await runCliInMemory(['wave', 'emit', 'x'], { cwd: dir, env });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('--payloads');
    const bad = await runCliInMemory(['wave', 'emit', 'a topic', '--payloads', 'p'], { cwd: dir, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('usage: ralph wave emit');
    expect(readFileSync(join(dir, 'events.jsonl'), 'utf8')).toBe('');
  });
});
