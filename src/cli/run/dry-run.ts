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
 * for byte the same; `--json`: the same as one JSON object.
 */
export async function dryRun(
  resolved: LoadedRun,
  o: { mode: StartMode; extraArgs: string[]; json: boolean },
  io: CliIO,
): Promise<number> {
  const { loadSkills } = await import('../../skills/skill-registry.ts');
  const { prompt, invocation: inv } = planFirstIteration({
    workspace: io.cwd,
    config: resolved.config,
    prompt: resolved.prompt,
    backend: resolved.backend,
    mode: o.mode,
    extraArgs: o.extraArgs,
    env: io.env,
    skills: await loadSkills(resolved.config.skills, io.cwd),
  });
  const { stringify } = await import('yaml');
  const { shownConfig } = await import('../config/shown-config.ts');
  const shown = shownConfig(resolved.loaded, io.env, resolved.config);
  // A key in cli.args is masked above: the command line built from it gets the logs' redaction.
  const command = createRedactor(io.env)(shellCommand(inv.command, inv.args));
  const { describeRunSandbox } = await import('../../engine/readiness/sandbox-input.ts');
  const sandbox = await describeRunSandbox({
    workspace: io.cwd,
    config: resolved.config,
    env: io.env,
    command: inv.command,
    configFiles: resolved.configFiles,
  });
  const promptVia = inv.stdin === null ? 'argument' : 'stdin';
  if (o.json) {
    const report = {
      config_file: resolved.configFile ?? null,
      config: shown,
      prompt: { source: resolved.promptSource, bytes: Buffer.byteLength(prompt), text: prompt },
      agent: { command, cwd: io.cwd, prompt_via: promptVia },
      sandbox,
    };
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    return ExitCode.ok;
  }
  io.out(`# resolved config (${resolved.configFile ?? 'defaults'})\n${stringify(shown)}\n`);
  io.out(`# first prompt (${resolved.promptSource}, ${Buffer.byteLength(prompt)} bytes)\n${prompt}\n`);
  io.out(
    `# agent command (cwd ${io.cwd}; prompt ${promptVia === 'argument' ? 'as an argument' : 'on stdin'})\n${command}\n`,
  );
  io.out(`# sandbox\n${sandbox.join('\n')}\n`);
  return ExitCode.ok;
}
