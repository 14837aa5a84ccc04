import { accessSync, constants, existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { RalphConfig } from '../../../config/schema.ts';
import { supervise } from '../../../process/supervisor.ts';
import { formatDuration } from '../../../state/io/time-format.ts';
import { ralphPaths } from '../../../state/paths.ts';
import type { CoverageTotal } from './coverage-summary.ts';

/** The outcome of one gate command (validate hook or tests), or one measurement of `metric.command`. */
export interface GateResult {
  gate: 'validate' | 'tests' | 'metric';
  command: string;
  exitCode: number | null;
  passed: boolean;
  timedOut: boolean;
  durationMs: number;
  /** The last part of its combined output (at most `GATE_TAIL_CHARS` per stream, after a line saying so when more came). */
  output: string;
  /** The last part of its standard output alone (where `metric.command` prints the number). */
  stdout: string;
  /** Tests gate: the coverage total the run left, when it left a summary. */
  coverage?: CoverageTotal;
}

/** Characters of each stream of a gate command Ralph keeps in memory (its record, the prompt's feedback). */
const GATE_TAIL_CHARS = 16 * 1024;

/** The validate command: `gates.validate`, else `.ralph/validate.sh` when it exists and is executable. */
export function validateCommand(config: RalphConfig, workspace: string): string | undefined {
  const v = config.gates.validate;
  if (v === false) return undefined;
  if (typeof v === 'string') return v;
  const script = ralphPaths(workspace).validateScript;
  if (!existsSync(script)) return undefined;
  try {
    accessSync(script, constants.X_OK);
  } catch {
    return undefined;
  }
  return `./${relative(workspace, script)}`;
}

/**
 * Runs a gate command with `sh -c` in the workspace, in its own process group, under a timeout.
 * Output is streamed to `onOutput` (the run log and console, bounded there by logs.max_output_mb)
 * and only its tail kept in memory for the record, which says when the rest was cut.
 */
export async function runGate(opts: {
  gate: GateResult['gate'];
  command: string;
  workspace: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  killGraceMs: number;
  signal?: AbortSignal | undefined;
  onOutput?: ((text: string) => void) | undefined;
}): Promise<GateResult> {
  const r = await supervise({
    command: 'sh',
    args: ['-c', opts.command],
    cwd: opts.workspace,
    env: opts.env,
    stdin: null,
    timeoutMs: opts.timeoutMs,
    timeoutReason: 'gate_timeout',
    killGraceMs: opts.killGraceMs,
    signal: opts.signal,
    tailChars: GATE_TAIL_CHARS,
    onChunk: (_stream, text) => opts.onOutput?.(text),
  });
  const timedOut = r.killedBy === 'gate_timeout';
  const both = `${r.stdoutTail}${r.stderrTail ? `${r.stdoutTail ? '\n' : ''}${r.stderrTail}` : ''}`;
  const output = r.truncated
    ? `… earlier output cut (Ralph keeps the last ${GATE_TAIL_CHARS / 1024} KB of each stream) …\n${both}`
    : both;
  return {
    gate: opts.gate,
    command: opts.command,
    exitCode: r.spawnError ? 127 : r.exitCode,
    passed: !timedOut && r.killedBy === null && r.exitCode === 0,
    timedOut,
    durationMs: r.durationMs,
    output: r.spawnError ? `could not run: ${r.spawnError.message}` : output,
    stdout: r.stdoutTail,
  };
}

/** The markdown report written to `gates.tests.report_file`. */
export function testsReport(result: GateResult, iteration: number, at: Date): string {
  const fence = '```';
  return [
    `# Test results — iteration ${iteration}`,
    '',
    `- Status: ${result.passed ? 'PASSED' : result.timedOut ? 'TIMED OUT' : 'FAILED'}`,
    `- Command: \`${result.command}\``,
    `- Exit code: ${result.exitCode ?? 'none (killed)'}`,
    `- Duration: ${formatDuration(result.durationMs)}`,
    `- Date: ${at.toISOString()}`,
    '',
    '## Output (last part)',
    '',
    fence,
    result.output.trimEnd(),
    fence,
    '',
  ].join('\n');
}
