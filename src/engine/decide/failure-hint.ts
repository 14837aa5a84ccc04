/**
 * Why an agent run failed, read from its stderr and exit (pure): the last lines it wrote and what
 * to do about the usual first-run problems. Patterns are the wording the agent CLIs (and shells)
 * use; an unknown failure gets its stderr and no guess.
 */
export interface FailureDetail {
  /** The agent's last non-empty stderr lines (at most 5), as it wrote them. */
  stderrTail: string;
  hint: string | undefined;
}

const HINTS: [RegExp, string][] = [
  [
    /command not found|no such file or directory|ENOENT|not recognized as an internal/i,
    'the agent command is not installed or not on PATH: install it, or fix cli.command (`ralph doctor` checks)',
  ],
  [
    /not logged in|please (?:log ?in|login|run .*login)|authenticat|unauthori[sz]ed|\b401\b|invalid api key|api key (?:is )?(?:missing|not set|invalid)|no (?:api )?credentials/i,
    'the agent CLI is not logged in or its key is refused: log it in (`ralph doctor` says how), then run again',
  ],
  [
    /model\b.*(?:not found|does not exist|not available|unknown|invalid|not supported)|(?:unknown|invalid|unsupported) model/i,
    'the model is wrong for this CLI or account: fix cli.model (or remove it to use the CLI default)',
  ],
  [
    /unknown (?:option|argument|flag)|unrecognized (?:option|argument)|unexpected argument|invalid option|no such option/i,
    'the agent CLI does not accept an argument it was given: check cli.args and the arguments after `--`',
  ],
];

/** The detail of a failed agent run; undefined when there is nothing to add. */
export function agentFailureDetail(stderr: string, exitCode: number | null): FailureDetail | undefined {
  const lines = stderr
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  const tail = lines.slice(-5).join('\n');
  const hint =
    HINTS.find(([re]) => re.test(tail))?.[1] ??
    (exitCode === 127
      ? HINTS[0]![1]
      : exitCode === 126
        ? 'the agent command is not executable: chmod +x it'
        : undefined);
  if (tail === '' && hint === undefined) return undefined;
  return { stderrTail: tail, hint };
}
