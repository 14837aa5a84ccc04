import type { ConfigOverride } from '../../config/overrides.ts';
import type { LoadedRun } from '../../engine/run/resolve-run.ts';
import { resolveRunCached } from '../../engine/run/resolve-run-cached.ts';
import type { ResolvedRun, ResolveRunOptions } from '../../engine/run/run-inputs.ts';
import { UsageError } from '../../errors.ts';

// Imports nothing that loads the YAML parser or the config schema: `ralph run` starts from its
// config cache without them (resolve-run-cached.ts); `--set` values are YAML, parsed when given.

/** The flags of `ralph run` that shape config, prompt and backend. */
export interface RunFlags {
  config?: string | undefined;
  /** `--preset NAME`: the preset's ralph.yml as a layer over the project file, without `ralph init`. */
  preset?: string | undefined;
  /** `-H SOURCE`: a hats file or `builtin:NAME` whose hats and events replace the config's. */
  hats?: string | undefined;
  promptFile?: string | undefined;
  prompt?: string | undefined;
  backend?: string | undefined;
  maxIterations?: number | undefined;
  maxRuntime?: number | undefined;
  maxCost?: number | undefined;
  completionPromise?: string | undefined;
  /** `--sandbox MODE` (a string) or `--no-sandbox` (false). */
  sandbox?: string | boolean | undefined;
  set?: string[] | undefined;
}

/** The overrides of `--set` (`set`, parsed) and of the dedicated flags, in that order (flags win). */
function overridesFromFlags(flags: RunFlags, set: readonly ConfigOverride[]): ConfigOverride[] {
  const out = [...set];
  const add = (path: string, value: unknown, source: string, intoObjectKey?: string) =>
    out.push({ path: path.split('.'), value, source, intoObjectKey });
  if (flags.maxIterations !== undefined)
    add('event_loop.max_iterations', flags.maxIterations, '--max-iterations');
  if (flags.maxRuntime !== undefined)
    add('event_loop.max_runtime_seconds', flags.maxRuntime, '--max-runtime');
  if (flags.maxCost !== undefined) add('event_loop.max_cost_usd', flags.maxCost, '--max-cost');
  if (flags.completionPromise !== undefined)
    add('event_loop.completion_promise', flags.completionPromise, '--completion-promise');
  // The mode alone: an object form's allow lists and network in the files stay as written.
  if (flags.sandbox === false) add('sandbox', 'off', '--no-sandbox', 'mode');
  else if (typeof flags.sandbox === 'string') add('sandbox', flags.sandbox, '--sandbox', 'mode');
  return out;
}

/** `ralph run`'s flags as the library's options (`resolveRun`'s), given its `--set` values parsed. */
export function runOptions(
  cwd: string,
  flags: RunFlags,
  env: NodeJS.ProcessEnv,
  set: readonly ConfigOverride[],
): ResolveRunOptions {
  if (flags.prompt !== undefined && flags.promptFile !== undefined)
    throw new UsageError('pass either -p TEXT or -P FILE, not both');
  return {
    cwd,
    configPath: flags.config,
    preset: flags.preset,
    hats: flags.hats,
    overrides: overridesFromFlags(flags, set),
    backend: flags.backend,
    prompt:
      flags.prompt !== undefined
        ? { text: flags.prompt }
        : flags.promptFile !== undefined
          ? { file: flags.promptFile }
          : undefined,
    env,
  };
}

/**
 * `ralph run`'s flags → the resolved run. `cache`: from the user's config cache when nothing the
 * config depends on changed (a run that starts its loop; a dry run or an estimate writes nothing);
 * without it the run keeps the loaded layers (where each value came from).
 */
export async function resolveRunFlags(
  cwd: string,
  flags: RunFlags,
  env: NodeJS.ProcessEnv,
  options: { cache: false },
): Promise<LoadedRun>;
export async function resolveRunFlags(
  cwd: string,
  flags: RunFlags,
  env: NodeJS.ProcessEnv,
  options: { cache: boolean },
): Promise<ResolvedRun>;
export async function resolveRunFlags(
  cwd: string,
  flags: RunFlags,
  env: NodeJS.ProcessEnv,
  options: { cache: boolean },
): Promise<ResolvedRun> {
  const texts = flags.set ?? [];
  let set: ConfigOverride[] = [];
  if (texts.length > 0) {
    const { parseSetOverride } = await import('../../config/overrides.ts');
    set = texts.map(parseSetOverride);
  }
  const run = runOptions(cwd, flags, env, set);
  if (options.cache) return resolveRunCached(run);
  const { resolveRunLoaded } = await import('../../engine/run/resolve-run.ts');
  return resolveRunLoaded(run);
}
