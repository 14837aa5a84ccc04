import { relative } from 'node:path';
import { parseSetOverride } from '../../config/overrides.ts';
import { resolveRunConfig } from '../../engine/run/resolve-run.ts';
import { ExitCode } from '../../errors.ts';
import { renderHatGraph } from '../../routing/hat-graph.ts';
import type { CliIO } from '../io.ts';

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

/** `ralph hats validate`: a one-line OK, or the ConfigError propagates to the CLI's error report. */
export function hatsValidateCommand(flags: HatsFlags, io: CliIO): number {
  const { config, label } = load(flags, io);
  const n = Object.keys(config.hats).length;
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
