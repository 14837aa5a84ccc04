import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/load-config.ts';
import { mergeImportedHat } from '../../../../src/config/orchestrator/hat-imports.ts';
import { ConfigError } from '../../../../src/errors.ts';
import { removeWhenDone } from '../../../helpers/workspace.ts';

// ralph-orchestrator's hat imports: `hats.<id>.import: FILE`, the file's keys under the hat's own.

function workspace(files: Record<string, string>): string {
  const dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-hat-imports-')));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const load = (dir: string, hats?: string) =>
  loadConfig({
    cwd: dir,
    layers: [
      { kind: 'project', file: join(dir, 'ralph.yml') },
      ...(hats ? [{ kind: 'hats' as const, file: join(dir, hats) }] : []),
    ],
  });

function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

const builder = [
  'name: Builder',
  'triggers: [build.start]',
  'publishes: [build.done]',
  'instructions: Build it.',
  '',
].join('\n');

describe('hat imports', () => {
  it("takes the imported file's keys; the hat's own keys win, key by key", () => {
    const dir = workspace({
      'ralph.yml': [
        'hats:',
        '  builder:',
        '    import: shared/builder.yml',
        '    instructions: Build it small.',
        '  reviewer:',
        '    triggers: [build.done]',
        '',
      ].join('\n'),
      'shared/builder.yml': builder,
    });
    const { config, layers } = load(dir);
    expect(config.hats.builder).toMatchObject({
      name: 'Builder',
      triggers: ['build.start'],
      publishes: ['build.done'],
      instructions: 'Build it small.',
    });
    expect(config.hats.builder).not.toHaveProperty('import');
    expect(config.hats.reviewer!.triggers).toEqual(['build.done']);
    expect(layers[0]!.imports.map((i) => [i.hat, i.file, i.keys])).toEqual([
      ['builder', join(dir, 'shared/builder.yml'), ['name', 'triggers', 'publishes']],
    ]);
  });

  it('resolves a path relative to the file that imports it (a hats source in its own directory)', () => {
    const dir = workspace({
      'ralph.yml': 'cli:\n  backend: codex\n',
      'flows/review.yml': 'hats:\n  builder:\n    import: parts/builder.yml\n',
      'flows/parts/builder.yml': builder,
    });
    expect(load(dir, 'flows/review.yml').config.hats.builder!.name).toBe('Builder');
  });

  it('a missing file is an error at the import line, naming the path and where it was looked for', () => {
    const dir = workspace({ 'ralph.yml': 'hats:\n  builder:\n    triggers: [a]\n    import: nope.yml\n' });
    expect(problem(() => load(dir))).toBe(
      `ralph.yml:4:13: hats.builder.import: hat "builder" imports nope.yml: no such file or directory (ENOENT) (${join(dir, 'nope.yml')}) — the path is relative to the directory of ralph.yml`,
    );
  });

  it('a device or a directory is not read: an error at the import line', () => {
    for (const target of ['/dev/zero', '.']) {
      const dir = workspace({ 'ralph.yml': `hats:\n  b:\n    import: ${target}\n` });
      expect(problem(() => load(dir))).toMatch(
        /^ralph\.yml:3:13: hats\.b\.import: hat "b" imports .*: not a regular file/,
      );
    }
  });

  it('an import in the imported file is an error at its line there: no chains, so no cycles', () => {
    const dir = workspace({
      'ralph.yml': 'hats:\n  builder:\n    import: a.yml\n',
      'a.yml': 'triggers: [a]\nimport: ralph.yml\n',
    });
    expect(problem(() => load(dir))).toMatch(
      /^a\.yml:2:1: hats\.builder\.import: an imported hat file cannot import another \(ralph\.yml hat "builder" imports this file\)/,
    );
    const self = workspace({
      'ralph.yml': 'hats:\n  builder:\n    import: a.yml\n',
      'a.yml': 'import: a.yml\n',
    });
    expect(problem(() => load(self))).toMatch(
      /^a\.yml:1:1: hats\.builder\.import: an imported hat file cannot import/,
    );
  });

  it('events: in the imported file, a non-string import and a file that is not a mapping are located errors', () => {
    const events = workspace({
      'ralph.yml': 'hats:\n  b:\n    import: b.yml\n',
      'b.yml': 'triggers: [a]\nevents:\n  a: {}\n',
    });
    expect(problem(() => load(events))).toMatch(
      /^b\.yml:2:1: hats\.b\.events: an imported hat file cannot hold events:/,
    );
    const notString = workspace({ 'ralph.yml': 'hats:\n  b:\n    import: [b.yml]\n' });
    expect(problem(() => load(notString))).toBe(
      'ralph.yml:3:5: hats.b.import: hat "b": import must be the path of a YAML file of one hat',
    );
    const list = workspace({ 'ralph.yml': 'hats:\n  b:\n    import: b.yml\n', 'b.yml': '- a\n' });
    expect(problem(() => load(list))).toMatch(
      /^b\.yml:1:1: hat "b" imports b\.yml: the file must be a YAML mapping/,
    );
  });

  it("a bad key of the imported file is located in that file; a bad key of the hat's own in the config", () => {
    const dir = workspace({
      'ralph.yml': 'hats:\n  b:\n    import: b.yml\n    publishes: [x]\n',
      'b.yml': 'triggers: [a]\n\ntrigers: [b]\n',
    });
    expect(problem(() => load(dir))).toBe(
      'b.yml:3:1: hats.b.trigers: unknown key "trigers" — did you mean "triggers"?',
    );
    const own = workspace({
      'ralph.yml': 'hats:\n  b:\n    import: b.yml\n    publishs: [x]\n',
      'b.yml': 'triggers: [a]\n',
    });
    expect(problem(() => load(own))).toMatch(/^ralph\.yml:4:5: hats\.b\.publishs: unknown key "publishs"/);
  });
});

describe('mergeImportedHat: the decision of which file sets each key', () => {
  const hatKey = fc.constantFrom(
    'name',
    'triggers',
    'publishes',
    'instructions',
    'import',
    'max_activations',
  );
  const value = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.integer());
  const hat = fc.dictionary(hatKey, value, { maxKeys: 6 });

  it("the hat's own keys win whole, the file gives the rest, import is dropped, and keys names the file's", () => {
    fc.assert(
      fc.property(hat, hat, (imported, own) => {
        const before = structuredClone([imported, own]);
        const { hat: merged, keys } = mergeImportedHat(imported, own);
        expect([imported, own]).toEqual(before);
        expect(merged).not.toHaveProperty('import');
        for (const [k, v] of Object.entries(merged))
          expect(v).toEqual(Object.hasOwn(own, k) ? own[k] : imported[k]);
        expect(new Set(Object.keys(merged))).toEqual(
          new Set([...Object.keys(imported), ...Object.keys(own)].filter((k) => k !== 'import')),
        );
        expect(keys.sort()).toEqual(
          Object.keys(imported)
            .filter((k) => k !== 'import' && !Object.hasOwn(own, k))
            .sort(),
        );
      }),
    );
  });
});
