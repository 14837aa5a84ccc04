import { describe, expect, it } from 'vitest';
import { HOOK_PHASE_EVENTS, hooksSchema } from '../../../src/config/schema/hooks.ts';
import { configSchema } from '../../../src/config/schema.ts';

// The hooks section as ralph-orchestrator writes it (its config.rs HooksConfig and validate_hooks).

const hook = (more: Record<string, unknown> = {}) => ({
  name: 'h',
  command: ['./h.sh'],
  on_error: 'warn',
  ...more,
});
const parse = (hooks: unknown) => hooksSchema.safeParse(hooks);
const messages = (hooks: unknown) => {
  const r = parse(hooks);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('hooks: in ralph.yml', () => {
  it('is off by default with its defaults (30 s, 8192 bytes, wait_for_resume) and no hooks', () => {
    expect(configSchema.parse({}).hooks).toEqual({
      enabled: false,
      defaults: { timeout_seconds: 30, max_output_bytes: 8192, suspend_mode: 'wait_for_resume' },
      events: {},
    });
  });

  it('accepts each of its twelve phase-events, and no other', () => {
    for (const phase of HOOK_PHASE_EVENTS)
      expect(parse({ events: { [phase]: [hook()] } }).success).toBe(true);
    expect(HOOK_PHASE_EVENTS).toHaveLength(12);
    for (const other of ['pre.backpressure.gate', 'loop.start', 'pre.loop.started'])
      expect(parse({ events: { [other]: [hook()] } }).success).toBe(false);
  });

  it('fills a spec in: env {}, mutate off; limits and suspend_mode stay unset for the defaults', () => {
    const r = hooksSchema.parse({ enabled: true, events: { 'pre.loop.start': [hook()] } });
    expect(r.events['pre.loop.start']).toEqual([
      { name: 'h', command: ['./h.sh'], on_error: 'warn', env: {}, mutate: { enabled: false } },
    ]);
  });

  it('requires a name, an argv with an executable and on_error, saying so', () => {
    expect(messages({ events: { 'pre.loop.start': [{ command: ['x'], on_error: 'warn' }] } }).join()).toMatch(
      /name/,
    );
    expect(messages({ events: { 'pre.loop.start': [hook({ name: '  ' })] } }).join()).toMatch(/name/);
    expect(messages({ events: { 'pre.loop.start': [hook({ command: [] })] } }).join()).toMatch(/command/);
    expect(messages({ events: { 'pre.loop.start': [hook({ command: [' '] })] } }).join()).toMatch(
      /command\[0\] must name an executable/,
    );
    expect(messages({ events: { 'pre.loop.start': [hook({ command: 'x.sh' })] } }).join()).toMatch(/command/);
    expect(messages({ events: { 'pre.loop.start': [{ name: 'h', command: ['x'] }] } }).join()).toMatch(
      /on_error: is required \(as in ralph-orchestrator\): warn, block or suspend/,
    );
    expect(messages({ events: { 'pre.loop.start': [hook({ on_error: 'fail' })] } }).join()).toMatch(
      /on_error/,
    );
  });

  it('refuses zero limits, suspend_mode without on_error: suspend, and mutation settings it lacks', () => {
    expect(messages({ defaults: { timeout_seconds: 0 } }).join()).toMatch(/timeout_seconds/);
    expect(messages({ defaults: { max_output_bytes: 0 } }).join()).toMatch(/max_output_bytes/);
    expect(messages({ events: { 'pre.loop.start': [hook({ timeout_seconds: 0 })] } }).join()).toMatch(
      /timeout/,
    );
    expect(messages({ events: { 'pre.loop.start': [hook({ suspend_mode: 'retry_backoff' })] } })).toEqual([
      'events.pre.loop.start.0.suspend_mode: suspend_mode requires on_error: suspend',
    ]);
    expect(
      parse({
        events: { 'pre.loop.start': [hook({ on_error: 'suspend', suspend_mode: 'wait_then_retry' })] },
      }).success,
    ).toBe(true);
    expect(messages({ events: { 'pre.loop.start': [hook({ mutate: { format: 'json' } })] } }).join()).toMatch(
      /mutation settings require mutate.enabled: true/,
    );
    expect(
      messages({ events: { 'pre.loop.start': [hook({ mutate: { enabled: true, format: 'xml' } })] } }).join(),
    ).toMatch(/format/);
    for (const key of ['prompt', 'events', 'config'])
      expect(
        parse({ events: { 'pre.loop.start': [hook({ mutate: { enabled: true, [key]: true } })] } }).success,
      ).toBe(false);
  });

  it('refuses the keys ralph-orchestrator refuses (scope, global, parallel hooks) as unknown', () => {
    for (const key of ['scope', 'global', 'parallel', 'concurrency']) {
      expect(parse({ [key]: true }).success).toBe(false);
      expect(parse({ events: { 'pre.loop.start': [hook({ [key]: true })] } }).success).toBe(false);
    }
  });
});
