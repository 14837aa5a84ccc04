import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { docPages, filesUnder } from '../helpers/docs.ts';
import { makeWorkspace, ROOT } from '../helpers/workspace.ts';

const shipped = JSON.parse(readFileSync(join(ROOT, 'schema', 'ralph.schema.json'), 'utf8'));
const validate = new Ajv({ strict: false, allErrors: true }).compile(shipped);

/** Every ralph.yml Ralph ships or documents: presets, fixtures, and ```yaml blocks of README, CONTRIBUTING and docs/ that are configs. */
function documentedConfigs(): [string, unknown][] {
  const out: [string, unknown][] = [];
  const yml = (n: string) => /^ralph\.ya?ml$/.test(n);
  for (const f of [
    ...filesUnder(join(ROOT, 'presets'), yml),
    ...filesUnder(join(ROOT, 'test', 'fixtures'), yml),
  ])
    out.push([relative(ROOT, f), parse(readFileSync(f, 'utf8'))]);
  const topLevel = new Set(Object.keys(shipped.properties));
  for (const doc of docPages()) {
    const blocks = [...readFileSync(doc, 'utf8').matchAll(/```ya?ml\n([\s\S]*?)```/g)].map(
      (m) => m[1] as string,
    );
    blocks.forEach((text, i) => {
      const value = parse(text) as Record<string, unknown> | null;
      // Fake-agent scripts and other YAML are not configs: a config block starts with a config section.
      if (value && typeof value === 'object' && Object.keys(value).every((k) => topLevel.has(k)))
        out.push([`${relative(ROOT, doc)} block ${i + 1}`, value]);
    });
  }
  return out;
}

describe('JSON Schema of ralph.yml', () => {
  it('ralph config schema prints exactly the schema shipped in the package (npm run docs regenerates it)', async () => {
    const r = await runCliInMemory(['config', 'schema'], { cwd: ROOT });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(shipped);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.files).toContain('schema');
  });

  it.each(documentedConfigs())('%s is valid against it', (_name, config) => {
    const ok = validate(config);
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('rejects what ralph config validate rejects: a misspelled key, a wrong type, an unknown backend', () => {
    expect(validate({ event_loop: { max_iteration: 3 } })).toBe(false);
    expect(validate({ event_loop: { max_iterations: 'many' } })).toBe(false);
    expect(validate({ cli: { backend: 'no-such-agent' } })).toBe(false);
    expect(validate({ event_loop: { max_iterations: 3 }, cli: { backend: 'claude' } })).toBe(true);
  });

  it.each(['solo', 'board', 'spec', 'checklist', 'tdd'])(
    'ralph init --preset %s writes the schema and points ralph.yml at it; the file still validates',
    async (preset) => {
      const dir = makeWorkspace();
      const r = await runCliInMemory(['init', '--preset', preset], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      const yml = readFileSync(join(dir, 'ralph.yml'), 'utf8');
      expect(yml.split('\n')[0]).toBe('# yaml-language-server: $schema=.ralph/ralph.schema.json');
      expect(existsSync(join(dir, '.ralph', 'ralph.schema.json'))).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, '.ralph', 'ralph.schema.json'), 'utf8'))).toEqual(shipped);
      const v = await runCliInMemory(['config', 'validate', '--schema-only'], { cwd: dir });
      expect(v.code, v.stderr).toBe(0);
    },
  );
});
