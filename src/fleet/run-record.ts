import type { FleetJobSpec, FleetRunInfo, FleetRunState } from './job-engine.ts';

const STATES: readonly FleetRunState[] = [
  'queued',
  'running',
  'handed_over',
  'completed',
  'stopped',
  'cancelled',
  'failed',
];

/** The states a run never leaves. */
export const FINAL_STATES: readonly FleetRunState[] = ['completed', 'stopped', 'cancelled', 'failed'];

const num = (v: string | undefined) => (v === undefined || Number.isNaN(Number(v)) ? 0 : Number(v));

function parseSpec(text: string | undefined): FleetJobSpec | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as FleetJobSpec;
  } catch {
    return null;
  }
}

/** A run's Redis hash as FleetRunInfo (undefined when the hash is empty: no such run). */
export function parseRunRecord(runId: string, hash: Record<string, string>): FleetRunInfo | undefined {
  if (Object.keys(hash).length === 0) return undefined;
  const state = STATES.includes(hash.state as FleetRunState) ? (hash.state as FleetRunState) : 'queued';
  return {
    runId,
    name: hash.name ?? null,
    state,
    worker: hash.worker ?? null,
    iteration: num(hash.iteration),
    costUsd: num(hash.costUsd),
    tokens: num(hash.tokens),
    stopReason: hash.stopReason ?? null,
    message: hash.message ?? null,
    commit: hash.commit ?? null,
    submittedAt: hash.submittedAt ?? null,
    updatedAt: hash.updatedAt ?? null,
    attempts: num(hash.attempts),
    checkpointSkipped: hash.checkpointSkipped || null,
    spec: parseSpec(hash.spec),
  };
}
