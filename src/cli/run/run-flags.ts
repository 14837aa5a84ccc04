import type { ConfigOverride } from '../../config/overrides.ts';
import { parseSetOverride } from '../../config/overrides.ts';
import { type ResolvedRun, resolveRun } from '../../engine/run/resolve-run.ts';
import { UsageError } from '../../errors.ts';

/** The flags of `ralph run` that shape config, prompt and backend. */
export interface RunFlags {
  config?: string | undefined;
  /** `--preset NAME`: the preset's ralph.yml as a layer over the project file, without `ralph init`. */
  preset?: string | undefined;
  promptFile?: string | undefined;
  prompt?: string | undefined;
  backend?: string | undefined;
  maxIterations?: number | undefined;
  maxRuntime?: number | undefined;
  maxCost?: number | undefined;
  completionPromise?: string | undefined;
  set?: string[] | undefined;
}

/** The overrides of `--set` and of the dedicated flags, in that order (flags win). */
function overridesFromFlags(flags: RunFlags): ConfigOverride[] {
  const out = (flags.set ?? []).map(parseSetOverride);
  const add = (path: string, value: unknown, source: string) =>
    out.push({ path: path.split('.'), value, source });
  if (flags.maxIterations !== undefined)
    add('event_loop.max_iterations', flags.maxIterations, '--max-iterations');
  if (flags.maxRuntime !== undefined)
    add('event_loop.max_runtime_seconds', flags.maxRuntime, '--max-runtime');
  if (flags.maxCost !== undefined) add('event_loop.max_cost_usd', flags.maxCost, '--max-cost');
  if (flags.completionPromise !== undefined)
    add('event_loop.completion_promise', flags.completionPromise, '--completion-promise');
  return out;
}

/** `ralph run`'s flags as the library's options: argv → resolveRun. */
export function resolveRunFlags(cwd: string, flags: RunFlags, env: NodeJS.ProcessEnv): ResolvedRun {
  if (flags.prompt !== undefined && flags.promptFile !== undefined)
    throw new UsageError('pass either -p TEXT or -P FILE, not both');
  return resolveRun({
    cwd,
    configPath: flags.config,
    preset: flags.preset,
    overrides: overridesFromFlags(flags),
    backend: flags.backend,
    prompt:
      flags.prompt !== undefined
        ? { text: flags.prompt }
        : flags.promptFile !== undefined
          ? { file: flags.promptFile }
          : undefined,
    env,
  });
}
