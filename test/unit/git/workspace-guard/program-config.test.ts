import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isProgramKey,
  PROGRAM_CONFIG_KEYS,
  parseConfigListing,
  programConfigChanges,
  settingKey,
} from '../../../../src/git/workspace-guard/program-config.ts';

const PROGRAM = [
  'filter.crypt.clean',
  'filter.LFS.smudge',
  'filter.lfs.process',
  'core.attributesfile',
  'merge.ours.driver',
  'gpg.program',
  'gpg.ssh.program',
  'gpg.x509.program',
  'gpg.ssh.defaultkeycommand',
  'core.sshcommand',
  'core.askpass',
  'core.gitproxy',
  'credential.helper',
  'credential.https://example.com.helper',
  'remote.origin.url',
  'remote.origin.pushurl',
  'remote.origin.receivepack',
  'remote.up.uploadpack',
  'remote.origin.vcs',
  'url.ext::sh -c x.insteadof',
  'url.git@host:.pushinsteadof',
  'protocol.allow',
  'protocol.ext.allow',
  'trailer.sign.command',
  'include.path',
  'includeif.gitdir:/x/.path',
  'includeif.onbranch:main.path',
];

// Settings that run nothing, or that Ralph's runner already overrides on the command line.
const REDIRECTING = ['core.worktree', 'core.bare', 'core.sparseCheckout', 'core.sparseCheckoutCone'];

const HARMLESS = [
  'user.name',
  'user.email',
  'commit.gpgsign',
  'core.editor',
  'core.pager',
  'core.hookspath',
  'core.fsmonitor',
  'diff.external',
  'diff.x.textconv',
  'filter.crypt.required',
  'remote.origin.fetch',
  'branch.main.remote',
  'branch.main.merge',
  'merge.ours.name',
  'core.autocrlf',
];

describe('PROGRAM_CONFIG_KEYS', () => {
  it('selects the keys that make git run a program or choose where Ralph pushes', () => {
    for (const key of PROGRAM) expect(isProgramKey(key), key).toBe(true);
    for (const key of HARMLESS) expect(isProgramKey(key), key).toBe(false);
  });

  it('selects the keys that redirect which work tree Ralph reads and commits (issue 32, H4)', () => {
    for (const key of REDIRECTING) expect(isProgramKey(key), key).toBe(true);
  });

  it('ignores the case git folds (section and name), as git does', () => {
    expect(isProgramKey('Filter.X.Clean')).toBe(true);
    expect(isProgramKey('CORE.SSHCOMMAND')).toBe(true);
  });

  it('says for each entry what it is', () => {
    for (const k of PROGRAM_CONFIG_KEYS) expect(k.what.length).toBeGreaterThan(0);
  });
});

describe('parseConfigListing', () => {
  it('reads scope, file (absolute) and setting from `git config --list --null --show-scope --show-origin`', () => {
    const out =
      'local\0file:.git/config\0filter.x.clean\ncat\0local\0file:.git/../inc.cfg\0ok\0' +
      'command\0command line:\0core.hookspath\n/dev/null\0';
    expect(parseConfigListing('/repo', out)).toEqual([
      { scope: 'local', file: '/repo/.git/config', setting: 'filter.x.clean\ncat' },
      { scope: 'local', file: '/repo/inc.cfg', setting: 'ok' },
      { scope: 'command', file: 'command line:', setting: 'core.hookspath\n/dev/null' },
    ]);
    expect(settingKey('filter.x.clean\ncat')).toBe('filter.x.clean');
    expect(settingKey('ok')).toBe('ok');
  });
});

const programSetting = fc
  .tuple(fc.constantFrom(...PROGRAM), fc.option(fc.string({ maxLength: 8 }), { nil: undefined }))
  .map(([key, value]) => (value === undefined ? key : `${key}\n${value}`));
const harmlessSetting = fc
  .tuple(fc.constantFrom(...HARMLESS), fc.string({ maxLength: 8 }))
  .map(([key, value]) => `${key}\n${value}`);
const settings = fc.array(fc.oneof(programSetting, harmlessSetting), { maxLength: 12 });

/** The settings with each key's values kept in order, the keys' groups shuffled among each other. */
function regroup(list: readonly string[], seed: number): string[] {
  const keys = [...new Set(list.map(settingKey))];
  const order = keys.map((k, i) => ({ k, r: (i * 7919 + seed) % (keys.length + 1) }));
  order.sort((a, b) => a.r - b.r);
  return order.flatMap(({ k }) => list.filter((s) => settingKey(s) === k));
}

describe('programConfigChanges', () => {
  it('finds no change between a config and itself, or its keys in another order', () => {
    fc.assert(
      fc.property(settings, fc.nat(), (s, seed) => {
        expect(programConfigChanges(s, s)).toEqual([]);
        expect(programConfigChanges(s, regroup(s, seed))).toEqual([]);
      }),
    );
  });

  it('ignores every setting that runs nothing, added or removed', () => {
    fc.assert(
      fc.property(settings, fc.array(harmlessSetting, { maxLength: 5 }), (s, extra) => {
        expect(programConfigChanges(s, [...s, ...extra])).toEqual([]);
        expect(programConfigChanges([...extra, ...s], s)).toEqual([]);
      }),
    );
  });

  it('names a program key that was added, removed or given another value', () => {
    fc.assert(
      fc.property(settings, programSetting, (s, added) => {
        const key = settingKey(added);
        expect(programConfigChanges(s, [...s, added])).toContain(key);
        expect(programConfigChanges([...s, added], s)).toContain(key);
        const changed = `${key}\n${added}-other`;
        expect(programConfigChanges([...s, added], [...s, changed])).toContain(key);
      }),
    );
  });

  it('returns only program keys, sorted, each once', () => {
    fc.assert(
      fc.property(settings, settings, (a, b) => {
        const out = programConfigChanges(a, b);
        expect(out).toEqual([...new Set(out)].sort());
        for (const key of out) expect(isProgramKey(key)).toBe(true);
      }),
    );
  });

  it('counts a reorder of one key’s values (credential helpers run in order) and a value-less key vs an empty one', () => {
    const two = ['credential.helper\na', 'credential.helper\nb'];
    expect(programConfigChanges(two, [...two].reverse())).toEqual(['credential.helper']);
    expect(programConfigChanges(['filter.x.clean'], ['filter.x.clean\n'])).toEqual(['filter.x.clean']);
  });
});
