import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.ts';
import { repoEntries, reposBlock, reposRefusals } from '../../../src/engine/readiness/repo-set.ts';

const repos = [{ path: 'api' }, { path: '/src/web/', name: 'frontend' }, { path: 'libs/shared' }];

describe('repos (docs/guide/multi-repo.md)', () => {
  it('names each repository by its name or its basename, resolves paths against the workspace, and takes per-repository tests', () => {
    const config = configSchema.parse({
      repos: [...repos.slice(0, 2), { path: 'libs/shared', gates: { tests: { command: 'go test ./...' } } }],
      gates: { tests: { command: 'npm test' } },
    });
    expect(repoEntries('/work', config).map((r) => [r.key, r.name, r.root, r.tests?.command])).toEqual([
      ['repos[0]', 'api', '/work/api', 'npm test'],
      ['repos[1]', 'frontend', '/src/web/', 'npm test'],
      ['repos[2]', 'shared', '/work/libs/shared', 'go test ./...'],
    ]);
    expect(reposBlock(config)).toContain('- api: api\n- frontend: /src/web/\n- shared: libs/shared');
    expect(reposBlock(configSchema.parse({}))).toBe('');
  });

  it('rejects two repositories of one name, pointing at the second', () => {
    const result = configSchema.safeParse({ repos: [{ path: 'a/api' }, { path: 'b/api' }] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({
      path: ['repos', 1, 'name'],
      message: 'the name "api" is taken by repos[0]: give one of them another `name`',
    });
  });

  it('refuses every setting it does not work with yet, naming both, and nothing without repos', () => {
    const refused = (extra: Record<string, unknown>, flags = {}) =>
      reposRefusals(configSchema.parse({ repos, ...extra }), flags);
    expect(refused({})).toEqual([]);
    expect(
      reposRefusals(configSchema.parse({ parallel: 3, rules: { deny: ['x'] } }), { worktree: true }),
    ).toEqual([]);
    const cases: [Record<string, unknown>, { parallel?: boolean; worktree?: boolean }, string][] = [
      [{}, { parallel: true }, '--parallel'],
      [{ parallel: 2 }, {}, '--parallel'],
      [{}, { worktree: true }, '--worktree'],
      [{ forge: { pull_requests: 'per_milestone' } }, {}, 'forge.pull_requests: per_milestone'],
      [{ metric: { command: 'node b.js', direction: 'min', pattern: 't=([0-9]+)' } }, {}, 'metric'],
      [{ gates: { review: { backend: 'codex' } } }, {}, 'gates.review'],
    ];
    for (const [extra, flags, what] of cases) {
      const [message, ...more] = refused(extra, flags);
      expect(more).toEqual([]);
      expect(message?.startsWith(`ralph.yml: repos and ${what}`)).toBe(true);
      expect(message).toContain(' do not work together yet (docs/guide/multi-repo.md): remove ');
      expect(message?.endsWith(', or remove repos and run one loop per repository')).toBe(true);
    }
    expect(refused({ gates: { approval: 'before_complete' } })).toEqual([]);
    expect(refused({ forge: { pull_requests: 'off' } })).toEqual([]);
    // Combined with repos since issue 26 §4 (test/e2e/multi-repo-combined.test.ts): no longer refused.
    expect(refused({ rules: { deny: ['secrets/**'] } })).toEqual([]);
    expect(refused({ gates: { approval: ['before_commit', 'before_push', 'before_complete'] } })).toEqual([]);
    expect(
      refused({ gates: { tests: { command: 'npm test', affected: 'npx vitest related {files}' } } }),
    ).toEqual([]);
  });
});
