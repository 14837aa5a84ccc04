import { BACKEND_DEFINITIONS } from '../../backends/registry.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { probeSandbox } from '../../sandbox/probe.ts';
import { type SandboxProbe, sandboxSettings } from '../../sandbox/sandbox-types.ts';

/** Which sandbox modes work here: `on` (the wrapper, probed) and each backend's `native`. */
export interface SandboxReport {
  /** The config's `sandbox` mode (null: no config could be loaded). */
  mode: string | null;
  /** `sandbox: on`: works here, or why not and what to do. */
  on:
    | { works: true; tool: string; path: string; version: string | null }
    | { works: false; reason: string; detail: string; fix: string };
  /** Per backend: its own sandbox (`sandbox: native`), or null when it has none. */
  native: { backend: string; covers: string; misses: string }[];
  /** The backends without a sandbox of their own (`native` refused for them). */
  without_native: string[];
}

/** `ralph doctor`'s Sandbox section: asks bwrap (sandbox-exec) once, lists the backends' own sandboxes. */
export async function sandboxReport(
  config: Pick<RalphConfig, 'sandbox'> | undefined,
  probe: () => Promise<SandboxProbe> = probeSandbox,
): Promise<SandboxReport> {
  const p = await probe();
  const on: SandboxReport['on'] = p.ok
    ? { works: true, tool: p.tool, path: p.path, version: p.version ?? null }
    : { works: false, reason: p.reason, detail: p.detail, fix: p.fix };
  const native = BACKEND_DEFINITIONS.flatMap((d) =>
    d.nativeSandbox
      ? [{ backend: d.name, covers: d.nativeSandbox.covers, misses: d.nativeSandbox.misses }]
      : [],
  );
  const withoutNative = BACKEND_DEFINITIONS.filter((d) => !d.nativeSandbox).map((d) => d.name);
  const mode = config ? sandboxSettings(config).mode : null;
  return { mode, on, native, without_native: withoutNative };
}
