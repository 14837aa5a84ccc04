import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { HOOK_PHASE_EVENTS } from '../../config/schema/operations-values.ts';
import type { RalphConfig } from '../../config/schema.ts';
import type { ConfigIssue } from '../../errors.ts';
import { findExecutable } from '../../process/find-executable.ts';

/** One problem `ralph hooks validate` finds, located in the file that sets it. */
export interface HookProblem extends ConfigIssue {
  /** `hooks.duplicate_name`, `hooks.command_resolvable`, `hooks.cwd_missing`, `hooks.timeout_past_runtime`. */
  code: string;
  phaseEvent?: string | undefined;
  hook?: string | undefined;
  command?: string | undefined;
}

/** What `ralph hooks validate` reports about a config that loaded (its schema checks passed). */
export interface HooksCheck {
  enabled: boolean;
  /** Hooks configured, over every phase-event. */
  hooks: number;
  problems: HookProblem[];
}

/** Which hook a problem is about. */
type HookWho = Pick<HookProblem, 'phaseEvent' | 'hook' | 'command'>;

/** A problem of {@link hookProblems}: its path under `hooks.events`, not yet located in a file. */
export interface UnlocatedHookProblem extends Omit<HookProblem, 'file' | 'line' | 'col' | 'path'> {
  path: (string | number)[];
}

/** The machine checks of every hook of `config` (the core of `checkHooks` in validate-hooks.ts, also the pre-flight's). */
export function hookProblems(
  config: RalphConfig,
  workspace: string,
  env: NodeJS.ProcessEnv,
): UnlocatedHookProblem[] {
  const { hooks, event_loop } = config;
  const problems: UnlocatedHookProblem[] = [];
  const at = (path: (string | number)[], code: string, message: string, more: HookWho) =>
    problems.push({ ...more, path, code, message });
  for (const phaseEvent of HOOK_PHASE_EVENTS) {
    const seen = new Map<string, number>();
    for (const [i, hook] of (hooks.events[phaseEvent] ?? []).entries()) {
      const who = { phaseEvent, hook: hook.name, command: hook.command[0] };
      const first = seen.get(hook.name);
      if (first !== undefined)
        at(
          [phaseEvent, i, 'name'],
          'hooks.duplicate_name',
          `hook name "${hook.name}" is used at [${first}] too: names must be unique per phase-event`,
          who,
        );
      else seen.set(hook.name, i);
      const cwd = resolve(workspace, hook.cwd ?? '.');
      if (!isDirectory(cwd)) {
        at(
          [phaseEvent, i, 'cwd'],
          'hooks.cwd_missing',
          `cwd ${cwd} is not a directory: create it or fix the path`,
          who,
        );
        continue;
      }
      const found = findExecutable(hook.command[0] ?? '', hook.env.PATH ?? env.PATH, cwd);
      if (!found.found)
        at(
          [phaseEvent, i, 'command'],
          'hooks.command_resolvable',
          `command "${hook.command[0]}" cannot run (${found.detail}): make it executable (chmod +x) or run it through its interpreter, e.g. ["bash", "script.sh"]`,
          who,
        );
      const timeout = hook.timeout_seconds ?? hooks.defaults.timeout_seconds;
      if (timeout > event_loop.max_runtime_seconds)
        at(
          [phaseEvent, i, 'timeout_seconds'],
          'hooks.timeout_past_runtime',
          `timeout ${timeout} s is longer than event_loop.max_runtime_seconds (${event_loop.max_runtime_seconds} s), which ends the hook first: lower it`,
          who,
        );
    }
  }
  return problems;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
