import { BACKEND_DEFINITIONS, definitionOf } from '../../backends/registry.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { ExitCode, RalphError } from '../../errors.ts';
import { probeSandbox } from '../../sandbox/probe.ts';
import type { SandboxProbe } from '../../sandbox/sandbox-types.ts';
import { sandboxSettings } from '../../sandbox/sandbox-types.ts';

const GUIDE = 'docs/guide/sandbox.md';

/** Every backend a run may start an agent on: the loop's, each hat's, the fallbacks, the reviewer. */
export function runBackends(config: RalphConfig): string[] {
  const hats = Object.values(config.hats).flatMap((h) => (h.backend ? [h.backend] : []));
  const review = config.gates.review ? [config.gates.review.backend] : [];
  return [...new Set([config.cli.backend, ...hats, ...config.cli.fallback, ...review])];
}

/** The backends whose definition has a sandbox of its own (`sandbox: native`). */
export function nativeBackends(): string[] {
  return BACKEND_DEFINITIONS.filter((d) => d.nativeSandbox !== undefined).map((d) => d.name);
}

/** `native` for a backend without a sandbox of its own: the refusal naming it and those that have one. */
export function nativeRefusal(config: RalphConfig): string | undefined {
  const lacking = runBackends(config).filter((name) => {
    try {
      return definitionOf(name).nativeSandbox === undefined;
    } catch {
      return false; // an unknown backend is refused by its own check, with the list of backends
    }
  });
  if (lacking.length === 0) return undefined;
  const have = nativeBackends();
  return `sandbox: native, but ${lacking.join(', ')} ${lacking.length === 1 ? 'has' : 'have'} no sandbox of its own (${have.length > 0 ? `native sandboxes: ${have.join(', ')}` : 'no backend has one yet'}): use sandbox: on (Ralph's wrapper) or another backend — ${GUIDE}`;
}

/** What `sandbox: on` needs and lacks here, as a refusal: the probe's detail and its fix. */
export function probeRefusal(probe: SandboxProbe, platform: string): RalphError | undefined {
  if (probe.ok) return undefined;
  if (probe.reason === 'platform')
    return new RalphError(
      'unsupported_platform',
      `sandbox: on has no wrapper on ${platform} (${probe.detail}): ${probe.fix} — ${GUIDE}`,
    );
  return new RalphError(
    'preflight',
    `sandbox: on cannot start here: ${probe.detail}; ${probe.fix} (or run with --no-sandbox) — ${GUIDE}`,
    { exitCode: ExitCode.failure },
  );
}

/**
 * The sandbox check of a run's start, before any state is touched or agent started: `on` where it
 * cannot work, or `native` for a backend without a sandbox of its own, stops the run saying what to do.
 */
export async function refuseUnusableSandbox(
  config: RalphConfig,
  probe: () => Promise<SandboxProbe> = probeSandbox,
  platform: string = process.platform,
): Promise<void> {
  const { mode } = sandboxSettings(config);
  if (mode === 'native') {
    const refusal = nativeRefusal(config);
    if (refusal) throw new RalphError('preflight', refusal);
  }
  if (mode !== 'on') return;
  if (platform !== 'linux' && platform !== 'darwin')
    throw new RalphError(
      'unsupported_platform',
      `sandbox: on has no wrapper on ${platform} (bubblewrap on Linux, sandbox-exec on macOS): use sandbox: off or native — ${GUIDE}`,
    );
  const refusal = probeRefusal(await probe(), platform);
  if (refusal) throw refusal;
}
