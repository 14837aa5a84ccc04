import { runningAsRoot } from '../../backends/definition.ts';
import { hostNotes, pickAutoBackend } from '../../backends/registry.ts';
import { configSchema, type RalphConfig } from '../../config/schema.ts';
import { findExecutable } from '../../process/find-executable.ts';
import { type BackendInspection, inspectBackends } from './backend-info.ts';
import { healthFatal } from './health.ts';
import { checkDiskSpace, type HealthResult, resolveAgentCommand } from './health-checks.ts';
import { preflight } from './preflight.ts';

/** The configured backend and whether its agent binary can be started. */
export interface ReadinessBackend {
  name: string;
  command: string | null;
  available: boolean;
  /** Where the binary was found, or why it was not / why the backend cannot run. */
  detail: string;
}

/** One agent CLI in the backends table. */
export interface BackendRow extends BackendInspection {
  /** It is `cli.backend` (or what `auto` resolves to, when that is configured). */
  configured: boolean;
  /** `cli.backend: auto` would pick it. */
  auto_pick: boolean;
}

/**
 * "Can Ralph run here?" as data: every check (`check` names it, `level` is its status, `message`
 * says what is wrong and what to do), the configured backend, and every agent CLI Ralph knows.
 * `ralph doctor` renders it (and prints it with `--json`); nothing here prints.
 */
export interface Readiness {
  /** No check is fatal: `ralph run` would start its first iteration. */
  ok: boolean;
  node: string;
  workspace: string;
  /** The config file judged, or null for the defaults. */
  config: string | null;
  health_enabled: boolean;
  backend: ReadinessBackend | null;
  checks: HealthResult[];
  backends: BackendRow[];
  /** What `cli.backend: auto` would pick, or null when no agent CLI of AUTO_ORDER is on PATH. */
  auto_backend: string | null;
  running_as_root: boolean;
  /** What Ralph does differently on this host (from the backends' definitions). */
  notes: string[];
}

/** The config as `ralph run` would resolve it (auto already picked), or why it did not load. */
export type ReadinessConfig =
  | { ok: true; file: string | undefined; config: RalphConfig }
  | { ok: false; file: string | null; error: Error };

/** What {@link assessReadiness} judges: the workspace, its environment and its config. */
export interface ReadinessInput {
  workspace: string;
  env: NodeJS.ProcessEnv;
  loaded: ReadinessConfig;
}

/** Whether the configured backend's command can be built, and where its binary is. */
function backendStatus(config: RalphConfig, workspace: string, env: NodeJS.ProcessEnv): ReadinessBackend {
  const agent = resolveAgentCommand(config, workspace, env);
  if (!agent.ok) return { name: agent.backend, command: null, available: false, detail: agent.error };
  const found = findExecutable(agent.command, agent.path, workspace);
  return {
    name: agent.backend,
    command: agent.command,
    available: found.found,
    detail: found.found ? found.path : found.detail,
  };
}

/**
 * Every check `ralph run` makes before its first iteration (even with `health.enabled: false`,
 * which only skips them before iterations), or, when the config did not load, that problem and
 * the disk (all that can be judged without it).
 */
async function judge(
  input: ReadinessInput,
): Promise<
  Omit<Readiness, 'node' | 'workspace' | 'backends' | 'auto_backend' | 'running_as_root' | 'notes'>
> {
  const { workspace, env, loaded } = input;
  if (!loaded.ok) {
    const defaults = configSchema.parse({});
    const checks: HealthResult[] = [
      { check: 'config', level: 'fatal', message: loaded.error.message },
      checkDiskSpace(workspace, defaults.health.min_free_disk_mb * 1024 * 1024),
    ];
    return { ok: false, config: loaded.file, health_enabled: true, backend: null, checks };
  }
  const { config } = loaded;
  const forced: RalphConfig = { ...config, health: { ...config.health, enabled: true } };
  // The same preflight as `ralph config validate` and `ralph run`.
  const checks = await preflight(workspace, forced, env);
  return {
    ok: healthFatal(checks) === undefined,
    config: loaded.file ?? null,
    health_enabled: config.health.enabled,
    backend: backendStatus(config, workspace, env),
    checks,
  };
}

/** "Can Ralph run here?": the checks, the configured backend, every known agent CLI. */
export async function assessReadiness(input: ReadinessInput): Promise<Readiness> {
  const { workspace, env, loaded } = input;
  const { ok, ...judged } = await judge(input);
  const auto = pickAutoBackend(env, workspace) ?? null;
  const configured = !loaded.ok
    ? null
    : loaded.config.cli.backend === 'auto'
      ? auto
      : loaded.config.cli.backend;
  const backends = (await inspectBackends(env, workspace)).map((b) => ({
    ...b,
    configured: b.name === configured,
    auto_pick: b.name === auto,
  }));
  return {
    ok,
    node: process.version,
    workspace,
    ...judged,
    backends,
    auto_backend: auto,
    running_as_root: runningAsRoot(),
    notes: hostNotes(),
  };
}
