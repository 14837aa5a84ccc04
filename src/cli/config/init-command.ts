import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { detectPeerProject, initFrom } from '../../config/migrate/init-from.ts';
import { describeLine } from '../../config/migrate/peer-mappings.ts';
import { checkBackend, enableSandbox, initPreset, setBackend } from '../../config/preset-init.ts';
import { findPreset, PRESETS } from '../../config/presets.ts';
import {
  configJsonSchema,
  WORKSPACE_SCHEMA_PATH,
  withSchemaModeline,
} from '../../config/reference/json-schema.ts';
import { resolveRunConfig } from '../../engine/run/resolve-run.ts';
import { ExitCode } from '../../errors.ts';
import { packageVersion } from '../../paths-package.ts';
import { probeSandbox } from '../../sandbox/probe.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import { writeFileInPlace } from '../../state/io/file-writes.ts';
import { ralphPaths } from '../../state/paths.ts';
import { ensureRuntimeIgnored } from '../../state/runtime-ignore.ts';
import type { CliIO } from '../io.ts';

/**
 * Editor support: the JSON Schema of this version in `.ralph/`, and the yaml-language-server line in
 * ralph.yml pointing at it (VS Code and other editors then complete and check the file).
 */
function writeEditorSchema(dir: string): string {
  const schemaFile = join(dir, WORKSPACE_SCHEMA_PATH);
  writeFileAtomicSync(schemaFile, `${JSON.stringify(configJsonSchema(packageVersion()), null, 2)}\n`);
  const configFile = join(dir, 'ralph.yml');
  writeFileInPlace(configFile, withSchemaModeline(readFileSync(configFile, 'utf8')));
  return WORKSPACE_SCHEMA_PATH;
}

/**
 * What every written ralph.yml gets (`ralph init`, `ralph new`): the editor schema, and the runtime
 * .gitignore so git ignores Ralph's runtime files before the first agent runs `git add -A`.
 * Returns the files written, relative to `dir`.
 */
export function writeWorkspaceSupport(dir: string): string[] {
  const written = [writeEditorSchema(dir)];
  const paths = ralphPaths(dir);
  if (ensureRuntimeIgnored(paths, 'commit').changed) written.push(relative(dir, paths.gitignore));
  return written;
}

/**
 * The sandbox of a new ralph.yml (`ralph init`, `ralph new`): `on` where it works here (the default
 * stays `off`, so a project made before it, or on a machine without bubblewrap, runs as it did).
 * The line saying which.
 */
export async function initSandbox(dir: string): Promise<string> {
  const probe = await probeSandbox();
  if (!probe.ok)
    return `sandbox: left off (${probe.detail}); to confine the agent: ${probe.fix}, then set sandbox: on — docs/guide/sandbox.md`;
  if (!enableSandbox(join(dir, 'ralph.yml'))) return '';
  return `sandbox: on (${probe.tool} works here; the agent can touch only this project) — docs/guide/sandbox.md`;
}

/** `ralph init`: writes the preset, the editor schema and the runtime .gitignore; prints what it wrote. */
export async function initCommand(
  opts: {
    preset: string;
    backend?: string | undefined;
    force?: boolean | undefined;
    from?: string | undefined;
  },
  io: CliIO,
): Promise<number> {
  if (opts.from !== undefined) return initFromCommand(opts.from, opts, io);
  const peer = detectPeerProject(io.cwd);
  const written = initPreset(io.cwd, opts.preset, { force: Boolean(opts.force), backend: opts.backend });
  const sandbox = await initSandbox(io.cwd);
  written.push(...writeWorkspaceSupport(io.cwd));
  io.out(
    `wrote preset ${opts.preset}: ${written.join(', ')}\n${sandbox ? `${sandbox}\n` : ''}next: ${findPreset(opts.preset).next}\n`,
  );
  if (peer)
    io.out(`note: this looks like a ${peer} project: \`ralph init --from ${peer} --force\` maps its files\n`);
  return ExitCode.ok;
}

/**
 * `ralph init --from <kind>`: the equivalent ralph.yml written (ralph-orchestrator's read as it is),
 * one line per file or setting of theirs, then the config validated as `ralph run` will read it.
 */
function initFromCommand(
  from: string,
  opts: { backend?: string | undefined; force?: boolean | undefined },
  io: CliIO,
): number {
  if (opts.backend !== undefined) checkBackend(opts.backend);
  const result = initFrom(io.cwd, from, { force: Boolean(opts.force) });
  if (result.written && opts.backend !== undefined)
    setBackend(join(io.cwd, result.written), opts.backend as Parameters<typeof setBackend>[1]);
  const support = result.written ? writeWorkspaceSupport(io.cwd) : [];
  for (const line of result.migration.lines) io.out(`${describeLine(line)}\n`);
  const { configWarnings } = resolveRunConfig({ cwd: io.cwd, env: io.env });
  for (const warning of configWarnings) io.out(`warning: ${warning}\n`);
  if (result.written) io.out(`wrote ${[result.written, ...support].join(', ')}\n`);
  io.out('next: ralph config validate, then ralph run\n');
  return ExitCode.ok;
}

/** `ralph presets`: one line per preset. */
export function presetsCommand(io: CliIO, flags: { json?: boolean | undefined } = {}): number {
  if (flags.json) {
    io.out(
      `${JSON.stringify(
        PRESETS.map((p) => ({ name: p.name, description: p.description })),
        null,
        2,
      )}\n`,
    );
    return ExitCode.ok;
  }
  for (const p of PRESETS) io.out(`${p.name.padEnd(10)} ${p.description}\n`);
  return ExitCode.ok;
}
