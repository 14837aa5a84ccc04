import { relative } from 'node:path';
import { parseSetOverride } from '../../config/overrides.ts';
import type { HookProblem } from '../../engine/hooks/check-hooks.ts';
import { checkHooks } from '../../engine/hooks/validate-hooks.ts';
import { resolveRunConfig } from '../../engine/run/resolve-run.ts';
import { ConfigError, ExitCode } from '../../errors.ts';
import type { CliIO } from '../io.ts';

interface HooksFlags {
  config?: string | undefined;
  /** `-H SOURCE`: the hats source over the config's hats. */
  hats?: string | undefined;
  set?: string[] | undefined;
  json?: boolean | undefined;
}

/**
 * `ralph hooks validate`: the hooks section's schema (through the one config door) and what only
 * this machine can tell (commands that run, cwds that exist, names, timeouts); exit 1 on a problem.
 */
export function hooksValidateCommand(flags: HooksFlags, io: CliIO): number {
  let report: { source: string; enabled: boolean; hooks: number; problems: HookProblem[] };
  try {
    const { loaded } = resolveRunConfig({
      cwd: io.cwd,
      configPath: flags.config,
      hats: flags.hats,
      overrides: (flags.set ?? []).map(parseSetOverride),
      env: io.env,
    });
    const source = loaded.file === undefined ? '(no ralph.yml; defaults)' : shown(io.cwd, loaded.file);
    report = { source, ...checkHooks(loaded, io.cwd, io.env) };
  } catch (error) {
    // A config that does not load is reported the same way: each problem with its file:line:col.
    if (!(error instanceof ConfigError) || flags.json !== true) throw error;
    const problems = error.issues.map((i) => ({ ...i, code: 'config.invalid' }));
    report = { source: flags.config ?? 'ralph.yml', enabled: false, hooks: 0, problems };
  }
  const pass = report.problems.length === 0;
  if (flags.json) {
    io.out(
      `${JSON.stringify(
        {
          pass,
          source: report.source,
          hooks_enabled: report.enabled,
          checked_hooks: report.hooks,
          problems: report.problems.map((p) => ({
            code: p.code,
            message: p.message,
            file: p.file,
            line: p.line,
            col: p.col,
            path: p.path,
            phase_event: p.phaseEvent ?? null,
            hook: p.hook ?? null,
            command: p.command ?? null,
          })),
        },
        null,
        2,
      )}\n`,
    );
    return pass ? ExitCode.ok : ExitCode.failure;
  }
  const n = `${report.hooks} ${report.hooks === 1 ? 'hook' : 'hooks'}`;
  if (pass) {
    io.out(
      `${report.source}: ${n} valid${report.enabled ? '' : ' (hooks.enabled is false: they do not run)'}\n`,
    );
    return ExitCode.ok;
  }
  io.err(
    `${report.source}: ${n}, ${report.problems.length} ${report.problems.length === 1 ? 'problem' : 'problems'}:\n`,
  );
  // ConfigError's own wording of located issues, one line each.
  for (const line of new ConfigError(report.problems).message.split('\n')) io.err(`  ${line}\n`);
  return ExitCode.failure;
}

function shown(cwd: string, file: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}
