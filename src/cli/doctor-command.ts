import { relative } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import pc from 'picocolors';
import { loadConfig } from '../config/load-config.ts';
import { parseSetOverride } from '../config/overrides.ts';
import { configSchema, type RalphConfig } from '../config/schema.ts';
import { ExitCode } from '../errors.ts';
import {
  checkDiskSpace,
  findExecutable,
  type HealthResult,
  healthFatal,
  resolveAgentCommand,
  runHealthChecks,
} from '../gates/health.ts';
import type { CliIO } from './io.ts';
import { findConfigFile } from './resolve-run.ts';

const collect = (value: string, previous: string[]) => [...previous, value];

interface DoctorFlags {
  config?: string | undefined;
  set?: string[] | undefined;
  json?: boolean | undefined;
}

/** The configured backend and whether its agent binary can be started. */
export interface DoctorBackend {
  name: string;
  command: string | null;
  available: boolean;
  /** Where the binary was found, or why it was not / why the backend cannot run. */
  detail: string;
}

/** What `ralph doctor --json` prints. */
export interface DoctorReport {
  ok: boolean;
  node: string;
  workspace: string;
  config: string | null;
  health_enabled: boolean;
  backend: DoctorBackend | null;
  checks: HealthResult[];
}

function backendStatus(config: RalphConfig, io: CliIO): { backend: DoctorBackend; problem?: HealthResult } {
  const agent = resolveAgentCommand(config, io.cwd, io.env);
  if (!agent.ok) {
    return {
      backend: { name: agent.backend, command: null, available: false, detail: agent.error },
      problem: { check: 'backend', level: 'fatal', message: agent.error },
    };
  }
  const found = findExecutable(agent.command, agent.env.PATH, io.cwd);
  return {
    backend: {
      name: agent.backend,
      command: agent.command,
      available: found.found,
      detail: found.found ? found.path : found.detail,
    },
  };
}

/** Runs every health check (even with `health.enabled: false`, which only skips them before iterations). */
export function buildDoctorReport(flags: DoctorFlags, io: CliIO): DoctorReport {
  const base = { node: process.version, workspace: io.cwd };
  let file: string | undefined;
  let config: RalphConfig;
  try {
    file = findConfigFile(io.cwd, flags.config);
    config = loadConfig({ file, cwd: io.cwd, overrides: (flags.set ?? []).map(parseSetOverride) }).config;
  } catch (error) {
    // Without a config only the disk can be judged; the config problem itself is the fatal finding.
    const defaults = configSchema.parse({});
    const checks: HealthResult[] = [
      { check: 'config', level: 'fatal', message: (error as Error).message },
      checkDiskSpace(io.cwd, defaults.health.min_free_disk_mb * 1024 * 1024),
    ];
    return {
      ok: false,
      ...base,
      config: file ?? flags.config ?? null,
      health_enabled: true,
      backend: null,
      checks,
    };
  }
  const forced: RalphConfig = { ...config, health: { ...config.health, enabled: true } };
  const { backend, problem } = backendStatus(config, io);
  const checks = runHealthChecks({ workspace: io.cwd, config: forced, env: io.env });
  if (problem) checks.push(problem);
  return {
    ok: healthFatal(checks) === undefined,
    ...base,
    config: file ?? null,
    health_enabled: config.health.enabled,
    backend,
    checks,
  };
}

function label(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}

function renderReport(report: DoctorReport, io: CliIO): string {
  const c = pc.createColors(io.color);
  const mark = { ok: c.green('✓'), warn: c.yellow('!'), fatal: c.red('✗') } as const;
  const lines = [
    'ralph doctor',
    `  node       ${report.node}`,
    `  workspace  ${report.workspace}`,
    `  config     ${report.config === null ? '(no ralph.yml; defaults)' : label(report.config, report.workspace)}`,
  ];
  if (report.backend) {
    const b = report.backend;
    const state =
      b.command === null
        ? 'cannot run'
        : b.available
          ? b.detail === b.command
            ? 'found'
            : `found: ${b.detail}`
          : `not found (${b.detail})`;
    lines.push(`  backend    ${b.name}${b.command === null ? '' : ` → ${b.command}`} (${state})`);
  }
  if (!report.health_enabled) {
    lines.push('  health     health.enabled is false: these checks do not run before iterations');
  }
  const width = Math.max(...report.checks.map((r) => r.check.length));
  const indent = `\n${' '.repeat(width + 4)}`;
  for (const r of report.checks) {
    lines.push(`${mark[r.level]} ${r.check.padEnd(width)}  ${r.message.replace(/\n/g, indent)}`);
  }
  const fatal = report.checks.filter((r) => r.level === 'fatal').length;
  const warn = report.checks.filter((r) => r.level === 'warn').length;
  lines.push(
    fatal > 0
      ? c.red(
          `${fatal} fatal ${fatal === 1 ? 'problem' : 'problems'}: ralph run would stop before its first iteration`,
        )
      : `ready to run${warn > 0 ? ` (${warn} ${warn === 1 ? 'warning' : 'warnings'})` : ''}`,
  );
  return `${lines.join('\n')}\n`;
}

/** `ralph doctor [--json]`: exit 1 when any check is fatal. */
export function doctorCommand(flags: DoctorFlags, io: CliIO): number {
  const report = buildDoctorReport(flags, io);
  io.out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report, io));
  return report.ok ? ExitCode.ok : ExitCode.failure;
}

/** Adds `ralph doctor` to the program. */
export function registerDoctorCommand(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program
    .command('doctor')
    .description('check that ralph can run here: disk space, git, specs, the agent binary')
    .option('-c, --config <file>', 'config file (default: ralph.yml when present)')
    .option('--set <key.path=value>', 'override a value (repeatable)', collect, [] as string[])
    .option('--json', 'machine-readable output')
    .action((opts) => setCode(doctorCommand(opts, io)));
}
