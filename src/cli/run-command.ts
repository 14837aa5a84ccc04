import { stringify } from 'yaml';
import { initialEvents, runLoop } from '../engine/loop.ts';
import type { StartMode } from '../engine/run-setup.ts';
import { readWorkspaceContext } from '../engine/workspace-context.ts';
import { ExitCode, UsageError } from '../errors.ts';
import { createConsoleReporter, type Verbosity } from '../observe/console-reporter.ts';
import { killGroupNow } from '../process/kill-group.ts';
import { assemblePrompt } from '../routing/prompt.ts';
import { selectHat } from '../routing/select-hat.ts';
import { ralphPaths } from '../state/paths.ts';
import type { CliIO } from './io.ts';
import { type RunFlags, resolveRun } from './resolve-run.ts';
import { shellCommand } from './shell-quote.ts';

export interface RunCommandFlags extends RunFlags {
  tui?: boolean | undefined;
  verbose?: boolean | undefined;
  quiet?: boolean | undefined;
  resume?: boolean | undefined;
  fresh?: boolean | undefined;
  dryRun?: boolean | undefined;
}

function startMode(flags: RunCommandFlags): StartMode {
  if (flags.resume && flags.fresh) throw new UsageError('pass either --resume or --fresh, not both');
  return flags.resume ? 'resume' : flags.fresh ? 'fresh' : 'auto';
}

/** `ralph run`: resolve everything, then run the loop with a console reporter and Ctrl-C handling. */
export async function runCommand(flags: RunCommandFlags, extraArgs: string[], io: CliIO): Promise<number> {
  if (flags.verbose && flags.quiet) throw new UsageError('pass either -v or -q, not both');
  const mode = startMode(flags);
  const resolved = resolveRun(io.cwd, flags);
  const { config, backend } = resolved;

  if (flags.dryRun) {
    const pending = initialEvents(config);
    const route = selectHat(config.hats, pending, { activations: {} });
    const paths = ralphPaths(io.cwd);
    const context = readWorkspaceContext(config, paths);
    const prompt = assemblePrompt({
      base: resolved.prompt,
      completionPromise: config.event_loop.completion_promise,
      hat:
        route.hat && route.hatId
          ? {
              id: route.hatId,
              name: route.hat.name ?? route.hatId,
              instructions: route.hat.instructions,
              publishes: route.hat.publishes,
            }
          : null,
      hatsMode: Object.keys(config.hats).length > 0,
      events: route.consumed,
      // A new run starts with an empty scratchpad.
      scratchpad: null,
      scratchpadBudget: 0,
      memories: context.memories,
      readyTasks: context.readyTasks,
    });
    const inv = backend.buildInvocation({ prompt, config, workspace: io.cwd, extraArgs });
    io.out(`# resolved config (${resolved.configFile ?? 'defaults'})\n${stringify(config)}\n`);
    io.out(`# first prompt (${resolved.promptSource}, ${Buffer.byteLength(prompt)} bytes)\n${prompt}\n`);
    io.out(
      `# agent command (cwd ${io.cwd}; prompt ${inv.stdin === null ? 'as an argument' : 'on stdin'})\n${shellCommand(inv.command, inv.args)}\n`,
    );
    return ExitCode.ok;
  }

  const verbosity: Verbosity = flags.quiet ? 'quiet' : flags.verbose ? 'verbose' : 'normal';
  const reporter = createConsoleReporter({ out: io.out, err: io.err, verbosity, color: io.color });
  const controller = new AbortController();
  let agentPid: number | undefined;
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) {
      io.err('\nralph: stopping — killing the agent and saving state (Ctrl-C again to force)\n');
      controller.abort('interrupted');
      return;
    }
    // Second Ctrl-C: no grace, no waiting; state.json still says where to resume.
    if (agentPid !== undefined) killGroupNow(agentPid);
    io.err('ralph: forced stop\n');
    process.exit(ExitCode.interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runLoop({
      workspace: io.cwd,
      config,
      prompt: resolved.prompt,
      backend,
      mode,
      extraArgs,
      signal: controller.signal,
      env: io.env,
      onEvent: (event) => {
        if (event.type === 'agent.spawned') agentPid = event.pid;
        reporter(event);
      },
    });
    return result.exitCode;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
