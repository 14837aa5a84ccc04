import { relative } from 'node:path';
import { parseSetOverride } from '../../config/overrides.ts';
import { resolveRunConfig } from '../../engine/run/resolve-run.ts';
import { ConfigError, ExitCode } from '../../errors.ts';
import { renderHatGraph } from '../../routing/hat-graph.ts';
import type { CliIO } from '../io.ts';
import { issueJson } from './config-command.ts';

interface HatsFlags {
  config?: string | undefined;
  /** `-H SOURCE`: the hats source over the config's hats. */
  hats?: string | undefined;
  set?: string[] | undefined;
}

/** The config as `ralph run` resolves it; hat problems come back as a ConfigError (file:line:col). */
function load(flags: HatsFlags, io: CliIO) {
  const { loaded } = resolveRunConfig({
    cwd: io.cwd,
    configPath: flags.config,
    hats: flags.hats,
    overrides: (flags.set ?? []).map(parseSetOverride),
    env: io.env,
  });
  const { file } = loaded;
  const rel = file === undefined ? undefined : relative(io.cwd, file);
  const label = rel === undefined ? '(no ralph.yml; defaults)' : rel.startsWith('..') ? file : rel;
  return { ...loaded, label: loaded.hatsSource ? `${label} + hats ${loaded.hatsSource}` : label };
}

/** `ralph hats validate`: a one-line OK, or the ConfigError propagates to the CLI's error report (`--json`: one object either way). */
export function hatsValidateCommand(flags: HatsFlags & { json?: boolean | undefined }, io: CliIO): number {
  let loaded: ReturnType<typeof load>;
  try {
    loaded = load(flags, io);
  } catch (error) {
    if (!flags.json || !(error instanceof ConfigError)) throw error;
    io.out(`${JSON.stringify({ valid: false, errors: error.issues.map(issueJson) }, null, 2)}\n`);
    return error.exitCode;
  }
  const { config, label } = loaded;
  const n = Object.keys(config.hats).length;
  if (flags.json) {
    const report = { valid: true, file: loaded.file ?? null, hats_source: loaded.hatsSource ?? null };
    io.out(`${JSON.stringify({ ...report, hats: Object.keys(config.hats) }, null, 2)}\n`);
    return ExitCode.ok;
  }
  io.out(`${label}: ${n} ${n === 1 ? 'hat' : 'hats'} valid${n === 0 ? ' (solo mode)' : ''}\n`);
  return ExitCode.ok;
}

/** `ralph hats graph`: the hat topology as text or a Mermaid `graph LR`. */
export function hatsGraphCommand(flags: HatsFlags & { format: 'text' | 'mermaid' }, io: CliIO): number {
  const { config } = load(flags, io);
  io.out(renderHatGraph(config, flags.format));
  return ExitCode.ok;
}

/** Adds `ralph hats validate|graph` to the program. */
