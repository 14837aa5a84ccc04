import { join } from 'node:path';
import fc from 'fast-check';
import picomatch from 'picomatch/posix.js';
import { describe, expect, it } from 'vitest';
import { claudeEditDenyRules } from '../../../../src/backends/agents/claude.ts';
import { resolveBackend } from '../../../../src/backends/registry.ts';
import { GLOB_OPTIONS, pathMatcher } from '../../../../src/config/path-patterns.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { agentInvocation, hatBackend } from '../../../../src/engine/iteration/iteration-prompt.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

const WS = '/work/ws';

describe('claudeEditDenyRules: rules.deny as Claude Code Edit rules', () => {
  it('plain globs become Edit(//<workspace>/glob), and a path that may be a directory its contents too', () => {
    expect(
      claudeEditDenyRules(['.env*', 'secrets/', '/build', './keys/**', '**/*.pem', 'a/*/b.txt'], WS),
    ).toEqual([
      'Edit(//work/ws/.env*)',
      'Edit(//work/ws/.env*/**)',
      'Edit(//work/ws/secrets/**)',
      'Edit(//work/ws/build)',
      'Edit(//work/ws/build/**)',
      'Edit(//work/ws/keys/**)',
      'Edit(//work/ws/**/*.pem)',
      'Edit(//work/ws/**/*.pem/**)',
      'Edit(//work/ws/a/*/b.txt)',
      'Edit(//work/ws/a/*/b.txt/**)',
    ]);
  });

  it('globs Claude Code may read differently are not passed (Ralph checks them after the iteration)', () => {
    const unpassable = [
      '{a,b}.txt',
      '[ab].txt',
      '?.txt',
      '@(a|b)',
      '+(a)',
      'a\\*b',
      '../outside',
      'a/./b',
      'a//b',
      'a**b',
      'with space',
      'a,b',
      '#x',
      '~/x',
      'Bash(x)',
    ];
    expect(claudeEditDenyRules(unpassable, WS)).toEqual([]);
  });

  it('a glob a later !pattern takes back from is not passed: Claude Code has no exception to a deny', () => {
    expect(claudeEditDenyRules(['secrets/', '!secrets/public/', 'keys/'], WS)).toEqual([
      'Edit(//work/ws/keys/**)',
    ]);
    expect(claudeEditDenyRules(['secrets/', '!secrets/public/'], WS)).toEqual([]);
  });

  const segment = fc.constantFrom(
    'a',
    'b.txt',
    '.env',
    '*',
    '*.ts',
    '**',
    'x*y',
    '{a,b}',
    '[ab]',
    '?',
    '!a',
    '..',
  );
  const pattern = fc
    .tuple(
      fc.constantFrom('', '/', './', '!'),
      fc.array(segment, { minLength: 1, maxLength: 3 }),
      fc.boolean(),
    )
    .map(([lead, segs, slash]) => `${lead}${segs.join('/')}${slash ? '/' : ''}`);
  const path = fc.array(fc.constantFrom('a', 'b.txt', '.env', 'x1y', 'c.ts', 'd'), {
    minLength: 1,
    maxLength: 4,
  });

  it('never passes a negation, a brace, a class or a `?`, and every rule is one Edit(//<workspace>/…) value', () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 5 }), (deny) => {
        for (const rule of claudeEditDenyRules(deny, WS)) {
          expect(rule).toMatch(/^Edit\(\/\/work\/ws\/[\w.\-/*]+\)$/);
          expect(rule).not.toMatch(/[!{}[\]?,\s]/);
        }
      }),
    );
  });

  /** A rule's glob as gitignore reads it, anchored at the workspace: `g/**` is what is inside `g`. */
  function ruleMatches(glob: string, file: string): boolean {
    if (!glob.endsWith('/**')) return picomatch(glob, GLOB_OPTIONS)(file);
    const parent = picomatch(glob.slice(0, -3), GLOB_OPTIONS);
    const parts = file.split('/');
    return parts.slice(0, -1).some((_, i) => parent(parts.slice(0, i + 1).join('/')));
  }

  it('never refuses a path Ralph allows: whatever a rule matches (anchored at the workspace), rules.deny denies', () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 5 }), path, (deny, parts) => {
        const file = parts.join('/');
        const denied = pathMatcher(deny)(file);
        for (const rule of claudeEditDenyRules(deny, WS))
          if (ruleMatches(rule.slice('Edit(//work/ws/'.length, -1), file))
            expect(denied, `${rule} on ${file}`).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the claude invocation: rules.deny in the one --disallowedTools with the hat’s tools', () => {
  const workspace = makeWorkspace({});
  function argsOf(backend: string, hat: Record<string, unknown>, rules: Record<string, unknown>): string[] {
    const config = configSchema.parse({ cli: { backend }, hats: { h: { triggers: ['go'], ...hat } }, rules });
    const h = config.hats.h ?? null;
    const route = { hat: h, ...hatBackend(config, h, resolveBackend(config.cli.backend, config)) };
    return agentInvocation(route, {
      prompt: 'p',
      config,
      workspace,
      runtimeDir: join(workspace, '.ralph'),
      extraArgs: [],
    }).args;
  }
  const rules = { deny: ['secrets/', '{a,b}.txt'], approve: ['package.json'], allow: ['src/', 'secrets/'] };

  it('merges the hat’s disallowed_tools and the deny paths; approve and allow are never passed', () => {
    const args = argsOf('claude', { disallowed_tools: ['Bash'] }, rules);
    expect(args.filter((a) => a === '--disallowedTools')).toHaveLength(1);
    expect(args[args.indexOf('--disallowedTools') + 1]).toBe(`Bash,Edit(/${workspace}/secrets/**)`);
    expect(args.join(' ')).not.toMatch(/package\.json|src\/|\{a,b\}/);
  });

  it('without a hat’s tools the deny paths alone; nothing passable: no flag', () => {
    const args = argsOf('claude', {}, rules);
    expect(args.slice(args.indexOf('--disallowedTools'))).toEqual([
      '--disallowedTools',
      `Edit(/${workspace}/secrets/**)`,
    ]);
    expect(argsOf('claude', {}, { deny: ['!x', '[ab]'] })).not.toContain('--disallowedTools');
  });

  it('a backend without per-path rules runs as before (no error, the rules stay Ralph’s check)', () => {
    expect(argsOf('codex', {}, rules)).toEqual(argsOf('codex', {}, {}));
    expect(argsOf('gemini', {}, rules)).toEqual(argsOf('gemini', {}, {}));
  });
});
