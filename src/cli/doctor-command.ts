import { relative } from 'node:path';
import pc from 'picocolors';
import { type BackendInspection, inspectBackends, knownBackends } from '../backends/backend-info.ts';
import { runningAsRoot } from '../backends/claude.ts';
import { pickAutoBackend } from '../backends/registry.ts';
import { loadConfig } from '../config/load-config.ts';
import { parseSetOverride } from '../config/overrides.ts';
import { configSchema, type RalphConfig } from '../config/schema.ts';
import { preflight } from '../engine/steps/preflight.ts';
import { ExitCode } from '../errors.ts';
import { checkDiskSpace, type HealthResult, healthFatal, resolveAgentCommand } from '../gates/health.ts';
import { formatCost, formatNumber } from '../observe/format.ts';
import { createRedactor, redactDeep } from '../observe/redact.ts';
import { findExecutable } from '../process/find-executable.ts';
import { formatDuration } from '../state/time-format.ts';
import { type DoctorProbe, probeFailure, runProbe } from './doctor-probe.ts';
import type { CliIO } from './io.ts';
import { configChecks, configLayers, findConfigFile, withAutoBackend } from './resolve-run.ts';

interface DoctorFlags {
  config?: string | undefined;
  set?: string[] | undefined;
  json?: boolean | undefined;
  probe?: boolean | undefined;
}

/** The configured backend and whether its agent binary can be started. */
export interface DoctorBackend {
  name: string;
  command: string | null;
  available: boolean;
  /** Where the binary was found, or why it was not / why the backend cannot run. */
  detail: string;
}

/** One agent CLI in the backends table. */
export interface DoctorBackendRow extends BackendInspection {
  /** It is `cli.backend` (or what `auto` resolves to, when that is configured). */
  configured: boolean;
  /** `cli.backend: auto` would pick it. */
  auto_pick: boolean;
}

/** What `ralph doctor --json` prints (secrets redacted). */
export interface DoctorReport {
  ok: boolean;
  node: string;
  workspace: string;
  config: string | null;
  health_enabled: boolean;
  backend: DoctorBackend | null;
  checks: HealthResult[];
  backends: DoctorBackendRow[];
  /** What `cli.backend: auto` would pick, or null when no agent CLI of AUTO_ORDER is on PATH. */
  auto_backend: string | null;
  running_as_root: boolean;
  notes: string[];
  /** Null unless `--probe`. */
  probe: DoctorProbe | null;
}

/** The health part of the report, and the config it was judged against (undefined when it failed to load). */
type HealthReport = Omit<
  DoctorReport,
  'backends' | 'auto_backend' | 'running_as_root' | 'notes' | 'probe'
> & {
  loaded: RalphConfig | undefined;
};

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
async function buildHealthReport(flags: DoctorFlags, io: CliIO): Promise<HealthReport> {
  const base = { node: process.version, workspace: io.cwd };
  let file: string | undefined;
  let config: RalphConfig;
  try {
    file = findConfigFile(io.cwd, flags.config);
    // The agent `ralph run` would use: RALPH_AGENT over ralph.yml, --set over both, auto resolved.
    const agent = io.env.RALPH_AGENT?.trim();
    const overrides = [
      ...(agent ? [{ path: ['cli', 'backend'], value: agent, source: `RALPH_AGENT=${agent}` }] : []),
      ...(flags.set ?? []).map(parseSetOverride),
    ];
    config = withAutoBackend(
      loadConfig({
        layers: configLayers(io.cwd, io.env, flags),
        cwd: io.cwd,
        overrides,
        checks: configChecks(io.cwd, io.env),
      }).config,
      io.cwd,
      io.env,
    );
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
      loaded: undefined,
    };
  }
  const forced: RalphConfig = { ...config, health: { ...config.health, enabled: true } };
  const { backend } = backendStatus(config, io);
  // The same preflight as `ralph config validate` and `ralph run`.
  const checks = await preflight(io.cwd, forced, io.env);
  return {
    ok: healthFatal(checks) === undefined,
    ...base,
    config: file ?? null,
    health_enabled: config.health.enabled,
    backend,
    checks,
    loaded: config,
  };
}

const ROOT_NOTE =
  'running as root: Ralph sets IS_SANDBOX=1 for Claude Code, which refuses --dangerously-skip-permissions as root';

/** The whole report: health checks, every known agent CLI, and the probe when asked for. */
export async function buildDoctorReport(flags: DoctorFlags, io: CliIO): Promise<DoctorReport> {
  return (await gatherDoctor(flags, io)).report;
}

/** The report, and `cli.env` (which may hold keys the output must not show). */
async function gatherDoctor(
  flags: DoctorFlags,
  io: CliIO,
): Promise<{ report: DoctorReport; cliEnv: Record<string, string> }> {
  const { loaded, ...health } = await buildHealthReport(flags, io);
  const auto = pickAutoBackend(io.env, io.cwd) ?? null;
  const configured = loaded?.cli.backend === 'auto' ? auto : (loaded?.cli.backend ?? null);
  const backends = (await inspectBackends(io.env, io.cwd)).map((b) => ({
    ...b,
    configured: b.name === configured,
    auto_pick: b.name === auto,
  }));
  const root = runningAsRoot();
  const probe = flags.probe
    ? loaded
      ? await runProbe(loaded, io)
      : probeFailure('(config)', 'unavailable', 'the config could not be loaded; fix it first')
    : null;
  return {
    report: {
      ...health,
      backends,
      auto_backend: auto,
      running_as_root: root,
      notes: root ? [ROOT_NOTE] : [],
      probe,
    },
    cliEnv: loaded?.cli.env ?? {},
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
  for (const note of report.notes) lines.push(`  root       ${note}`);
  if (!report.health_enabled) {
    lines.push('  health     health.enabled is false: these checks do not run before iterations');
  }
  const width = Math.max(...report.checks.map((r) => r.check.length));
  const indent = `\n${' '.repeat(width + 4)}`;
  for (const r of report.checks) {
    lines.push(`${mark[r.level]} ${r.check.padEnd(width)}  ${r.message.replace(/\n/g, indent)}`);
  }
  if (report.probe) lines.push(probeLine(report.probe, width, mark));
  lines.push(...backendsTable(report, mark));
  const fatal = report.checks.filter((r) => r.level === 'fatal').length;
  const warn = report.checks.filter((r) => r.level === 'warn').length;
  lines.push(
    fatal > 0
      ? c.red(
          `${fatal} fatal ${fatal === 1 ? 'problem' : 'problems'}: ralph run would stop before its first iteration`,
        )
      : report.probe && !report.probe.ok
        ? c.red('the probe failed: ralph run would fail its first iteration')
        : `ready to run${warn > 0 ? ` (${warn} ${warn === 1 ? 'warning' : 'warnings'})` : ''}`,
  );
  return `${lines.join('\n')}\n`;
}

type Marks = Record<'ok' | 'warn' | 'fatal', string>;

const KIND_LABEL: Record<string, string> = {
  agent_error: 'agent error',
  auth_error: 'auth error',
  rate_limit: 'rate limit',
  context_overflow: 'context overflow',
  killed: 'killed',
  interrupted: 'interrupted',
  unavailable: 'cannot run',
};

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function probeLine(p: DoctorProbe, width: number, mark: Marks): string {
  const label = 'probe'.padEnd(Math.max(width, 5));
  if (p.ok) {
    const t = p.tokens;
    const facts = [
      t && t.total > 0
        ? `tokens ${formatNumber(t.input)} in / ${formatNumber(t.output)} out`
        : 'no token usage reported',
      p.cost_usd === null ? undefined : formatCost(p.cost_usd),
      p.duration_ms === null ? undefined : formatDuration(p.duration_ms),
    ].filter(Boolean);
    return `${mark.ok} ${label}  ${p.backend} answered: ${oneLine(p.message) || '(no text)'} (${facts.join(', ')})`;
  }
  const kind = KIND_LABEL[p.kind] ?? p.kind;
  const reset = p.reset_at ? ` (resets ${p.reset_at})` : '';
  const login = knownBackends().find((b) => b.name === p.backend)?.login;
  const hint = p.kind === 'auth_error' && login ? ` — ${login}` : '';
  return `${mark.fatal} ${label}  ${p.backend}: ${kind}: ${oneLine(p.message)}${reset}${hint}`;
}

/** One line per known agent CLI: installed, version, credentials, adapter, configured / auto. */
function backendsTable(report: DoctorReport, mark: Marks): string[] {
  const rows = report.backends;
  const nameWidth = Math.max(...rows.map((b) => b.name.length));
  const version = (b: DoctorBackendRow) => (b.installed ? (b.version ?? 'version unknown') : 'not installed');
  const versionWidth = Math.max(...rows.map((b) => version(b).length));
  const lines = ['backends'];
  for (const b of rows) {
    const tags = [
      b.implemented ? '' : '(not supported by this ralph yet)',
      b.installed ? '' : `install: ${b.install}`,
      b.configured ? '← configured' : '',
      b.auto_pick ? '← auto would pick' : '',
    ].filter(Boolean);
    lines.push(
      `  ${b.installed ? mark.ok : mark.fatal} ${b.name.padEnd(nameWidth)}  ${version(b).padEnd(versionWidth)}  ` +
        `auth ${`${b.auth}:`.padEnd(11)} ${b.authDetail}${tags.length > 0 ? `  ${tags.join('  ')}` : ''}`,
    );
  }
  return lines;
}

/** `ralph doctor [--probe] [--json]`: exit 1 when any check is fatal or the probe fails. */
export async function doctorCommand(flags: DoctorFlags, io: CliIO): Promise<number> {
  const { report, cliEnv } = await gatherDoctor(flags, io);
  // API keys never reach the screen, whether they come from the environment or from cli.env.
  const redact = createRedactor({ ...io.env, ...cliEnv });
  io.out(
    flags.json
      ? `${JSON.stringify(redactDeep(report, redact), null, 2)}\n`
      : redact(renderReport(report, io)),
  );
  if (report.probe?.kind === 'interrupted') return ExitCode.interrupted;
  return report.ok && (report.probe === null || report.probe.ok) ? ExitCode.ok : ExitCode.failure;
}

/** Adds `ralph doctor` to the program. */
