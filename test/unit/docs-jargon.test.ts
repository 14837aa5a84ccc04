import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../src/config/presets.ts';
import { docPages, filesUnder } from '../helpers/docs.ts';
import { ROOT } from '../helpers/workspace.ts';

/** The internal names of the documents Ralph was specified from ("seed 000", "Seed 003's", "seed-002"). */
const SEED = /\bseed[ -]?0\d\d\b/i;

/** `file:line: text` for every line of these files that says "seed 0NN". */
function seedLines(files: string[], keep: (line: string) => boolean = () => true): string[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        SEED.test(line) && keep(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [],
      ),
  );
}

/** A TypeScript line that is only a comment: for engineers, not shown to users. */
const codeComment = (line: string) => /^\s*(\/\/|\/\*|\*)/.test(line);

describe('no internal jargon where users read', () => {
  it('the README and the docs pages name workflows by what they do, not "seed 0NN"', () => {
    // CONTRIBUTING.md is for engineers, who read DESIGN.md's seed references too.
    const pages = docPages().filter((p) => relative(ROOT, p) !== 'CONTRIBUTING.md');
    expect(pages.length).toBeGreaterThan(20);
    expect(seedLines(pages)).toEqual([]);
  });

  it('the presets `ralph init` copies and the config schema editors show say no "seed 0NN"', () => {
    const files = [
      ...filesUnder(join(ROOT, 'presets'), () => true),
      join(ROOT, 'schema', 'ralph.schema.json'),
    ];
    expect(files.length).toBeGreaterThan(20);
    expect(seedLines(files)).toEqual([]);
  });

  it('`ralph presets` and `ralph init` describe each preset without "seed 0NN"', () => {
    const said = PRESETS.flatMap((p) => [p.description, p.next]).filter((s) => SEED.test(s));
    expect(said).toEqual([]);
  });

  it('the source says "seed 0NN" only in comments, never in a string a user sees', () => {
    const sources = filesUnder(join(ROOT, 'src'), (n) => n.endsWith('.ts'));
    // A preset's file name is not shown: `ralph demo` copies presets/board/seed-000.yml to ralph.yml.
    const shown = seedLines(sources, (line) => !codeComment(line) && !/seed-000\.yml/.test(line));
    expect(shown).toEqual([]);
  });

  it('catches the jargon it is for', () => {
    expect(SEED.test("The `board` preset is seed 000's workflow")).toBe(true);
    expect(SEED.test('Seed 003 §3.1')).toBe(true);
    expect(SEED.test('(`seed-000`, `hats`)')).toBe(true);
    expect(SEED.test('a random seed of 42')).toBe(false);
    expect(codeComment("  /** Seed 003's context block */")).toBe(true);
    expect(codeComment("  `ralph demo: seed 000's board`")).toBe(false);
  });
});
