import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUTO_ORDER, backendCapabilityIssues, resolveBackend } from '../../../src/backends/registry.ts';
import {
  BACKEND_NAMES,
  type BackendName,
  configSchema,
  type RalphConfig,
} from '../../../src/config/schema.ts';
import { agentInvocation, commandKeys, hatBackend } from '../../../src/engine/iteration/iteration-prompt.ts';
import { makeWorkspace } from '../../helpers/workspace.ts';

/** Every backend Ralph can run (auto is only a way to pick one). */
const RUNNABLE = BACKEND_NAMES.filter((b): b is Exclude<BackendName, 'auto'> => b !== 'auto');
const workspace = makeWorkspace({ 'fake.yml': 'turns: []\n' });
const PROMPT = 'do the work';

/** The executable a backend runs when nothing replaces it (custom has none: the hat's own here). */
function ownExecutable(name: BackendName): string {
  if (name === 'custom') return './hat-agent';
  if (name === 'fake') return process.execPath;
  return AUTO_ORDER.find(([n]) => n === name)?.[1] as string;
}

/** A loop on `loop` with every backend-specific cli key set, and one hat on `hat` (with its own args). */
function configFor(loop: BackendName, hat: Record<string, unknown>): RalphConfig {
  return configSchema.parse({
    cli: {
      backend: loop,
      command: '/opt/loop/bin/loop-exe',
      args: ['--loop-arg'],
      model: 'loop-model',
      fake_script: 'fake.yml',
    },
    hats: { h: { triggers: ['go'], ...hat } },
  });
}

function invocationOf(config: RalphConfig, hat: RalphConfig['hats'][string] | null) {
  const loopBackend = resolveBackend(config.cli.backend, config);
  const route = { hat, ...hatBackend(config, hat, loopBackend) };
  const inv = agentInvocation(route, {
    prompt: PROMPT,
    config,
    workspace,
    runtimeDir: join(workspace, '.ralph'),
    extraArgs: ['--after-dashdash'],
  });
  return { backend: route.backend.name, inv };
}

const LOOP_ONLY = ['--loop-arg', 'loop-model', '--after-dashdash', '/opt/loop/bin/loop-exe'];

describe('a backend other than the loop’s runs its own executable with its own arguments', () => {
  const pairs = RUNNABLE.flatMap((loop) => RUNNABLE.filter((h) => h !== loop).map((h) => [loop, h] as const));

  it('covers every (loop, hat) pair that differs', () => {
    expect(pairs).toHaveLength(RUNNABLE.length * (RUNNABLE.length - 1));
  });

  it.each(pairs)('loop %s, hat on %s: the hat’s CLI, its args, none of the loop’s', (loop, hatOn) => {
    const config = configFor(loop, {
      backend: hatOn,
      args: ['--hat-arg'],
      ...(hatOn === 'custom' ? { command: './hat-agent' } : {}),
    });
    const { backend, inv } = invocationOf(config, config.hats.h ?? null);
    expect(backend).toBe(hatOn);
    expect(inv.command).toBe(ownExecutable(hatOn));
    expect(inv.args).toContain('--hat-arg');
    for (const leaked of LOOP_ONLY) expect(inv.args).not.toContain(leaked);
  });

  it.each(pairs)('loop %s, cli.fallback / gates.review on %s: its own CLI', (loop, other) => {
    const config = configFor(loop, {});
    const build = () =>
      resolveBackend(other, config).buildInvocation({ prompt: PROMPT, config, workspace, extraArgs: [] });
    if (other === 'custom') {
      // cli.command is the loop backend's: a custom fallback has no command of its own.
      expect(build).toThrow(/cli\.command is not set/);
      return;
    }
    const inv = build();
    expect(inv.command).toBe(ownExecutable(other));
    for (const leaked of LOOP_ONLY) expect(inv.args).not.toContain(leaked);
  });
});

describe('the loop’s backend keeps its settings', () => {
  it.each(RUNNABLE)('solo on %s: cli.command, cli.args, cli.model and the arguments after --', (loop) => {
    const config = configFor(loop, {});
    const { backend, inv } = invocationOf(config, null);
    expect(backend).toBe(loop);
    expect(inv.command).toBe(loop === 'fake' ? process.execPath : '/opt/loop/bin/loop-exe');
    expect(inv.args).toContain('--after-dashdash');
    if (loop !== 'fake') expect(inv.args).toContain('--loop-arg');
    // Only the agent CLIs take a model flag.
    if (loop !== 'custom' && loop !== 'fake') expect(inv.args).toContain('loop-model');
  });

  it('a hat that names the loop’s own backend runs with the loop’s settings', () => {
    const config = configFor('claude', { backend: 'claude', args: ['--hat-arg'] });
    const { inv } = invocationOf(config, config.hats.h ?? null);
    expect(inv.command).toBe('/opt/loop/bin/loop-exe');
    expect(inv.args).toEqual(
      expect.arrayContaining(['--loop-arg', 'loop-model', '--hat-arg', '--after-dashdash']),
    );
  });

  it('a hat’s own command replaces the executable, on the loop’s backend or on its own', () => {
    const same = configFor('claude', { command: '/opt/hat/claude' });
    const onLoop = invocationOf(same, same.hats.h ?? null);
    expect(onLoop.backend).toBe('claude');
    expect(onLoop.inv.command).toBe('/opt/hat/claude');
    expect(onLoop.inv.args).toContain('--loop-arg');
    const other = configFor('custom', { backend: 'codex', command: '/opt/hat/codex' });
    const onOwn = invocationOf(other, other.hats.h ?? null);
    expect(onOwn.backend).toBe('codex');
    expect(onOwn.inv.command).toBe('/opt/hat/codex');
    expect(onOwn.inv.args).not.toContain('--loop-arg');
  });
});

describe('custom off the loop needs a command of its own', () => {
  it('a hat on custom without one is a config issue, unless the loop is custom too', () => {
    expect(backendCapabilityIssues(configFor('claude', { backend: 'custom' }))).toEqual([
      {
        path: ['hats', 'h', 'backend'],
        message:
          'hat "h" runs on custom but has no command (cli.command is the executable of cli.backend (claude) only); set hats.h.command to the agent executable',
      },
    ]);
    expect(backendCapabilityIssues(configFor('claude', { backend: 'custom', command: './x' }))).toEqual([]);
    // (custom takes no cli.model: that refusal is the model checks' own, test/e2e/model-ladder.test.ts)
    const customLoop = configFor('custom', { backend: 'custom' });
    expect(backendCapabilityIssues({ ...customLoop, cli: { ...customLoop.cli, model: undefined } })).toEqual(
      [],
    );
  });

  it('a custom fallback or reviewer is a config issue (they have no command key)', () => {
    const config = configSchema.parse({
      cli: { backend: 'codex', command: './x', fallback: ['claude', 'custom'] },
      gates: { review: { backend: 'custom' } },
    });
    expect(backendCapabilityIssues(config)).toEqual([
      {
        path: ['cli', 'fallback', 1],
        message:
          'a custom fallback has no command to run (cli.command is the executable of cli.backend (codex) only); use an agent CLI as the fallback',
      },
      {
        path: ['gates', 'review', 'backend'],
        message:
          'a custom reviewer has no command to run (cli.command is the executable of cli.backend (codex) only); review with an agent CLI',
      },
    ]);
  });
});

describe('commandKeys', () => {
  const hat = (h: Record<string, unknown>) =>
    configSchema.parse({ hats: { h: { triggers: ['go'], ...h } } }).hats.h;
  it('names the keys that chose the executable that is missing', () => {
    expect(commandKeys({ hatId: null, hat: null })).toBe('cli.command / cli.backend');
    expect(commandKeys({ hatId: 'h', hat: hat({}) ?? null })).toBe('cli.command / cli.backend');
    expect(commandKeys({ hatId: 'h', hat: hat({ backend: 'claude' }) ?? null })).toBe(
      'hats.h.command / hats.h.backend',
    );
    expect(commandKeys({ hatId: 'h', hat: hat({ command: './x' }) ?? null })).toBe(
      'hats.h.command / hats.h.backend',
    );
    expect(commandKeys({ hatId: 'h', hat: hat({ backend: 'claude' }) ?? null, fallbackFrom: 'claude' })).toBe(
      'cli.fallback',
    );
  });
});
