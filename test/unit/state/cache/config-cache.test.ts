import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { initPreset } from '../../../../src/config/preset-init.ts';
import { PRESETS } from '../../../../src/config/presets.ts';
import { configCacheKey, resolveRunCached } from '../../../../src/engine/run/resolve-run-cached.ts';
import {
  type ResolvedRun,
  type ResolveRunOptions,
  runConfigInputs,
} from '../../../../src/engine/run/run-inputs.ts';
import { parseSetOverride, resolveRun } from '../../../../src/index.ts';
import {
  configCacheDir,
  configCacheFile,
  encodeEntry,
  readConfigCache,
} from '../../../../src/state/cache/config-cache.ts';
import { removeWhenDone } from '../../../helpers/workspace.ts';

const seedDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/seed-000');
/** The user's cache directory of these tests (the cache lives outside the workspace). */
const cacheHome = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-config-cache-home-')));
const env = { PATH: '/usr/bin:/bin', HOME: '/nonexistent', XDG_CACHE_HOME: cacheHome };

function workspace(files: Record<string, string> = {}): string {
  const dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-config-cache-')));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const comparable = (run: ResolvedRun) => ({ ...run, backend: run.backend.name });

/** The key and the cache file of a resolution (as resolveRunCached computes them). */
function cacheOf(options: ResolveRunOptions): { key: string; file: string } {
  const inputs = runConfigInputs(options);
  const key = configCacheKey({
    ...inputs,
    configPath: options.configPath,
    preset: options.preset,
    hats: options.hats,
  })!;
  return { key, file: configCacheFile(inputs.env, options.cwd, key) };
}
const cacheFile = (options: ResolveRunOptions) => cacheOf(options).file;

/** The run from a miss (written to the cache), then from the hit, and from resolveRun itself. */
async function missHitAndPlain(options: ResolveRunOptions) {
  const miss = await resolveRunCached(options);
  const written = existsSync(cacheFile(options));
  const hit = await resolveRunCached(options);
  return { miss, hit, plain: resolveRun(options), written };
}

/**
 * Marks the cached value as Ralph would write it (a valid entry for the key), so a run that reads
 * it shows the mark (a hit) and one that does not, not.
 */
function markCache(options: ResolveRunOptions): void {
  const { key, file } = cacheOf(options);
  const value = readConfigCache(file, key) as { event_loop: { completion_promise: string } };
  value.event_loop.completion_promise = 'FROM_THE_CACHE';
  writeFileSync(file, encodeEntry(key, value)!);
}
const fromCache = (run: ResolvedRun) => run.config.event_loop.completion_promise === 'FROM_THE_CACHE';

describe('the config cache of ralph run (resolveRunCached)', () => {
  it.each(PRESETS.map((p) => p.name))('a hit returns exactly what a miss does: preset %s', async (name) => {
    const cwd = workspace();
    initPreset(cwd, name);
    const { miss, hit, plain, written } = await missHitAndPlain({ cwd, env });
    expect(written).toBe(true);
    expect(comparable(hit)).toStrictEqual(comparable(miss));
    expect(comparable(hit)).toStrictEqual(comparable(plain));
  });

  it('a hit returns exactly what a miss does: seed 000, --preset, -b over the file and --set', async () => {
    const cwd = workspace();
    for (const f of ['ralph.yml', 'PROMPT.md']) copyFileSync(join(seedDir, f), join(cwd, f));
    for (const options of [
      { cwd, env },
      { cwd, env, preset: 'solo' },
      { cwd, env, backend: 'fake', overrides: [parseSetOverride('cli.fake_script=agent.yml')] },
    ]) {
      const { miss, hit, plain, written } = await missHitAndPlain(options);
      expect(written).toBe(true);
      expect(comparable(hit)).toStrictEqual(comparable(miss));
      expect(comparable(hit)).toStrictEqual(comparable(plain));
    }
  });

  it('a hit is served from the file; a file Ralph did not write is a miss and is rewritten', async () => {
    const cwd = workspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./agent.sh\n',
      'PROMPT.md': 'x\n',
    });
    const options = { cwd, env };
    const file = cacheFile(options);
    await resolveRunCached(options);
    markCache(options);
    expect(fromCache(await resolveRunCached(options))).toBe(true);
    const [header] = readFileSync(file, 'utf8').split('\n');
    const marked = readFileSync(file, 'utf8').replace('"./agent.sh"', '"/bin/true"');
    for (const text of [
      '{"key": "trunc',
      '{}\n',
      `${header}\n{}\n`,
      `${header}\n{"event_loop":{"completion_promise":"FROM_THE_CACHE"}}\n`,
      // An edited value under the header of the value Ralph wrote: the digest no longer matches.
      marked,
      'garbage',
    ]) {
      writeFileSync(file, text);
      const run = await resolveRunCached(options);
      expect(fromCache(run)).toBe(false);
      expect(run.config.cli.command).toBe('./agent.sh');
      expect(readFileSync(file, 'utf8').split('\n')[1]).toContain('"./agent.sh"');
    }
    // A valid entry others can write is no cache either.
    markCache(options);
    chmodSync(file, 0o666);
    expect(fromCache(await resolveRunCached(options))).toBe(false);
  });

  it('the cache is owner-only, outside the workspace, one entry per workspace', async () => {
    const cwd = workspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./a.sh\n',
      'PROMPT.md': 'x\n',
    });
    await resolveRunCached({ cwd, env });
    const file = cacheFile({ cwd, env });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(configCacheDir(env)).mode & 0o777).toBe(0o700);
    expect(dirname(file)).toBe(join(cacheHome, 'ralph', 'config'));
    expect(existsSync(join(cwd, '.ralph'))).toBe(false);
    const mine = () =>
      readdirSync(configCacheDir(env)).filter((n) => n.startsWith(file.split('/').at(-1)!.slice(0, 17)));
    await resolveRunCached({ cwd, env, overrides: [parseSetOverride('event_loop.max_iterations=4')] });
    expect(mine()).toHaveLength(1);
    expect(existsSync(file)).toBe(false);
  });

  it('a config just written is cached by its content; auto is never cached', async () => {
    const fresh = workspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./a.sh\n',
      'PROMPT.md': 'x\n',
    });
    await resolveRunCached({ cwd: fresh, env });
    expect(existsSync(cacheFile({ cwd: fresh, env }))).toBe(true);
    const auto = workspace({ 'ralph.yml': 'cli:\n  backend: auto\n', 'PROMPT.md': 'x\n' });
    // Nothing on PATH: the run is refused (install an agent CLI), and PATH decided it, so no cache.
    await expect(resolveRunCached({ cwd: auto, env: { ...env, PATH: '' } })).rejects.toThrow(
      /cli.backend is auto/,
    );
    expect(existsSync(cacheFile({ cwd: auto, env: { ...env, PATH: '' } }))).toBe(false);
  });

  it.each([
    ['a bot token', 'RObot:\n  telegram:\n    bot_token: "123456:ABCDEFGHIJ"\n'],
    ['cli.env', 'cli:\n  backend: custom\n  command: ./a.sh\n  env:\n    X: "1"\n'],
    [
      'a key the log redaction knows',
      'cli:\n  backend: custom\n  command: ./a.sh\n  args: [sk-ant-api03-abcdefghijklmnopqrstu]\n',
    ],
  ])('a config holding a secret is not cached: %s', async (_name, yml) => {
    const cwd = workspace({
      'ralph.yml': `${yml.startsWith('cli') ? '' : 'cli:\n  backend: custom\n  command: ./a.sh\n'}${yml}`,
      'PROMPT.md': 'x\n',
    });
    const run = await resolveRunCached({ cwd, env });
    expect(run.config.cli.command).toBe('./a.sh');
    expect(existsSync(cacheFile({ cwd, env }))).toBe(false);
  });

  // Each change of what the config is resolved from, applied to a workspace whose cache was marked:
  // the next resolution must not read the mark.
  const changes: Record<string, (cwd: string, options: ResolveRunOptions) => ResolveRunOptions> = {
    'ralph.yml edited, same size and mtime': (cwd, o) => {
      const file = join(cwd, 'ralph.yml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('a.sh', 'b.sh'));
      utimesSync(file, ROUND_TIME, ROUND_TIME);
      return o;
    },
    'ralph.yml gone, ralph.yaml there': (cwd, o) => {
      writeFileSync(join(cwd, 'ralph.yaml'), readFileSync(join(cwd, 'ralph.yml')));
      rmSync(join(cwd, 'ralph.yml'));
      return o;
    },
    'a user config appears': (cwd, o) => {
      writeFileSync(join(cwd, 'user', 'ralph', 'config.yml'), 'event_loop:\n  max_iterations: 3\n');
      return o;
    },
    'another -c file': (cwd, o) => {
      writeFileSync(join(cwd, 'other.yml'), readFileSync(join(cwd, 'ralph.yml')));
      return { ...o, configPath: 'other.yml' };
    },
    '--preset': (_cwd, o) => ({ ...o, preset: 'solo' }),
    '-H a hats file': (cwd, o) => {
      writeFileSync(join(cwd, 'hats.yml'), 'hats:\n  b:\n    triggers: [x]\n');
      return { ...o, hats: 'hats.yml' };
    },
    '-H builtin:board': (_cwd, o) => ({ ...o, hats: 'builtin:board' }),
    '--set': (_cwd, o) => ({ ...o, overrides: [parseSetOverride('event_loop.max_iterations=4')] }),
    '--set with the same value from another flag': (_cwd, o) => ({
      ...o,
      overrides: [{ path: ['event_loop', 'max_iterations'], value: 100, source: '--max-iterations' }],
    }),
    RALPH_AGENT: (_cwd, o) => ({ ...o, env: { ...o.env, RALPH_AGENT: 'fake' } }),
    '-b': (_cwd, o) => ({ ...o, backend: 'fake' }),
  };

  /** A whole second, which utimes sets exactly (mtimeNs ends in nine zeros). */
  const ROUND_TIME = 1_700_000_000;

  it.each(Object.keys(changes))('a change of what the config depends on is a miss: %s', async (change) => {
    const cwd = workspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./a.sh\n',
      'PROMPT.md': 'x\n',
    });
    mkdirSync(join(cwd, 'user', 'ralph'), { recursive: true });
    utimesSync(join(cwd, 'ralph.yml'), ROUND_TIME, ROUND_TIME);
    expect(statSync(join(cwd, 'ralph.yml'), { bigint: true }).mtimeNs).toBe(
      BigInt(ROUND_TIME) * 1_000_000_000n,
    );
    const options: ResolveRunOptions = { cwd, env: { ...env, XDG_CONFIG_HOME: join(cwd, 'user') } };
    await resolveRunCached(options);
    markCache(options);
    expect(fromCache(await resolveRunCached(options))).toBe(true);
    const changed = changes[change]!(cwd, options);
    expect(fromCache(await resolveRunCached(changed))).toBe(false);
  });

  it('-H: the hats file is keyed by its bytes; a config importing a hat file is read each start', async () => {
    const cwd = workspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./a.sh\n',
      'hats.yml': 'hats:\n  b:\n    triggers: [x]\n',
      'PROMPT.md': 'x\n',
    });
    utimesSync(join(cwd, 'hats.yml'), ROUND_TIME, ROUND_TIME);
    const options: ResolveRunOptions = { cwd, env, hats: 'hats.yml' };
    await resolveRunCached(options);
    markCache(options);
    expect(fromCache(await resolveRunCached(options))).toBe(true);
    // The same size and times, other bytes: a miss that reads the new hats.
    writeFileSync(join(cwd, 'hats.yml'), 'hats:\n  b:\n    triggers: [y]\n');
    utimesSync(join(cwd, 'hats.yml'), ROUND_TIME, ROUND_TIME);
    const run = await resolveRunCached(options);
    expect(fromCache(run)).toBe(false);
    expect(run.config.hats.b!.triggers).toEqual(['y']);

    const importing = workspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./a.sh\nhats:\n  b:\n    import: b.yml\n',
      'b.yml': 'triggers: [x]\n',
      'PROMPT.md': 'x\n',
    });
    expect((await resolveRunCached({ cwd: importing, env })).config.hats.b!.triggers).toEqual(['x']);
    expect(existsSync(cacheFile({ cwd: importing, env }))).toBe(false);
    writeFileSync(join(importing, 'b.yml'), 'triggers: [z]\n');
    const edited = await resolveRunCached({ cwd: importing, env });
    expect(edited.config.hats.b!.triggers).toEqual(['z']);
    expect(edited.configFiles).toContain(join(importing, 'b.yml'));
  });
});
