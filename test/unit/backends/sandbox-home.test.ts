import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claude } from '../../../src/backends/agents/claude.ts';
import { isAgentCli } from '../../../src/backends/definition.ts';
import { BACKEND_DEFINITIONS, definitionOf, knownBackends } from '../../../src/backends/registry.ts';
import { ROOT } from '../../helpers/workspace.ts';

const HOME = '/home/u';
const homeOf = (name: string, env: NodeJS.ProcessEnv = {}) => {
  const definition = definitionOf(name);
  if (!definition.sandboxHome) throw new Error(`${name} has no sandboxHome`);
  return definition.sandboxHome(env, HOME);
};

/** True when `path` is `dir` or lies below it. */
const within = (path: string, dir: string) => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

describe('each agent CLI’s own locations (sandboxHome), with the defaults', () => {
  it.each([
    [
      'claude',
      [
        '/home/u/.claude',
        '/home/u/.claude.json',
        '/home/u/.claude.json.backup',
        '/home/u/.cache/claude-cli',
        '/home/u/.local/share/claude',
        '/home/u/.local/state/claude',
      ],
    ],
    ['codex', ['/home/u/.codex']],
    ['gemini', ['/home/u/.gemini']],
    [
      'opencode',
      [
        '/home/u/.config/opencode',
        '/home/u/.local/share/opencode',
        '/home/u/.local/state/opencode',
        '/home/u/.cache/opencode',
      ],
    ],
    ['qwen', ['/home/u/.qwen']],
    ['copilot', ['/home/u/.copilot']],
    ['cline', ['/home/u/.cline', '/home/u/.cline/data']],
    ['amp', ['/home/u/.config/amp', '/home/u/.local/share/amp', '/home/u/.cache/amp']],
    ['cursor', ['/home/u/.config/cursor', '/home/u/.cursor', '/home/u/.local/share/cursor-agent']],
    ['pi', ['/home/u/.pi/agent']],
  ])('%s', (name, expected) => {
    expect(homeOf(name)).toEqual(expected);
  });
});

describe('each agent CLI’s own locations follow the variables that move them', () => {
  it.each([
    [
      'claude',
      {
        CLAUDE_CONFIG_DIR: '/cfg/claude',
        XDG_CACHE_HOME: '/xc',
        XDG_DATA_HOME: '/xd',
        XDG_STATE_HOME: '/xs',
      },
      // The global state file lives inside $CLAUDE_CONFIG_DIR then: ~/.claude.json is not opened.
      ['/cfg/claude', '/xc/claude-cli', '/xd/claude', '/xs/claude'],
    ],
    ['codex', { CODEX_HOME: '/srv/codex' }, ['/srv/codex']],
    ['gemini', { GEMINI_CLI_HOME: '/g' }, ['/g/.gemini']],
    [
      'opencode',
      { XDG_CONFIG_HOME: '/xg', XDG_DATA_HOME: '/xd', XDG_STATE_HOME: '/xs', XDG_CACHE_HOME: '/xc' },
      ['/xg/opencode', '/xd/opencode', '/xs/opencode', '/xc/opencode'],
    ],
    ['copilot', { COPILOT_HOME: '/c' }, ['/c']],
    ['cline', { CLINE_DIR: '/cl', CLINE_DATA_DIR: '/cd' }, ['/cl', '/cd']],
    [
      'amp',
      { XDG_CONFIG_HOME: '/xg', XDG_DATA_HOME: '/xd', XDG_CACHE_HOME: '/xc' },
      ['/xg/amp', '/xd/amp', '/xc/amp'],
    ],
    [
      'cursor',
      { XDG_CONFIG_HOME: '/xg' },
      ['/xg/cursor', '/home/u/.cursor', '/home/u/.local/share/cursor-agent'],
    ],
    [
      'pi',
      { PI_CODING_AGENT_DIR: '/p/agent', PI_CODING_AGENT_SESSION_DIR: '/p/sessions' },
      ['/p/agent', '/p/sessions'],
    ],
    ['pi', { PI_CODING_AGENT_DIR: '~/pi' }, ['/home/u/pi']],
  ])('%s with %o', (name, env, expected) => {
    expect(homeOf(name, env)).toEqual(expected);
  });

  it('an empty variable is the same as an unset one', () => {
    for (const d of knownBackends()) {
      const empty = Object.fromEntries(
        [
          'CLAUDE_CONFIG_DIR',
          'CODEX_HOME',
          'GEMINI_CLI_HOME',
          'COPILOT_HOME',
          'CLINE_DIR',
          'XDG_CONFIG_HOME',
          'PI_CODING_AGENT_DIR',
          'PI_CODING_AGENT_SESSION_DIR',
        ].map((v) => [v, '']),
      );
      expect(d.sandboxHome(empty, HOME), d.name).toEqual(d.sandboxHome({}, HOME));
    }
  });
});

describe('the registry: every agent CLI says where its own files are', () => {
  it('every agent CLI definition has sandboxHome (a new backend without it fails here); custom and fake have none', () => {
    for (const d of BACKEND_DEFINITIONS) {
      if (isAgentCli(d)) expect(typeof d.sandboxHome, d.name).toBe('function');
      else expect(d.sandboxHome, d.name).toBeUndefined();
    }
  });

  it('the files among them (never made at run start) are entries of sandboxHome: only claude names any', () => {
    for (const d of BACKEND_DEFINITIONS.filter(isAgentCli)) {
      for (const env of [{}, { CLAUDE_CONFIG_DIR: '/cfg/claude' }]) {
        const files = d.sandboxHomeFiles?.(env, HOME) ?? [];
        expect(d.sandboxHome(env, HOME), d.name).toEqual(expect.arrayContaining(files));
      }
    }
    expect(claude.sandboxHomeFiles?.({}, HOME)).toEqual([
      `${HOME}/.claude.json`,
      `${HOME}/.claude.json.backup`,
    ]);
    expect(claude.sandboxHomeFiles?.({ CLAUDE_CONFIG_DIR: '/cfg/claude' }, HOME)).toEqual([]);
  });

  it('only codex, gemini and claude have a native sandbox, each saying what it covers and misses', () => {
    const native = BACKEND_DEFINITIONS.filter((d) => d.nativeSandbox).map((d) => d.name);
    expect(native.sort()).toEqual(['claude', 'codex', 'gemini']);
    for (const d of BACKEND_DEFINITIONS.filter((x) => x.nativeSandbox)) {
      expect(d.nativeSandbox?.covers.length, d.name).toBeGreaterThan(20);
      expect(d.nativeSandbox?.misses.length, d.name).toBeGreaterThan(20);
    }
  });

  it('docs/reference/backends.md says for each native sandbox exactly what its definition says', () => {
    const page = readFileSync(join(ROOT, 'docs', 'reference', 'backends.md'), 'utf8').replace(/\s+/g, ' ');
    for (const d of BACKEND_DEFINITIONS.filter((x) => x.nativeSandbox))
      expect(page, d.name).toContain(
        `Sandbox: native — ${d.nativeSandbox?.covers}; not covered: ${d.nativeSandbox?.misses}.`,
      );
  });

  const dirVar = fc.constantFrom(
    'CLAUDE_CONFIG_DIR',
    'CODEX_HOME',
    'GEMINI_CLI_HOME',
    'COPILOT_HOME',
    'CLINE_DIR',
    'CLINE_DATA_DIR',
    'PI_CODING_AGENT_DIR',
    'PI_CODING_AGENT_SESSION_DIR',
    'XDG_CONFIG_HOME',
    'XDG_DATA_HOME',
    'XDG_STATE_HOME',
    'XDG_CACHE_HOME',
  );
  const dir = fc.oneof(
    fc.constant(''),
    fc
      .array(fc.stringMatching(/^[a-z.]{1,6}$/), { minLength: 1, maxLength: 3 })
      .map((p) => `/${p.join('/')}`),
  );
  const env = fc.dictionary(dirVar, dir);
  const home = fc.constantFrom('/home/u', '/root', '/Users/someone');

  it('property: every location is absolute, and every login file the doctor probes lies inside one of them', () => {
    fc.assert(
      fc.property(env, home, (e, h) => {
        for (const d of knownBackends()) {
          const dirs = d.sandboxHome(e, h);
          expect(dirs.length, d.name).toBeGreaterThan(0);
          for (const p of dirs) expect(isAbsolute(p), `${d.name}: ${p}`).toBe(true);
          // One source for both: a login the sandbox hid would look like "not logged in".
          for (const f of d.auth.files(e, h))
            expect(
              dirs.some((x) => within(f.path, x)),
              `${d.name}: ${f.path} in ${dirs.join(', ')}`,
            ).toBe(true);
        }
      }),
    );
  });
});
