import { stringify } from 'yaml';
import { explainConfig } from '../../config/config-explain.ts';
import { parseSetOverride } from '../../config/overrides.ts';
import { configJsonSchema } from '../../config/reference/json-schema.ts';
import { closestMatch } from '../../config/suggest.ts';
import { preflight } from '../../engine/readiness/preflight.ts';
import { resolveRunConfig } from '../../engine/run/resolve-run.ts';
import { ConfigError, type ConfigIssue, ExitCode, UsageError } from '../../errors.ts';
import { packageVersion } from '../../paths-package.ts';
import type { CliIO } from '../io.ts';
import { shownConfig, shownExplain } from './shown-config.ts';

interface ConfigFlags {
  config?: string | undefined;
  preset?: string | undefined;
  /** `-H SOURCE`: the hats source over the config's hats. */
  hats?: string | undefined;
  set?: string[] | undefined;
  /** `config validate --schema-only`: the file, not the machine. */
  schemaOnly?: boolean | undefined;
  /** `config validate --strict`: a warning about the file is an error. */
  strict?: boolean | undefined;
}

/** The config as `ralph run` resolves it: the same layers, RALPH_AGENT and `--set`, one door. */
function load(flags: ConfigFlags, io: CliIO) {
  return resolveRunConfig({
    cwd: io.cwd,
    configPath: flags.config,
    preset: flags.preset,
    hats: flags.hats,
    overrides: (flags.set ?? []).map(parseSetOverride),
    env: io.env,
  });
}

/** `ralph config validate`: every problem as file:line:col (thrown as ConfigError), or a one-line OK. */
export async function configValidateCommand(
  flags: ConfigFlags & { json?: boolean | undefined },
  io: CliIO,
): Promise<number> {
  let result: { loaded: ReturnType<typeof load>['loaded']; config: ReturnType<typeof load>['config'] };
  try {
    result = load(flags, io);
    // --strict: the ignored ralph-orchestrator keys fail as invalid keys do (same exit code, same form).
    if (flags.strict && result.loaded.warnings.length > 0) throw new ConfigError([...result.loaded.warnings]);
  } catch (error) {
    if (!flags.json || !(error instanceof ConfigError)) throw error;
    io.out(`${JSON.stringify({ valid: false, errors: error.issues.map(issueJson) }, null, 2)}\n`);
    return error.exitCode;
  }
  const { loaded, config } = result;
  const hats = Object.keys(config.hats).length;
  const { hatsSource } = loaded;
  // The same preflight `ralph run` makes: what it would fail on a minute later, said now.
  const problems = flags.schemaOnly
    ? []
    : (await preflight(io.cwd, config, io.env)).filter((r) => r.level !== 'ok');
  const fatal = problems.some((r) => r.level === 'fatal');
  if (flags.json) {
    const report = {
      valid: true,
      file: loaded.file ?? null,
      hats_source: hatsSource ?? null,
      backend: loaded.config.cli.backend,
      hats,
      notes: loaded.notes.map(issueJson),
      warnings: loaded.warnings.map(issueJson),
      run_would_stop: fatal,
      problems: problems.map((r) => ({ level: r.level, check: r.check, message: r.message })),
    };
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    return fatal ? ExitCode.failure : ExitCode.ok;
  }
  io.out(
    `${loaded.file ?? '(no ralph.yml; defaults)'}${hatsSource ? ` + hats ${hatsSource}` : ''}: valid (backend ${loaded.config.cli.backend}${hats ? `, ${hats} hats` : ''})\n`,
  );
  for (const line of issueLines(loaded.notes)) io.out(`  · ${line}\n`);
  for (const line of issueLines(loaded.warnings)) io.out(`  ! ${line}\n`);
  if (problems.length > 0)
    io.out(
      `${fatal ? 'but `ralph run` would stop before its first iteration:' : 'warnings:'}\n${problems
        .map((r) => `  ${r.level === 'fatal' ? '✗' : '!'} ${r.check}: ${r.message}`)
        .join('\n')}\n`,
    );
  return fatal ? ExitCode.failure : ExitCode.ok;
}

/** A located issue for `--json`: where (file, line, col), the key, what is wrong. */
export function issueJson(issue: ConfigIssue): {
  file: string;
  line: number;
  col: number;
  key: string;
  message: string;
} {
  return { file: issue.file, line: issue.line, col: issue.col, key: issue.path, message: issue.message };
}

/** Located issues as `file:line:col: key: message` lines, formatted as the config errors are. */
function issueLines(issues: readonly ConfigIssue[]): string[] {
  return issues.length === 0 ? [] : new ConfigError([...issues]).message.split('\n');
}

/** `ralph config show`: the resolved configuration with every default filled in, secrets masked. */
export function configShowCommand(flags: ConfigFlags, io: CliIO): number {
  const { loaded } = load(flags, io);
  const { hatsSource } = loaded;
  io.out(
    `# resolved from ${loaded.file ?? 'defaults'}${hatsSource ? ` + hats ${hatsSource}` : ''}\n${stringify(shownConfig(loaded, io.env, loaded.config))}`,
  );
  return ExitCode.ok;
}

/** `ralph config explain [key]`: every key's value (secrets masked) and the layer it came from. */
export function configExplainCommand(
  key: string | undefined,
  flags: ConfigFlags & { json?: boolean },
  io: CliIO,
): number {
  const { loaded } = load(flags, io);
  const rows = shownExplain(loaded, io.env, key);
  if (key !== undefined && rows.length === 0) {
    const all = explainConfig(loaded).map((r) => r.path);
    const near = closestMatch(key, all);
    throw new UsageError(
      `no key "${key}" in the config${near ? ` — did you mean "${near}"?` : ''}; \`ralph config explain\` lists every key`,
    );
  }
  if (flags.json) {
    io.out(
      `${JSON.stringify({ layers: loaded.layers.map((l) => ({ kind: l.kind, file: l.file })), keys: rows }, null, 2)}\n`,
    );
    return ExitCode.ok;
  }
  const layers = [
    'default',
    ...loaded.layers.map((l) => `${l.kind} ${l.label}`),
    ...(loaded.overrides.length > 0 ? ['flags'] : []),
  ];
  const width = Math.min(
    48,
    Math.max(...rows.map((r) => r.path.length + 3 + JSON.stringify(r.value ?? null).length)),
  );
  io.out(`# layers, lowest first: ${layers.join(' → ')}\n`);
  for (const r of rows) {
    const left = `${r.path} = ${JSON.stringify(r.value ?? null)}`;
    io.out(`${left.padEnd(width)}  ← ${r.source}\n`);
  }
  return ExitCode.ok;
}

/** `ralph config schema`: the JSON Schema of ralph.yml, generated from the validating schema. */
export function configSchemaCommand(io: CliIO): number {
  io.out(`${JSON.stringify(configJsonSchema(packageVersion()), null, 2)}\n`);
  return ExitCode.ok;
}
