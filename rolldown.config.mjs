// The `ralph` command as a few files instead of ~250 modules: Node 20 has no module compile cache,
// and resolving and linking each ES module before the first agent starts cost more than running
// it (bench/README.md, "Before the first agent"). Built from tsc's output in dist/, so the bundle
// runs the same JavaScript as the library entry (dist/index.js), which stays unbundled.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { defineConfig } from 'rolldown';

// Small, pure-JS packages on the `ralph run` path go into the bundle (zod's locales it never uses
// drop out). The rest (the TUI, the dashboard, the fleet) stays external: loaded from
// node_modules by the command that needs it, as before.
const BUNDLED = new Set([
  '@commander-js/extra-typings',
  'commander',
  'yaml',
  'zod',
  'picocolors',
  'picomatch',
  // Text widths for the TUI, `ralph stats` and the `ralph tools` tables (a few kB, no dependencies of weight).
  'string-width',
  'strip-ansi',
  'ansi-regex',
  'get-east-asian-width',
]);
const packageOf = (id) =>
  id
    .split('/')
    .slice(0, id.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * Every module `entry` (a file of tsc's output) imports statically, itself included, as absolute
 * paths: read from the import statements tsc wrote (type-only imports are gone from its output).
 * Only chunking depends on it: a module it misses or adds ends up in another chunk, never lost.
 */
function staticGraph(entry) {
  const seen = new Set();
  const queue = [resolve(entry)];
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/^(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/gm))
      queue.push(resolve(dirname(file), m[1]));
  }
  return seen;
}

// What `ralph run` loads before its first agent, beyond the chunks below: one chunk, not a file per
// module it shares with another command (each file is resolved, read and linked on its own; 20
// small files cost several ms more than one). The part of it that `ralph status` and the commands
// that steer a running loop (tell, stop, answer…) import is a chunk of its own (a group takes in
// what its modules import, so leaving them out of `run` is not enough): they need a few kB of it.
const RUN_GRAPH = staticGraph('dist/cli/run/run-command.js');
const STEERING = new Set(
  [
    ...staticGraph('dist/cli/inspect/status-command.js'),
    ...staticGraph('dist/cli/human/human-commands.js'),
  ].filter((id) => RUN_GRAPH.has(id)),
);
const RUN_PATH = new Set([...RUN_GRAPH].filter((id) => !STEERING.has(id)));

const cli = {
  input: { 'ralph-cli': 'dist/cli/bin.js' },
  platform: 'node',
  external: (id) => id.startsWith('node:') || (/^[^./]/.test(id) && !BUNDLED.has(packageOf(id))),
  output: {
    // Beside the tsc output, one level under the package root: paths-package.ts finds bin/,
    // presets/ and package.json relative to the module it ends up in.
    dir: 'dist',
    // CommonJS, so that bin/ralph's loader can compile each file with V8's code cache
    // (src/state/cache/code-cache.ts): Node 20 has none for ES modules. `.cjs` in this "type": "module"
    // package; ink (an ES module with top-level await) and the other externals the lazy commands
    // use are loaded with import() or are CommonJS themselves.
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: 'ralph-cli-[name]-[hash].cjs',
    // Stack traces name the bundle's lines; the map leads from them to the tsc output beside it.
    sourcemap: true,
    sourcemapExcludeSources: true,
    // ASCII source: Node reads a file with no other character into a one-byte string, about 4x
    // faster than the two-byte one a single `—` in a message makes of the whole file, and half the
    // memory; hashing it for the code cache and V8's scan of it are quicker too.
    charset: 'ascii',
    // JSDoc is a third of the bytes V8 would scan at every start; the code stays as written.
    comments: { legal: true, annotation: false, jsdoc: false },
    // The lazy imports (config loading on a cache miss, each command's module) would otherwise
    // cut the modules they share into dozens of 1–20 kB chunks, one per set of commands sharing
    // them, each one more file to resolve and link before the first agent. The groups below, in
    // the order they take modules (highest priority first; a group also takes in what its modules
    // import that no earlier group took): the TUI, dashboard and fleet stay out (they import ink,
    // hono…), and so does config/ but for the zod-free helpers (a cache hit evaluates neither the
    // schema nor the loader).
    codeSplitting: {
      groups: [
        // What the entry, `ralph emit` and the command definitions need (errors, the platform check,
        // `.ralph/` paths, appending an event, the names of task statuses, memory types and
        // backends): a small chunk of its own, so that `ralph --version`, `--help` and `emit` load
        // neither the chunks below nor the built-in modules they import (crypto, child_process…).
        {
          name: 'base',
          test: /^(?!.*[\\/]node_modules[\\/]).*[\\/]dist[\\/](?:errors|paths-package|process[\\/]platform|cli[\\/](?:io|agent-tools[\\/]emit-command)|state[\\/](?:paths|events-log|cache[\\/](?:code-cache|user-cache)|io[\\/](?:append-line|jsonl|atomic-write|write-faults)|tasks[\\/]task|memories[\\/]memory)|config[\\/]schema[\\/]backend-names)\.js$/,
          priority: 3,
        },
        // The CLI's helpers every command definition uses, and commander with them.
        {
          name: 'cli',
          test: /^(?!.*[\\/]node_modules[\\/]).*[\\/]dist[\\/]cli[\\/](?:options|signals|command-tree|agent-tools[\\/]tool-options)\.js$/,
          priority: 2,
        },
        // The low folders every command uses: their small modules that two chunks share.
        {
          name: 'shared',
          priority: 1,
          test: /[\\/]dist[\\/](?:(?:state|process|git|observe|agent|backends|gates|engine[\\/]gates[\\/]checks)[\\/]|config[\\/]schema[\\/]repo-name\.js$)/,
          minShareCount: 2,
          maxModuleSize: 8 * 1024,
        },
        { name: 'steering', test: (id) => STEERING.has(id), priority: 0.5 },
        { name: 'run', test: (id) => RUN_PATH.has(id), priority: 0 },
      ],
    },
  },
};

// The scripted agent starts once per iteration of every loop it plays (the tests, `ralph demo`):
// one file in place of tsc's main.js, yaml and zod inside it, instead of resolving and linking them
// module by module from node_modules (about 0.1 s of CPU less per start, 0.15 s instead of 0.26 s).
const fakeAgent = {
  input: { main: 'dist/fake-agent/main.js' },
  platform: 'node',
  external: (id) => id.startsWith('node:'),
  output: {
    dir: 'dist/fake-agent',
    format: 'esm',
    entryFileNames: '[name].js',
    comments: { legal: true, annotation: false, jsdoc: false },
  },
};

export default defineConfig([cli, fakeAgent]);
