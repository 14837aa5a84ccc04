import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostNotes } from '../../../../src/backends/registry.ts';
import { AGENT_CLI_NAMES, configSchema } from '../../../../src/config/schema.ts';
import { assessReadiness } from '../../../../src/engine/readiness/readiness.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

/** A PATH directory holding one fake agent CLI, `codex`, and nothing else. */
function codexOnlyBin(): string {
  const bin = makeWorkspace();
  writeFileSync(join(bin, 'codex'), '#!/bin/sh\necho codex-cli 1.0.0\n');
  chmodSync(join(bin, 'codex'), 0o755);
  return bin;
}

describe('assessReadiness: "can Ralph run here?" as data', () => {
  it('returns every check, the configured backend and every agent CLI, and prints nothing', async () => {
    const workspace = makeWorkspace({ 'PROMPT.md': 'x\n' });
    const bin = codexOnlyBin();
    const env = { PATH: bin, HOME: workspace };
    const config = configSchema.parse({ cli: { backend: 'codex' }, git: { commit: false } });
    const r = await assessReadiness({ workspace, env, loaded: { ok: true, file: undefined, config } });
    expect(r).toMatchObject({
      ok: true,
      node: process.version,
      workspace,
      config: null,
      health_enabled: true,
      backend: { name: 'codex', command: 'codex', available: true, detail: join(bin, 'codex') },
      auto_backend: 'codex',
      notes: hostNotes(),
    });
    expect(r.checks.map((c) => c.check)).toEqual(['disk', 'agent']);
    expect(r.checks.every((c) => c.level !== 'fatal')).toBe(true);
    expect(r.backends.map((b) => b.name)).toEqual([...AGENT_CLI_NAMES]);
    const codex = r.backends.find((b) => b.name === 'codex');
    expect(codex).toMatchObject({
      installed: true,
      version: 'codex-cli 1.0.0',
      configured: true,
      auto_pick: true,
    });
    expect(r.backends.filter((b) => b.installed).map((b) => b.name)).toEqual(['codex']);
  });

  it('a config that did not load is the fatal finding; the disk is still judged', async () => {
    const workspace = makeWorkspace();
    const r = await assessReadiness({
      workspace,
      env: { PATH: makeWorkspace(), HOME: workspace },
      loaded: { ok: false, file: 'ralph.yml', error: new Error('ralph.yml:1:1 unknown key "bogus"') },
    });
    expect(r.ok).toBe(false);
    expect(r.config).toBe('ralph.yml');
    expect(r.backend).toBeNull();
    expect(r.checks[0]).toEqual({
      check: 'config',
      level: 'fatal',
      message: 'ralph.yml:1:1 unknown key "bogus"',
    });
    expect(r.checks.map((c) => c.check)).toEqual(['config', 'disk']);
    expect(r.backends.every((b) => !b.configured)).toBe(true);
  });

  it('a backend that cannot build its command is fatal, and names what to set', async () => {
    const workspace = makeWorkspace({ 'PROMPT.md': 'x\n' });
    const config = configSchema.parse({ cli: { backend: 'custom' }, git: { commit: false } });
    const r = await assessReadiness({
      workspace,
      env: { PATH: makeWorkspace(), HOME: workspace },
      loaded: { ok: true, file: undefined, config },
    });
    expect(r.ok).toBe(false);
    expect(r.backend).toMatchObject({ name: 'custom', command: null, available: false });
    expect(r.checks.find((c) => c.level === 'fatal')?.message).toContain('cli.command is not set');
  });
});
