import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { isAbsolute, normalize, resolve } from 'node:path';
import { agentEnvBase, buildBaseAgentEnv } from '../../agent/agent-env.ts';
import type { InteractiveInvocation } from '../../backends/definition.ts';
import { interactiveInvocation } from '../../backends/registry.ts';
import { parseSetOverride } from '../../config/overrides.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { resolveRunConfig } from '../../engine/run/resolve-run.ts';
import { ExitCode, RalphError, UsageError } from '../../errors.ts';
import { RALPH_BIN, RALPH_BIN_DIR } from '../../paths-package.ts';
import { shellCommand } from '../../process/shell-quote.ts';
import { DEFAULT_PLAN_PROMPT } from '../../state/paths.ts';
import type { CliIO } from '../io.ts';
import { handleStopSignals } from '../signals.ts';

export interface PlanFlags {
  config?: string | undefined;
  promptFile?: string | undefined;
  backend?: string | undefined;
  set?: string[] | undefined;
  dryRun?: boolean | undefined;
}

/** `feature-x`, `feature-x.md`, `specs/feature-x.md` → `specs/feature-x.md` (specs dir from the config). */
export function specPath(name: string, specsDir = 'specs'): string {
  const dir = normalize(specsDir).replace(/\/+$/, '');
  let path = normalize(name.trim());
  if (path === '.' || path === '' || isAbsolute(path) || path.split('/').includes('..')) {
    throw new UsageError(`spec name "${name}" must be a name inside ${dir}/ (e.g. feature-x)`);
  }
  if (path.startsWith(`${dir}/`)) path = path.slice(dir.length + 1);
  if (!path.endsWith('.md')) path = `${path}.md`;
  return `${dir}/${path}`;
}

/** The plan prompt, with the spec line appended when a spec is named. */
export function planPrompt(base: string, spec: string | undefined): string {
  if (spec === undefined) return base;
  return `${base.replace(/\s*$/, '')}\n\nSpec to write or refine: ${spec}\n`;
}

function readPlanPrompt(cwd: string, flag: string | undefined): string {
  const file = flag ?? DEFAULT_PLAN_PROMPT;
  const path = resolve(cwd, file);
  if (!existsSync(path)) {
    throw new RalphError(
      'prompt_unreadable',
      `plan prompt not found: ${file}; run \`ralph init --preset spec\` to write one, or pass --prompt-file FILE`,
    );
  }
  const text = readFileSync(path, 'utf8');
  if (text.trim() === '') throw new UsageError(`the plan prompt (${file}) is empty`);
  return text;
}

/**
 * What the session inherits: the loop's agent environment without a run (no events file, iteration
 * or process mark): nesting guards and RALPH_FAULT_* removed, then cli.env and the backend's own
 * variables, and `ralph` on PATH.
 */
function sessionEnv(base: NodeJS.ProcessEnv, config: RalphConfig, inv: InteractiveInvocation, cwd: string) {
  return buildBaseAgentEnv({
    base: agentEnvBase(base),
    ralphBin: RALPH_BIN,
    ralphBinDir: RALPH_BIN_DIR,
    workspace: cwd,
    extra: [config.cli.env, inv.env ?? {}],
  });
}

/**
 * Runs the agent in the foreground with the terminal handed over and resolves with its exit code
 * (128 + signal number when it died from a signal).
 */
function runInteractive(inv: InteractiveInvocation, io: CliIO, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    // Not detached: the agent must stay in the terminal's foreground process group to read it.
    const child = spawn(inv.command, inv.args, { cwd: io.cwd, env, stdio: 'inherit' });
    // Ctrl-C reaches the agent from the terminal; Ralph just waits for it to finish. SIGTERM and
    // SIGHUP (a closed terminal) are passed on. No force: every signal is handled the same way.
    const signals = handleStopSignals(io, {
      stop: (signal) => {
        if (signal !== 'SIGINT') child.kill(signal);
      },
    });
    const cleanup = () => signals.dispose();
    child.on('error', (error: NodeJS.ErrnoException) => {
      cleanup();
      reject(
        error.code === 'ENOENT'
          ? new RalphError(
              'backend_unavailable',
              `agent not found: ${inv.command}; install it, or choose another agent with -b / cli.backend`,
              { cause: error },
            )
          : new RalphError('agent_failed', `cannot start ${inv.command}: ${error.message}`, { cause: error }),
      );
    });
    child.on('exit', (code, signal) => {
      cleanup();
      resolvePromise(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}

/** `ralph plan [spec]`: one interactive agent session with the plan prompt; no loop, no loop state. */
export async function planCommand(
  spec: string | undefined,
  flags: PlanFlags,
  extraArgs: string[],
  io: CliIO,
): Promise<number> {
  // The backend as `ralph run` resolves it: the files, RALPH_AGENT, --set, -b, `auto` → the first CLI on PATH.
  const { config } = resolveRunConfig({
    cwd: io.cwd,
    configPath: flags.config,
    overrides: (flags.set ?? []).map(parseSetOverride),
    backend: flags.backend,
    env: io.env,
  });
  if (spec?.startsWith('-')) throw new UsageError(`"${spec}" is not a spec name; name the spec before --`);
  const specsDir = config.health.specs_dir ?? config.core.specs_dir ?? 'specs';
  const target = spec === undefined ? undefined : specPath(spec, specsDir);
  const prompt = planPrompt(readPlanPrompt(io.cwd, flags.promptFile), target);
  const inv = interactiveInvocation(config.cli.backend, config, prompt, { workspace: io.cwd, extraArgs });
  if (flags.dryRun) {
    io.out(`# plan session (cwd ${io.cwd}; prompt as an argument)\n${shellCommand(inv.command, inv.args)}\n`);
    return ExitCode.ok;
  }
  io.err(
    `ralph plan: starting ${config.cli.backend} to ${target ? `write or refine ${target}` : 'write a spec'}; end the session when the spec is done\n`,
  );
  return runInteractive(inv, io, sessionEnv(io.env, config, inv, io.cwd));
}
