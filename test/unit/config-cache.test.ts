import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
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
import { initPreset } from '../../src/config/preset-init.ts';
import { PRESETS } from '../../src/config/presets.ts';
import { RACY_WINDOW_MS, resolveRunCached } from '../../src/engine/run/resolve-run-cached.ts';
import type { ResolvedRun, ResolveRunOptions } from '../../src/engine/run/run-inputs.ts';
import { parseSetOverride, resolveRun } from '../../src/index.ts';
import { ralphPaths } from '../../src/state/paths.ts';
import { ensureRuntimeIgnored } from '../../src/state/runtime-ignore.ts';
import { removeWhenDone } from '../helpers/workspace.ts';

const seedDir = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/seed-000');
const env = { PATH: '/usr/bin:/bin', HOME: '/nonexistent' };
/** A clock past the racy window: the files written by a test count as settled. */
const later = () => Date.now() + RACY_WINDOW_MS + 1000;

function workspace(files: Record<string, string> = {}): string {
  const dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-config-cache-')));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  // As after `ralph init` or a first run: the cache is only written where git ignores it.
  ensureRuntimeIgnored(ralphPaths(dir));
  return dir;
}

const comparable = (run: ResolvedRun) => ({ ...run, backend: run.backend.name });
const cacheFile = (cwd: string) => ralphPaths(cwd).configCache;

/** The run from a miss (written to the cache), then from the hit, and from resolveRun itself. */
async function missHitAndPlain(options: ResolveRunOptions) {
  const miss = await resolveRunCached({ ...options, now: later });
  const written = existsSync(cacheFile(options.cwd));
  const hit = await resolveRunCached({ ...options, now: later });
  return { miss, hit, plain: resolveRun(options), written };
}

/** Marks the cached value, so a run that reads it shows the mark (a hit) and one that does not, not. */
function markCache(cwd: string): void {
  const entry = JSON.parse(readFileSync(cacheFile(cwd), 'utf8'));
  entry.value.event_loop.completion_promise = 'FROM_THE_CACHE';
  writeFileSync(cacheFile(cwd), JSON.stringify(entry));
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

  it('a hit is served from the file; a corrupt file is a miss and is rewritten', async () => {
    const cwd = workspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./agent.sh\n',
      'PROMPT.md': 'x\n',
    });
    await resolveRunCached({ cwd, env, now: later });
    markCache(cwd);
    expect(fromCache(await resolveRunCached({ cwd, env, now: later }))).toBe(true);
    writeFileSync(cacheFile(cwd), '{"key": "trunc');
    expect(fromCache(await resolveRunCached({ cwd, env, now: later }))).toBe(false);
    expect(JSON.parse(readFileSync(cacheFile(cwd), 'utf8')).value.cli.command).toBe('./agent.sh');
  });

  it('a config file changed within the racy window is not cached; auto is never cached', async () => {
    const fresh = workspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./a.sh\n',
      'PROMPT.md': 'x\n',
    });
    await resolveRunCached({ cwd: fresh, env, now: Date.now });
    expect(existsSync(cacheFile(fresh))).toBe(false);
    const auto = workspace({ 'ralph.yml': 'cli:\n  backend: auto\n', 'PROMPT.md': 'x\n' });
    // Nothing on PATH: the run is refused (install an agent CLI), and PATH decided it, so no cache.
    await expect(resolveRunCached({ cwd: auto, env: { ...env, PATH: '' }, now: later })).rejects.toThrow(
      /cli.backend is auto/,
    );
    expect(existsSync(cacheFile(auto))).toBe(false);
  });

  it('a workspace whose .ralph/.gitignore does not ignore the cache gets none', async () => {
    const cwd = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-config-cache-')));
    writeFileSync(join(cwd, 'ralph.yml'), 'cli:\n  backend: custom\n  command: ./a.sh\n');
    writeFileSync(join(cwd, 'PROMPT.md'), 'x\n');
    await resolveRunCached({ cwd, env, now: later });
    expect(existsSync(join(cwd, '.ralph'))).toBe(false);
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
    await resolveRunCached({ ...options, now: later });
    markCache(cwd);
    expect(fromCache(await resolveRunCached({ ...options, now: later }))).toBe(true);
    const changed = changes[change]!(cwd, options);
    expect(fromCache(await resolveRunCached({ ...changed, now: later }))).toBe(false);
  });
});
