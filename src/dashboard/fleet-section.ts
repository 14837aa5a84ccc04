import { formatCost, stopText } from '../observe/format.ts';
import { esc } from './charts.ts';

/** One fleet run as the dashboard lists it (the CLI reads these from the fleet's Redis). */
interface FleetRow {
  runId: string;
  name: string | null;
  state: string;
  worker: string | null;
  iteration: number;
  costUsd: number;
  stopReason: string | null;
  message: string | null;
}

/** Where the dashboard gets fleet runs from; absent when no Redis URL is configured. */
export type FleetSource = () => Promise<FleetRow[]>;

const GROUP: Record<string, string> = {
  running: 'running',
  queued: 'waiting',
  handed_over: 'waiting',
  completed: 'completed',
};

/** The fleet's runs (every machine), or why they cannot be shown. */
export function fleetSection(fleet: FleetRow[] | { error: string }): string {
  if ('error' in fleet)
    return `<h2>fleet</h2><p class="group-stopped">cannot read the fleet: ${esc(fleet.error)}</p>`;
  if (fleet.length === 0)
    return '<h2>fleet</h2><p class="muted">No fleet runs yet (<code>ralph fleet submit</code>).</p>';
  const rows = fleet
    .map(
      (r) =>
        `<tr data-fleet-run="${esc(r.runId)}"><td>${esc(r.runId)}</td><td>${esc(r.name ?? '')}</td><td class="group-${GROUP[r.state] ?? 'stopped'}">${esc(r.state)}</td><td>${esc(r.worker ?? '')}</td><td>${r.iteration}</td><td>${esc(formatCost(r.costUsd))}</td><td>${esc(r.stopReason ? stopText(r.stopReason, r.message, ': ') : '')}</td></tr>`,
    )
    .join('');
  return `<h2>fleet (${fleet.length})</h2><table><tr><th>run</th><th>name</th><th>state</th><th>worker</th><th>iteration</th><th>cost</th><th>stop reason</th></tr>${rows}</table>`;
}
