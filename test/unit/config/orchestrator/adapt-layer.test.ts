import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adaptOrchestratorLayer } from '../../../../src/config/orchestrator/adapt-layer.ts';
import { mapHatBackend } from '../../../../src/config/orchestrator/hat-backend.ts';
import { IGNORED_KEYS, V1_KEYS } from '../../../../src/config/orchestrator/orchestrator-keys.ts';

describe('adaptOrchestratorLayer: ignored keys', () => {
  it('removes each ignored key with one warning naming it and what Ralph does instead', () => {
    const { raw, warnings } = adaptOrchestratorLayer({
      event_loop: { max_iterations: 5, checkpoint_interval: 5, idle_timeout_secs: 1800 },
      cli: { backend: 'claude', pty_mode: true, pty_interactive: false, idle_timeout_secs: 30 },
    });
    expect(raw).toEqual({ event_loop: { max_iterations: 5 }, cli: { backend: 'claude' } });
    expect(warnings.map((w) => w.path.join('.'))).toEqual([
      'event_loop.checkpoint_interval',
      'event_loop.idle_timeout_secs',
      'cli.idle_timeout_secs',
      'cli.pty_mode',
      'cli.pty_interactive',
    ]);
    expect(warnings.find((w) => w.path.join('.') === 'cli.pty_mode')?.message).toBe(
      'ralph-orchestrator key: Ralph runs agents headless without a PTY; ignored',
    );
  });

  it('leaves a config without ralph-orchestrator keys as it is, and never changes its input', () => {
    const input = { event_loop: { max_iterations: 3 }, hats: { a: { triggers: ['x'], backend: 'codex' } } };
    const before = structuredClone(input);
    const out = adaptOrchestratorLayer(input);
    expect(out).toEqual({ raw: before, warnings: [], notes: [] });
    expect(input).toEqual(before);
  });

  it('property: no ignored key survives, and each found is warned exactly once', () => {
    const key = fc.constantFrom(...IGNORED_KEYS.map((k) => k.path));
    fc.assert(
      fc.property(fc.uniqueArray(key, { selector: (p) => p.join('.') }), fc.jsonValue(), (paths, value) => {
        const raw: Record<string, unknown> = {};
        for (const path of paths) {
          let node = raw;
          for (const part of path.slice(0, -1)) {
            node[part] ??= {};
            node = node[part] as Record<string, unknown>;
          }
          node[path.at(-1) as string] = value;
        }
        const out = adaptOrchestratorLayer(raw);
        expect(out.warnings.map((w) => w.path.join('.')).sort()).toEqual(
          paths.map((p) => p.join('.')).sort(),
        );
        for (const path of paths) {
          const parent = path
            .slice(0, -1)
            .reduce<unknown>((n, k) => (n as Record<string, unknown>)?.[k], out.raw);
          expect(Object.hasOwn((parent ?? {}) as object, path.at(-1) as string)).toBe(false);
        }
      }),
    );
  });
});

describe('adaptOrchestratorLayer: v1 flat keys', () => {
  it('maps every v1 key as ralph-orchestrator normalizes it, v1 winning over the nested key', () => {
    const { raw, notes } = adaptOrchestratorLayer({
      agent: 'codex',
      prompt_file: 'TASK.md',
      completion_promise: 'DONE',
      max_iterations: 7,
      max_runtime: 600,
      max_cost: 2.5,
      event_loop: { max_iterations: 100, persistent: false },
    });
    expect(raw).toEqual({
      cli: { backend: 'codex' },
      event_loop: {
        prompt_file: 'TASK.md',
        completion_promise: 'DONE',
        max_iterations: 7,
        max_runtime_seconds: 600,
        max_cost_usd: 2.5,
        persistent: false,
      },
    });
    expect(notes.map((n) => n.message)).toEqual(
      Object.entries(V1_KEYS).map(([v1, to]) => `v1 key ${v1} read as ${to.join('.')}`),
    );
    expect(notes[0]?.path).toEqual(['agent']);
  });

  it("reads a hat's subscribes_to as its triggers (triggers, when both are written, win)", () => {
    const { raw, notes } = adaptOrchestratorLayer({
      hats: { builder: { subscribes_to: ['build.task'] }, b: { subscribes_to: ['x'], triggers: ['y'] } },
    });
    expect(raw.hats).toEqual({ builder: { triggers: ['build.task'] }, b: { triggers: ['y'] } });
    expect(notes.map((n) => n.message)).toEqual([
      'v1 key subscribes_to read as hats.builder.triggers',
      'v1 key subscribes_to read as hats.b.triggers',
    ]);
  });

  it('leaves a v1 key alone when its section is not a mapping (the schema reports that)', () => {
    const { raw } = adaptOrchestratorLayer({ max_iterations: 3, event_loop: 'oops' });
    expect(raw).toEqual({ max_iterations: 3, event_loop: 'oops' });
  });
});

describe("mapHatBackend: a hat's backend in its object form", () => {
  it('{type, args} is that backend, its args before the hat’s own', () => {
    expect(
      mapHatBackend({ triggers: ['r'], backend: { type: 'codex', args: ['--x'] }, backend_args: ['--y'] }),
    ).toEqual({
      hat: { triggers: ['r'], backend: 'codex', args: ['--x', '--y'] },
      note: 'backend {type: codex, …} read as backend codex, args [--x, --y]',
    });
    expect(mapHatBackend({ backend: { type: 'gemini' } })?.hat).toEqual({ backend: 'gemini' });
  });

  it('{command, args} is a custom command', () => {
    expect(mapHatBackend({ backend: { command: './agent.sh', args: ['a'] } })?.hat).toEqual({
      backend: 'custom',
      command: './agent.sh',
      args: ['a'],
    });
  });

  it('a string backend, or an object it cannot read, is left to the schema', () => {
    expect(mapHatBackend({ backend: 'claude' })).toBeUndefined();
    expect(mapHatBackend({ backend: { type: 'codex', command: 'x' } })).toBeUndefined();
    expect(mapHatBackend({ backend: { type: 'codex', args: [1] } })).toBeUndefined();
  });
});
