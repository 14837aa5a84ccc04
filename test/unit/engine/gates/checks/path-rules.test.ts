import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPathRules } from '../../../../../src/engine/gates/checks/path-rules.ts';

describe('checkPathRules', () => {
  it('deny wins, then allow, then approve', () => {
    const rules = { allow: ['src/', 'package.json'], deny: ['src/secret/**'], approve: ['package.json'] };
    expect(checkPathRules(rules, ['src/a.ts', 'src/secret/key', 'README.md', 'package.json'])).toEqual({
      violations: [
        { file: 'README.md', rule: 'allow' },
        { file: 'src/secret/key', rule: 'deny' },
      ],
      needsApproval: ['package.json'],
    });
  });

  it('no rules: every file passes', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{1,5}(\/[a-z.]{1,5}){0,3}$/)), (files) => {
        expect(checkPathRules({}, files)).toEqual({ violations: [], needsApproval: [] });
      }),
    );
  });

  it('globs as the path patterns page says: ** at any depth, dot-files included', () => {
    const v = checkPathRules({ approve: ['**/migrations/**', '.github/**'] }, [
      'db/migrations/001.sql',
      '.github/workflows/ci.yml',
      'db/schema.sql',
    ]);
    expect(v.needsApproval).toEqual(['.github/workflows/ci.yml', 'db/migrations/001.sql']);
  });
});
