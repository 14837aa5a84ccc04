import { stringify } from 'yaml';
import { configJsonSchema } from '../config/json-schema.ts';
import { loadConfig } from '../config/load-config.ts';
import { parseSetOverride } from '../config/overrides.ts';
import { ExitCode } from '../errors.ts';
import { packageVersion } from '../paths-package.ts';
import type { CliIO } from './io.ts';
import { configChecks, findConfigFile } from './resolve-run.ts';

interface ConfigFlags {
  config?: string | undefined;
  set?: string[] | undefined;
}

function load(flags: ConfigFlags, io: CliIO) {
  const file = findConfigFile(io.cwd, flags.config);
  return loadConfig({
    file,
    cwd: io.cwd,
    overrides: (flags.set ?? []).map(parseSetOverride),
    checks: configChecks(io.cwd, io.env),
  });
}

/** `ralph config validate`: every problem as file:line:col (thrown as ConfigError), or a one-line OK. */
export function configValidateCommand(flags: ConfigFlags, io: CliIO): number {
  const { file, config } = load(flags, io);
  const hats = Object.keys(config.hats).length;
  io.out(
    `${file ?? '(no ralph.yml; defaults)'}: valid (backend ${config.cli.backend}${hats ? `, ${hats} hats` : ''})\n`,
  );
  return ExitCode.ok;
}

/** `ralph config show`: the resolved configuration with every default filled in. */
export function configShowCommand(flags: ConfigFlags, io: CliIO): number {
  const { file, config } = load(flags, io);
  io.out(`# resolved from ${file ?? 'defaults'}\n${stringify(config)}`);
  return ExitCode.ok;
}

/** `ralph config schema`: the JSON Schema of ralph.yml, generated from the validating schema. */
export function configSchemaCommand(io: CliIO): number {
  io.out(`${JSON.stringify(configJsonSchema(packageVersion()), null, 2)}\n`);
  return ExitCode.ok;
}
