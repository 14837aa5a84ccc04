import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../../src/config/load-config.ts';
import { IGNORED_KEYS, PLANNED_KEYS } from '../../../src/config/orchestrator/orchestrator-keys.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { ConfigError } from '../../../src/errors.ts';
import { makeWorkspace, ROOT } from '../../helpers/workspace.ts';

/**
 * The class "a key of ralph.yml that validates but does nothing": every key the schema accepts
 * must be read by code outside src/config/ (where it can change the prompt, the agent command or
 * the loop), and every ralph-orchestrator key Ralph does not implement must be rejected by name.
 * A new key with no reader fails here; what each key does is proved by the e2e tests.
 */

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable)
    s = s.unwrap() as z.ZodType;
  return s;
}

/** Every key path of the schema (`hats.<id>.triggers`, …), objects inside unions and arrays included. */
function keyPaths(schema: z.ZodType, prefix: string[] = []): string[][] {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) {
    return Object.entries(s.shape as Record<string, z.ZodType>).flatMap(([k, v]) => [
      [...prefix, k],
      ...keyPaths(v, [...prefix, k]),
    ]);
  }
  if (s instanceof z.ZodRecord) return keyPaths(s.valueType as z.ZodType, [...prefix, '<id>']);
  if (s instanceof z.ZodArray) return keyPaths(s.element as z.ZodType, prefix);
  if (s instanceof z.ZodUnion) return (s.options as z.ZodType[]).flatMap((o) => keyPaths(o, prefix));
  return [];
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const SRC = join(ROOT, 'src');
/** The code that can act on a key: everything but the config layer that only declares and checks keys. */
const readers = files(SRC)
  .filter((f) => !relative(SRC, f).startsWith('config/'))
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

/** The key read as a property (`.key`, `?.key`, `['key']`) or destructured (`{ key }`, `key: local`). */
function isRead(key: string): boolean {
  const k = key.replace(/[$]/g, '\\$&');
  return new RegExp(`\\.${k}\\b|\\['${k}'\\]|[{,]\\s*${k}\\s*[,}:]`).test(readers);
}

/**
 * Keys accepted only in the one form that is what Ralph does anyway (anything else is rejected, as
 * the loader call beside each proves), and keys acted on by a config-layer function the engine calls.
 */
const EXEMPT: Record<string, { why: string; rejects?: string }> = {
  'cli.default_mode': {
    why: 'only "autonomous" (what ralph run is)',
    rejects: 'cli:\n  default_mode: interactive\n',
  },
  'event_loop.starting_hat': {
    why: 'read by startingTopic (config/hat-checks.ts), which makes the first event',
  },
  'hats.<id>.import': {
    why: 'resolved by resolveHatImports (config/orchestrator/hat-imports.ts) as each layer is read, before the schema: the resolved config never holds it (test/unit/config/orchestrator/hat-imports.test.ts)',
  },
};

const paths = [...new Map(keyPaths(configSchema).map((p) => [p.join('.'), p])).values()];

describe('every ralph.yml key does something or is rejected', () => {
  it('walks a schema of realistic size (the walk itself works)', () => {
    expect(paths.length).toBeGreaterThan(90);
    expect(paths.map((p) => p.join('.'))).toContain('hats.<id>.disallowed_tools');
    expect(paths.map((p) => p.join('.'))).toContain('memories.filter.recent');
  });

  it('every key the schema accepts is read outside src/config/', () => {
    const unread = paths
      .filter((p) => !isRead(p.at(-1)!) && !(p.join('.') in EXEMPT))
      .map((p) => p.join('.'));
    expect(
      unread,
      'implement these keys, or remove them from the schema (a ralph-orchestrator key Ralph ignores goes to IGNORED_KEYS)',
    ).toEqual([]);
  });

  it('exempt keys: the form that would do something is rejected; startingTopic is what the loop uses', () => {
    for (const [path, { rejects }] of Object.entries(EXEMPT)) {
      expect(
        paths.map((p) => p.join('.')),
        path,
      ).toContain(path);
      if (!rejects) continue;
      const dir = makeWorkspace({ 'ralph.yml': rejects });
      expect(() => loadConfig({ file: join(dir, 'ralph.yml'), cwd: dir }), path).toThrow(ConfigError);
    }
    expect(readers).toMatch(/startingTopic\(config\)/);
  });

  it('the detector finds an unread key (a key no code mentions)', () => {
    expect(isRead('definitely_not_a_real_key_name')).toBe(false);
    expect(isRead('disallowed_tools')).toBe(true);
  });

  /** A one-key YAML document setting `path` (a hat id for `*`). */
  const yamlAt = (path: readonly string[], value: string) =>
    path
      .map((k, i) => `${'  '.repeat(i)}${k === '*' ? 'h' : k}:${i === path.length - 1 ? ` ${value}` : ''}`)
      .join('\n');

  it.each(Object.entries(PLANNED_KEYS))(
    '%s (planned) is rejected by name with what to do',
    (path, message) => {
      const keys = path.split('.');
      const dir = makeWorkspace({ 'ralph.yml': `${yamlAt(keys, '1')}\n` });
      let error: unknown;
      try {
        loadConfig({ file: join(dir, 'ralph.yml'), cwd: dir });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues).toEqual([
        expect.objectContaining({ path: path.replace('*', 'h'), line: keys.length, message }),
      ]);
    },
  );

  it.each(IGNORED_KEYS.map((k) => [k.path.join('.'), k] as const))(
    '%s (ignored) is no schema key, is warned once and is not in the resolved config',
    (dotted, { path, instead }) => {
      expect(paths.map((p) => p.join('.').replace('<id>', '*'))).not.toContain(dotted);
      const dir = makeWorkspace({ 'ralph.yml': `${yamlAt(path, '1')}\n` });
      const loaded = loadConfig({ file: join(dir, 'ralph.yml'), cwd: dir });
      expect(loaded.warnings).toEqual([
        expect.objectContaining({
          path: dotted,
          line: path.length,
          message: expect.stringContaining(instead),
        }),
      ]);
      expect(instead).toMatch(/; ignored$/);
      expect(JSON.stringify(loaded.config)).not.toContain(`"${path.at(-1)}"`);
    },
  );
});
