import type { StartMode } from '../../engine/context/run-options.ts';
import { planFirstIteration } from '../../engine/run/first-iteration.ts';
import type { LoadedRun } from '../../engine/run/resolve-run.ts';
import { ExitCode } from '../../errors.ts';
import { createRedactor } from '../../observe/redact.ts';
import { shellCommand } from '../../process/shell-quote.ts';
import type { CliIO } from '../io.ts';

/**
 * `ralph run --dry-run`: the resolved config (secrets masked), the first prompt and the agent
 * command, from the loop's own plan of its first iteration (planIteration), so the prompt is byte
 * for byte the same.
 */
export async function dryRun(
  resolved: LoadedRun,
  mode: StartMode,
  extraArgs: string[],
  io: CliIO,
): Promise<number> {
  const {
    prompt,
    invocation: inv,
    wave,
  } = planFirstIteration({
    workspace: io.cwd,
    config: resolved.config,
    prompt: resolved.prompt,
    backend: resolved.backend,
    mode,
    extraArgs,
    env: io.env,
  });
  const { stringify } = await import('yaml');
  const { shownConfig } = await import('../config/shown-config.ts');
  const shown = shownConfig(resolved.loaded, io.env, resolved.config);
  io.out(`# resolved config (${resolved.configFile ?? 'defaults'})\n${stringify(shown)}\n`);
  // A wave runs one agent per event: each member's prompt, as each receives it.
  const prompts: [string, string][] = wave
    ? wave.runs.map((m) => [
        `wave member ${m.index + 1} of ${wave.runs.length}, ${wave.concurrency} at once`,
        m.prompt,
      ])
    : [[resolved.promptSource, prompt]];
  for (const [head, text] of prompts)
    io.out(`# first prompt (${head}, ${Buffer.byteLength(text)} bytes)\n${text}\n`);
  // A key in cli.args is masked above: the command line built from it gets the logs' redaction.
  const command = createRedactor(io.env)(shellCommand(inv.command, inv.args));
  io.out(
    `# agent command (cwd ${io.cwd}; prompt ${inv.stdin === null ? 'as an argument' : 'on stdin'})\n${command}\n`,
  );
  const { describeRunSandbox } = await import('../../engine/readiness/sandbox-input.ts');
  const sandbox = await describeRunSandbox({
    workspace: io.cwd,
    config: resolved.config,
    env: io.env,
    command: inv.command,
    configFiles: resolved.configFiles,
  });
  io.out(`# sandbox\n${sandbox.join('\n')}\n`);
  return ExitCode.ok;
}
