import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Script } from 'node:vm';
import { replaceFileSync } from '../io/atomic-write.ts';
import { makeOwnerOnlyDir, readOwnerOnly, userCacheDir } from './user-cache.ts';

// Node 20 has no compile cache for modules: every start V8 compiled the ~700 kB of the CLI bundle
// that `ralph run` loads before its first agent, most of what Ralph added to Node's own start
// (bench/README.md). The bundle is CommonJS so that its files can be compiled as `vm.Script`s with
// V8's code cache, kept in the user's cache directory (`$XDG_CACHE_HOME/ralph/code/`).

const MAGIC = 'ralph-code-cache 1';
const HEADER_BYTES = MAGIC.length + 1 + 64 + 1 + 64 + 1;

// node:crypto loads at the first hash, not with this module: `ralph emit` (inside agent tool calls)
// compiles nothing through the cache and should not pay for it.
let hash: typeof import('node:crypto').hash | undefined;
const sha256 = (data: string | Buffer) => {
  hash ??= process.getBuiltinModule('node:crypto').hash;
  return hash('sha256', data, 'hex');
};

/**
 * The key of one bundle file's cache: its source, and the Node build and flags it runs under (V8
 * refuses data made under other flags, so each setup keeps its own entry instead of rewriting one).
 */
export function codeCacheKey(source: string, runtime: string): string {
  return sha256(`${runtime}\u0000${source}`);
}

/** This process's Node build and flags, as the key needs them. */
export function runtimeOf(): string {
  return [process.version, process.arch, process.execArgv.join(' '), process.env.NODE_OPTIONS ?? ''].join(
    '\u0000',
  );
}

/** An entry's bytes: a header line (the format, the key, the data's SHA-256), then V8's data. */
export function encodeCodeCache(key: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${MAGIC} ${key} ${sha256(data)}\n`, 'latin1'), data]);
}

/**
 * V8's data in `bytes` if they are exactly an entry Ralph wrote for `key`, else undefined: a
 * truncated, edited or foreign file is no cache (V8 checks only the data's version, flags and
 * source length, not the data itself).
 */
export function decodeCodeCache(bytes: Buffer, key: string): Buffer | undefined {
  if (bytes.length <= HEADER_BYTES) return undefined;
  const header = bytes.toString('latin1', 0, HEADER_BYTES);
  const data = bytes.subarray(HEADER_BYTES);
  return header === `${MAGIC} ${key} ${sha256(data)}\n` ? data : undefined;
}

const DYNAMIC_IMPORT = /\bimport\s*\(/;

/** A bundle file's name without rolldown's content hash: a rebuild's entry replaces the old one. */
const stableName = (file: string) => basename(file, '.cjs').replace(/-[\w-]{8}$/, '');

interface Pending {
  script: Script;
  file: string;
  key: string;
  stable: string;
}

interface ModuleInternals {
  prototype: {
    _compile(this: CompiledModule, content: string, filename: string, ...rest: unknown[]): unknown;
  };
  wrap(source: string): string;
  createRequire(filename: string): NodeJS.Require;
}
interface CompiledModule {
  exports: unknown;
}

/**
 * Compiles the bundle files beside `entryFile` (`*.cjs`, the CLI bundle) through V8's code cache
 * from now on: an entry made for the same source and runtime is handed to V8, and a file that had
 * none, or whose entry V8 refused, gets one at exit (with the functions the run compiled). Does
 * nothing for ES modules (tsc's output), for a file that imports one, or when Node maps stack
 * traces (`--enable-source-maps`), which it does only for what it compiles itself. Any failure to read or write is no cache.
 */
export function installCodeCache(entryFile: string, env: NodeJS.ProcessEnv = process.env): void {
  if (!entryFile.endsWith('.cjs') || process.sourceMapsEnabled) return;
  const dir = dirname(entryFile);
  const cacheDir = userCacheDir(env, 'code');
  const runtime = runtimeOf();
  // CommonJS's loader class, from this bundle file's own `module`: `node:module` would also load
  // Node's ES loader and source-map support (four built-in modules) before the first agent.
  if (typeof module === 'undefined') return;
  const Module = module.constructor as unknown as ModuleInternals;
  const vm = process.getBuiltinModule('node:vm');
  const pending: Pending[] = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename, ...rest) {
    // A script V8 made from its code cache loses its dynamic-import callback (Node 20): a file that
    // imports an ES module (ink) is left to Node, which compiles it, as every other file, without.
    if (dirname(filename) !== dir || !filename.endsWith('.cjs') || DYNAMIC_IMPORT.test(content))
      return compile.call(this, content, filename, ...rest);
    const key = codeCacheKey(content, runtime);
    const stable = stableName(filename);
    const file = join(cacheDir, `${stable}.${key.slice(0, 32)}.v8`);
    const cachedData = readCodeCache(file, key);
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected === true)
      pending.push({ script, file, key, stable });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, Module.createRequire(filename), this, filename, dir);
  };
  process.once('exit', () => writeCodeCaches(cacheDir, pending));
}

function readCodeCache(file: string, key: string): Buffer | undefined {
  try {
    const bytes = readOwnerOnly(file);
    return bytes === undefined ? undefined : decodeCodeCache(bytes, key);
  } catch {
    return undefined; // none yet
  }
}

/** Writes each pending entry (owner-only, atomically) and removes older entries of its file. */
function writeCodeCaches(cacheDir: string, pending: readonly Pending[]): void {
  if (pending.length === 0) return;
  try {
    makeOwnerOnlyDir(cacheDir);
    const names = readdirSync(cacheDir);
    for (const { script, file, key, stable } of pending) {
      replaceFileSync(file, encodeCodeCache(key, script.createCachedData()), false, 0o600);
      for (const name of names)
        if (name.startsWith(`${stable}.`) && name.endsWith('.v8') && join(cacheDir, name) !== file)
          rmSync(join(cacheDir, name), { force: true });
    }
  } catch {
    // A read-only or foreign cache directory: the next start compiles again.
  }
}
