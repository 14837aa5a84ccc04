import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathMatcher } from '../../../../../src/config/path-patterns.ts';
import type { RalphConfig } from '../../../../../src/config/schema.ts';
import { rulesPatterns, rulesSnapshot } from '../../../../../src/engine/gates/checks/path-rules.ts';
import {
  DEFAULT_PROTECTED,
  protectedGlobs,
  tamperedPaths,
} from '../../../../../src/engine/gates/checks/protected-files.ts';
import { makeWorkspace } from '../../../../helpers/workspace.ts';

describe('rulesSnapshot', () => {
  it('hashes every file under the rules’ base directories as it is on disk, and nothing outside them', () => {
    const ws = makeWorkspace({
      '.gitignore': '.env\nsecrets/\n',
      'secrets/signing.key': 'key\n',
      'secrets/node_modules/x.js': 'dep\n',
      'src/app.ts': 'code\n',
      'docs/readme.md': 'doc\n',
    });
    const snap = rulesSnapshot(ws, { deny: ['secrets/'], allow: ['src/**/*.ts'] });
    expect(Object.keys(snap).sort()).toEqual(['secrets/signing.key', 'src/app.ts']);
    writeFileSync(join(ws, 'secrets', 'signing.key'), 'forged\n');
    writeFileSync(join(ws, 'src', 'app.js'), 'out of allow\n');
    const after = rulesSnapshot(ws, { deny: ['secrets/'], allow: ['src/**/*.ts'] });
    expect(tamperedPaths(snap, after)).toEqual(['secrets/signing.key', 'src/app.js']);
  });

  it('walks the whole workspace for a pattern without a directory (`.env*`), but never .ralph/ or .git', () => {
    const ws = makeWorkspace({
      '.env': 'A=1\n',
      'a/.env.local': 'B=2\n',
      '.ralph/validate.sh': 'x\n',
      '.git/HEAD': 'ref\n',
    });
    expect(Object.keys(rulesSnapshot(ws, { deny: ['.env*'] })).sort()).toEqual(['.env', 'a/.env.local']);
  });

  it('content decides: the same bytes written again are no change', () => {
    const ws = makeWorkspace({ '.env': 'A=1\n' });
    const before = rulesSnapshot(ws, { deny: ['.env'] });
    writeFileSync(join(ws, '.env'), 'A=1\n');
    expect(tamperedPaths(before, rulesSnapshot(ws, { deny: ['.env'] }))).toEqual([]);
  });

  it('a walk past its bound is an error naming rules and the pattern, never a silent cut', () => {
    const ws = makeWorkspace({ 'gen/a.txt': 'x\n' });
    // Links back to their own directory make an endless tree: the bound is what ends the walk.
    for (const name of ['l1', 'l2', 'l3']) symlinkSync('.', join(ws, 'gen', name));
    expect(() => rulesSnapshot(ws, { deny: ['gen/**'] })).toThrow(
      "rules: 'gen/**' would have Ralph hash every file under 'gen/', more than 50,000 files and directories; Ralph stops rather than judge only part of them",
    );
  });

  it('takes every kind of rule pattern as a place to walk', () => {
    expect(rulesPatterns({ allow: ['src/**'], deny: ['.env'], approve: ['package.json'] }).sort()).toEqual([
      '.env',
      'package.json',
      'src/**',
    ]);
  });
});

describe('tamperedPaths', () => {
  it('lists exactly the paths whose content differs, added and removed ones included (property)', () => {
    const snap = fc.dictionary(fc.constantFrom('a', 'b', 'c/d', 'e'), fc.constantFrom('h1', 'h2'));
    fc.assert(
      fc.property(snap, snap, (before, after) => {
        const changed = tamperedPaths(before, after);
        const all = new Set([...Object.keys(before), ...Object.keys(after)]);
        for (const p of all) expect(changed.includes(p)).toBe(before[p] !== after[p]);
        expect(tamperedPaths(after, before)).toEqual(changed);
      }),
    );
  });
});

describe('protectedGlobs', () => {
  const config = (protect?: string[]) => ({ gates: { protect } }) as unknown as RalphConfig;

  it('keeps the built-in protections whatever gates.protect says, ! patterns included (property)', () => {
    const ws = makeWorkspace();
    const userPattern = fc.constantFrom(
      'tests/**',
      '!.ralph/validate.sh',
      '!.ralph/**',
      '!**',
      '!.github/**',
      'src/',
      '!.gitlab-ci.yml',
    );
    fc.assert(
      fc.property(fc.option(fc.array(userPattern, { maxLength: 5 }), { nil: undefined }), (protect) => {
        const selects = pathMatcher(protectedGlobs(config(protect), ws));
        for (const path of ['.ralph/validate.sh', '.github/workflows/ci.yml', '.gitlab-ci.yml', '.ci/run'])
          expect(selects(path)).toBe(true);
        if (protect?.includes('tests/**') && !protect.includes('!**'))
          expect(selects('tests/a.test.ts')).toBe(true);
      }),
    );
  });

  it('protects the workspace files named in enabled hooks’ commands, from each hook’s cwd', () => {
    const ws = makeWorkspace({
      'scripts/check.sh': 'exit 1\n',
      'hooks/guard.sh': 'exit 1\n',
      'README.md': 'x\n',
    });
    const hooks = (enabled: boolean) =>
      ({
        gates: {},
        hooks: {
          enabled,
          events: {
            'pre.loop.complete': [{ name: 'check', command: ['./scripts/check.sh', '--strict'] }],
            'pre.loop.start': [
              { name: 'guard', command: ['sh', 'guard.sh'], cwd: 'hooks' },
              { name: 'outside', command: ['cat', '../../etc/passwd', 'missing.sh'] },
            ],
          },
        },
      }) as unknown as RalphConfig;
    const selects = pathMatcher(protectedGlobs(hooks(true), ws));
    expect(['scripts/check.sh', 'hooks/guard.sh'].map((f) => selects(f))).toEqual([true, true]);
    expect(selects('README.md')).toBe(false);
    expect(protectedGlobs(hooks(false), ws)).toEqual([...DEFAULT_PROTECTED]);
  });

  it('protects the metric loop’s measure and the reviewer’s prompt file: the judges besides the gates', () => {
    const ws = makeWorkspace({ 'bench.sh': 'echo "time: 5 ms"\n', 'review/PROMPT.md': 'judge\n' });
    const judged = {
      gates: { review: { prompt_file: 'review/PROMPT.md' } },
      metric: { command: 'sh ./bench.sh' },
    } as unknown as RalphConfig;
    const selects = pathMatcher(protectedGlobs(judged, ws));
    expect(['bench.sh', 'review/PROMPT.md'].map((f) => selects(f))).toEqual([true, true]);
  });

  it('adds gates.protect to the defaults', () => {
    expect(protectedGlobs(config(['tests/**']), makeWorkspace())).toEqual(['tests/**', ...DEFAULT_PROTECTED]);
  });
});
