import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAgentCli } from '../../../src/backends/definition.ts';
import {
  BACKEND_DEFINITIONS,
  definitionOf,
  INTERACTIVE_BACKENDS,
  installHint,
  knownBackends,
} from '../../../src/backends/registry.ts';
import { AGENT_CLI_NAMES, BACKEND_NAMES } from '../../../src/config/schema.ts';
import { ROOT } from '../../helpers/workspace.ts';

const SRC = join(ROOT, 'src');
const AGENTS = join(SRC, 'backends', 'agents');
const DEFINED = BACKEND_NAMES.filter((n) => n !== 'auto');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('one definition object per backend', () => {
  it('every backend name but auto has exactly one definition, in the list, in the order of BACKEND_NAMES', () => {
    expect(BACKEND_DEFINITIONS.map((d) => d.name)).toEqual(DEFINED);
    for (const name of DEFINED) expect(definitionOf(name).name).toBe(name);
  });

  it('the interactive backends (`ralph plan -b`, named without loading the definitions) are those with an interactive mode', () => {
    const interactive = BACKEND_DEFINITIONS.filter((d) => d.interactive !== undefined).map((d) => d.name);
    expect(INTERACTIVE_BACKENDS).toEqual(interactive);
  });

  it('every definition lives in its own file src/backends/agents/<name>.ts, and that folder holds nothing else', async () => {
    expect(readdirSync(AGENTS).sort()).toEqual(DEFINED.map((n) => `${n}.ts`).sort());
    for (const definition of BACKEND_DEFINITIONS) {
      const module = (await import(join(AGENTS, `${definition.name}.ts`))) as Record<string, unknown>;
      expect(Object.values(module)).toContain(definition);
    }
  });

  it('every agent CLI has its executable, install hint and auth probe; custom and fake have none', () => {
    expect(knownBackends().map((d) => d.name)).toEqual([...AGENT_CLI_NAMES]);
    for (const d of BACKEND_DEFINITIONS) {
      const cli = (AGENT_CLI_NAMES as readonly string[]).includes(d.name);
      expect(isAgentCli(d), d.name).toBe(cli);
    }
    for (const d of knownBackends()) {
      expect(d.executable).not.toBe('');
      expect(d.install).not.toBe('');
      expect(d.auth.login).not.toBe('');
      // The one install hint: the doctor's table and a missing binary's message say the same.
      expect(installHint(d.executable)).toBe(d.install);
      expect(installHint(`/opt/bin/${d.executable}`)).toBe(d.install);
    }
  });

  it('no module outside the definitions names a backend (no switch or map keyed by backend names)', () => {
    const names = DEFINED.join('|');
    // A quoted name (`case 'codex':`, `=== 'custom'`) or a name as a key (`claude: 'npm install …'`).
    const literal = new RegExp(`(['"])(${names})\\1|^\\s*(${names})\\s*:`, 'gm');
    // config/schema/backend-names.ts declares the names (the config layer validates cli.backend below the backends).
    const allowed = new Set([join(SRC, 'config', 'schema', 'backend-names.ts')]);
    const offenders = files(SRC)
      .filter((f) => !f.startsWith(AGENTS + sep) && !allowed.has(f))
      .flatMap((f) =>
        // An `examples:` line of a config key's description is documentation, not a switch; zod's
        // issue code `code: 'custom'` (a refinement's own error) is not the custom backend.
        [
          ...readFileSync(f, 'utf8')
            .replace(/^\s*examples:.*$/gm, '')
            .replace(/^\s*code: 'custom',$/gm, '')
            .matchAll(literal),
        ].map((m) => `${relative(SRC, f)}: ${m[0]}`),
      );
    expect(offenders).toEqual([]);
  });
});
