import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { GateResult } from '../../gates/run-gate.ts';
import type { GateSummary } from '../../observe/iteration-record.ts';

/** True when the marker file exists and contains the marker text (a missing file is not complete). */
export function markerReached(workspace: string, marker: { file: string; text: string }): boolean {
  try {
    return readFileSync(resolve(workspace, marker.file), 'utf8').includes(marker.text);
  } catch {
    return false;
  }
}

export function summarize(g: GateResult): GateSummary {
  return {
    command: g.command,
    passed: g.passed,
    exit_code: g.exitCode,
    timed_out: g.timedOut,
    duration_ms: g.durationMs,
  };
}
