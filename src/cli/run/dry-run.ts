import type { StartMode } from '../../engine/context/run-options.ts';
import {
  describeRunSandbox,
  type RunSandboxFacts,
  runSandboxFacts,
} from '../../engine/readiness/sandbox-input.ts';
import { planFirstIteration } from '../../engine/run/first-iteration.ts';
import type { LoadedRun } from '../../engine/run/resolve-run.ts';
import { ExitCode } from '../../errors.ts';
import { shellCommand } from '../../process/shell-quote.ts';
import type { CliIO } from '../io.ts';

/** The limits `--dry-run --json` names, as `event_loop` spells them (absent ones are null). */
const LIMIT_KEYS = [
  'max_iterations',
  'max_runtime_seconds',
  'max_cost_usd',
  'max_tokens',
  'max_consecutive_failures',
  'iteration_timeout_seconds',
  'idle_timeout_seconds',
] as const;

/** `sandbox` of `--dry-run --json`: the facts in snake_case, the policy of `on` rule by rule. */
function sandboxJson(facts: RunSandboxFacts): Record<string, unknown> {
  if (facts.mode !== 'on') return { ...facts };
  const { policy } = facts;
  return {
    mode: 'on',
    network: policy.network,
    workspace: policy.workspace,
    home: policy.home,
    rules: policy.rules.map((r) => ({
      path: r.path,
      access: r.access,
      reason: r.reason,
      optional: r.optional === true,
    })),
  };
}

/**
 * `ralph run --dry-run` (`--json`: the same facts as one object, snake_case keys): the resolved
 * config (secrets masked), the first prompt and the agent command, from the loop's own plan of its
 * first iteration (planFirstIteration), so the prompt is byte for byte the same; the sandbox; the
 * config's warnings.
 */
export async function dryRun(
  resolved: LoadedRun,
  mode: StartMode,
  extraArgs: string[],
  io: CliIO,
  json: boolean,
): Promise<number> {
  const { loadSkills } = await import('../../skills/skill-registry.ts');
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
    skills: await loadSkills(resolved.config.skills, io.cwd),
  });
  const { shownConfig, shownRedactor } = await import('../config/shown-config.ts');
  const shown = shownConfig(resolved.loaded, io.env, resolved.config) as Record<string, unknown>;
  // A key in cli.args is masked in the config: the command line built from it gets the logs' redaction.
  // The run's redaction: a config secret (a cli.env value) repeated in cli.args is blotted out too.
  const redact = shownRedactor(io.env, resolved.config);
  const command = redact(shellCommand(inv.command, inv.args));
  const promptVia = inv.stdin === null ? 'argument' : 'stdin';
  const query = {
    workspace: io.cwd,
    config: resolved.config,
    env: io.env,
    command: inv.command,
    configFiles: resolved.configFiles,
  };
  if (json) {
    const loop = (shown.event_loop ?? {}) as Record<string, unknown>;
    const facts = {
      config_file: resolved.configFile ?? null,
      config_files: resolved.configFiles ?? [],
      backend: resolved.backend.name,
      agent: {
        command: redact(inv.command),
        args: inv.args.map(redact),
        command_line: command,
        cwd: io.cwd,
        prompt_via: promptVia,
      },
      prompt: { source: resolved.promptSource, bytes: Buffer.byteLength(prompt), text: prompt },
      // A wave runs one agent per event: each member's prompt, as each receives it.
      wave: wave
        ? {
            concurrency: wave.concurrency,
            members: wave.runs.map((m) => ({ bytes: Buffer.byteLength(m.prompt), text: m.prompt })),
          }
        : null,
      hats: shown.hats ?? {},
      limits: Object.fromEntries(LIMIT_KEYS.map((k) => [k, loop[k] ?? null])),
      gates: shown.gates ?? {},
      sandbox: sandboxJson(await runSandboxFacts(query)),
      warnings: resolved.configWarnings,
      config: shown,
    };
    io.out(`${JSON.stringify(facts, null, 2)}\n`);
    return ExitCode.ok;
  }
  const { stringify } = await import('yaml');
  for (const warning of resolved.configWarnings) io.err(`ralph: warning: ${warning}\n`);
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
  io.out(
    `# agent command (cwd ${io.cwd}; prompt ${promptVia === 'argument' ? 'as an argument' : 'on stdin'})\n${command}\n`,
  );
  io.out(`# sandbox\n${(await describeRunSandbox(query)).join('\n')}\n`);
  return ExitCode.ok;
}
