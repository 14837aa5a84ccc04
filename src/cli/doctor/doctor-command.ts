import { relative } from 'node:path';
import pc from 'picocolors';
import { knownBackends } from '../../backends/registry.ts';
import { parseSetOverride } from '../../config/overrides.ts';
import { findConfigFile } from '../../config/run-config.ts';
import { type DoctorProbe, probeAgent, probeFailure } from '../../engine/readiness/agent-probe.ts';
import {
  assessReadiness,
  type BackendRow,
  type Readiness,
  type ReadinessConfig,
} from '../../engine/readiness/readiness.ts';
import { type SandboxReport, sandboxReport } from '../../engine/readiness/sandbox-report.ts';
import { resolveRunConfig } from '../../engine/run/resolve-run.ts';
import { ExitCode } from '../../errors.ts';
import { formatCost, formatNumber } from '../../observe/format.ts';
import { createRedactor, redactDeep } from '../../observe/redact.ts';
import { formatDuration } from '../../state/io/time-format.ts';
import type { CliIO } from '../io.ts';
import { untilInterrupted } from '../signals.ts';

interface DoctorFlags {
  config?: string | undefined;
  /** `-H SOURCE`: the hats source over the config's hats. */
  hats?: string | undefined;
  set?: string[] | undefined;
  json?: boolean | undefined;
  probe?: boolean | undefined;
}

/** What `ralph doctor --json` prints (secrets redacted): the readiness data, and the probe. */
export interface DoctorReport extends Readiness {
  /** Null unless `--probe`. */
  probe: DoctorProbe | null;
  /** Which sandbox modes work here (`on` probed, each backend's `native`), and the config's mode. */
  sandbox: SandboxReport;
}

/** The config `ralph run` would use: RALPH_AGENT over ralph.yml, --set over both, auto resolved. */
function loadForDoctor(flags: DoctorFlags, io: CliIO): ReadinessConfig {
  let file: string | undefined;
  try {
    file = findConfigFile(io.cwd, flags.config);
    const { config } = resolveRunConfig({
      cwd: io.cwd,
      configPath: flags.config,
      hats: flags.hats,
      overrides: (flags.set ?? []).map(parseSetOverride),
      env: io.env,
    });
    return { ok: true, file, config };
  } catch (error) {
    return { ok: false, file: file ?? flags.config ?? null, error: error as Error };
  }
}

/** The whole report: readiness, and the probe when asked for. */
export async function buildDoctorReport(flags: DoctorFlags, io: CliIO): Promise<DoctorReport> {
  return (await gatherDoctor(flags, io)).report;
}

/** The report, and `cli.env` (which may hold keys the output must not show). */
async function gatherDoctor(
  flags: DoctorFlags,
  io: CliIO,
): Promise<{ report: DoctorReport; cliEnv: Record<string, string> }> {
  const loaded = loadForDoctor(flags, io);
  const readiness = await assessReadiness({ workspace: io.cwd, env: io.env, loaded });
  const probe = flags.probe
    ? loaded.ok
      ? await untilInterrupted(
          (signal) => probeAgent(loaded.config, { cwd: io.cwd, env: io.env, signal }),
          ['SIGINT', 'SIGTERM'],
        )
      : probeFailure('(config)', 'unavailable', 'the config could not be loaded; fix it first')
    : null;
  const sandbox = await sandboxReport(loaded.ok ? loaded.config : undefined);
  // `sandbox: on` where it cannot work stops `ralph run` at start: doctor says so as a fatal problem.
  const ok = readiness.ok && !(sandbox.mode === 'on' && !sandbox.on.works);
  return { report: { ...readiness, ok, probe, sandbox }, cliEnv: loaded.ok ? loaded.config.cli.env : {} };
}

/** The Sandbox section: whether `on` works here (the fix when not), and each backend's own sandbox. */
function sandboxLines(s: DoctorReport['sandbox'], mark: Marks): string[] {
  const configured = s.mode === null ? '' : `  (this config: sandbox: ${s.mode})`;
  const tool = s.on.works ? [s.on.tool, s.on.version].filter(Boolean).join(' ') : '';
  // Recommended where it works: a config still at off is told the one line that turns it on.
  const suggest = s.on.works && s.mode === 'off' ? '; set sandbox: on in ralph.yml to use it' : '';
  const on = s.on.works
    ? `  ${mark.ok} on      works here (${tool}, ${s.on.path})${suggest}`
    : `  ${s.mode === 'on' ? mark.fatal : mark.warn} on      does not work here: ${s.on.detail}; fix: ${s.on.fix}`;
  const native = s.native.map(
    (n) => `  ${mark.ok} native  ${n.backend} covers: ${n.covers}; misses: ${n.misses}`,
  );
  return [
    `sandbox${configured}`,
    on,
    ...native,
    `  ${mark.warn} native  no sandbox of their own: ${s.without_native.join(', ')} (docs/guide/sandbox.md)`,
  ];
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
  lines.push(...sandboxLines(report.sandbox, mark));
  const sandboxFatal = report.sandbox.mode === 'on' && !report.sandbox.on.works ? 1 : 0;
  const fatal = report.checks.filter((r) => r.level === 'fatal').length + sandboxFatal;
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
  const login = knownBackends().find((b) => b.name === p.backend)?.auth.login;
  const hint = p.kind === 'auth_error' && login ? ` — ${login}` : '';
  return `${mark.fatal} ${label}  ${p.backend}: ${kind}: ${oneLine(p.message)}${reset}${hint}`;
}

/** One line per known agent CLI: installed, version, credentials, adapter, configured / auto. */
function backendsTable(report: DoctorReport, mark: Marks): string[] {
  const rows = report.backends;
  const nameWidth = Math.max(...rows.map((b) => b.name.length));
  const version = (b: BackendRow) => (b.installed ? (b.version ?? 'version unknown') : 'not installed');
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
        `auth ${`${b.auth}:`.padEnd(11)} ${b.auth_detail}${tags.length > 0 ? `  ${tags.join('  ')}` : ''}`,
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
