import { formatCost } from '../observe/format.ts';
import { formatSpan } from '../state/io/time-format.ts';
import type { ParallelTask } from '../state/parallel-files.ts';
import { esc } from './charts.ts';
import { layout } from './pages.ts';
import type { ParallelRunView } from './parallel-data.ts';

/** Style of the parallel section (added to the page's one style element). */
export const PARALLEL_STYLE = `
.workers{display:flex;gap:8px;flex-wrap:wrap;margin:6px 0}.worker{flex:1 1 0;min-width:180px;background:#fff;border-left:4px solid #17753a;padding:6px 10px}
.worker.idle{border-color:#bbb;color:#777}.worker b{display:block}
.state-merged{color:#17753a}.state-failed,.state-needs_review{color:#b3261e}.state-working,.state-merging,.state-queued{color:#a35c00}`;

function costOf(t: ParallelTask): number {
  return Object.values(t.runs).reduce((sum, r) => sum + r.cost_usd, 0);
}

/** The live part: the run's header, the workers side by side, the merge queue and every task. */
export function parallelSection(v: ParallelRunView): string {
  const s = v.state;
  if (!s) return `<h2>Parallel run</h2><p class="group-stopped">${esc(v.error ?? 'no parallel state')}</p>`;
  const tasks = Object.values(s.tasks);
  const merged = tasks.filter((t) => t.state === 'merged').length;
  const cost = tasks.reduce((sum, t) => sum + costOf(t), 0);
  const status = v.alive
    ? 'running'
    : s.status === 'running'
      ? 'crashed (ralph run --parallel N --resume)'
      : s.status;
  const head = `<p><b>${esc(s.id)}</b> into <code>${esc(s.target)}</code> · <span class="group-${esc(v.alive ? 'running' : s.status)}">${esc(status)}</span>${s.stop_reason ? ` (${esc(s.stop_reason)})` : ''} · ${s.workers} workers · ${merged}/${tasks.length} tasks merged · cost ${esc(formatCost(cost))} ${s.runtime_ms > 0 ? ` · ${esc(formatSpan(s.runtime_ms))} of runtime` : ''}</p>`;
  const working = new Map(v.workers.map((w) => [w.worker, w]));
  const slots = Array.from({ length: s.workers }, (_, i) => `w${i + 1}`);
  if (working.has('merge')) slots.push('merge');
  const cards = slots
    .map((name) => {
      const w = working.get(name);
      if (!w || !v.alive)
        return `<div class="worker idle" data-worker="${esc(name)}"><b>${esc(name)}</b>idle</div>`;
      return `<div class="worker" data-worker="${esc(name)}"><b>${esc(name)}${name === 'merge' ? ' (resolving a conflict)' : ''}</b><a href="/run/${esc(w.key)}">${esc(w.title)}</a><br><small>${esc(w.task)}</small><br>iteration ${w.iteration}${w.maxIterations ? `/${w.maxIterations}` : ''} · ${esc(w.status)}<br>cost ${esc(formatCost(w.costUsd))}</div>`;
    })
    .join('');
  const queue = s.queue.length
    ? `<ol class="queue">${s.queue.map((id) => `<li>${esc(id)} ${esc(s.tasks[id]?.title ?? '')} — ${esc(s.tasks[id]?.state ?? '')}</li>`).join('')}</ol>`
    : '<p class="muted">merge queue empty</p>';
  const rows = tasks
    .map(
      (t) =>
        `<tr data-task="${esc(t.id)}"><td>${esc(t.id)}</td><td>${esc(t.title)}</td><td class="state-${esc(t.state)}">${esc(t.state)}${t.reason ? ` <small>${esc(t.reason)}</small>` : ''}</td><td>${esc(t.worker ?? '')}</td><td>${t.attempts}</td><td>${t.merge_attempts}</td><td>${t.last_gate ? `${t.last_gate.passed ? '✓' : '✗'} ${esc(t.last_gate.summary)}` : ''}</td><td>${t.merged_commit ? `<code>${esc(t.merged_commit.slice(0, 8))}</code>` : ''}</td><td>${esc(formatCost(costOf(t)))}</td></tr>`,
    )
    .join('');
  const table = `<table><tr><th>task</th><th>title</th><th>state</th><th>worker</th><th>attempts</th><th>merge attempts</th><th>last gate</th><th>merged commit</th><th>cost</th></tr>${rows}</table>`;
  return `<h2>Parallel run</h2>${head}<h2>workers</h2><div class="workers">${cards}</div><h2>merge queue</h2>${queue}<h2>tasks</h2>${table}`;
}

/** The index's line per parallel run: where, how far, a link to its page. */
export function parallelIndex(views: ParallelRunView[]): string {
  if (views.length === 0) return '';
  const rows = views
    .map((v) => {
      const tasks = Object.values(v.state?.tasks ?? {});
      const merged = tasks.filter((t) => t.state === 'merged').length;
      const at = v.workers.filter(() => v.alive).map((w) => `${w.worker}: ${w.title} #${w.iteration}`);
      return `<tr data-parallel="${esc(v.key)}"><td><a href="/parallel/${esc(v.key)}">${esc(v.workspace)}</a></td><td>${esc(v.state?.id ?? '')}</td><td>${esc(v.alive ? 'running' : (v.state?.status ?? 'damaged'))}</td><td>${merged}/${tasks.length} merged</td><td>${esc(at.join(' · '))}</td></tr>`;
    })
    .join('');
  return `<h2>Parallel runs (${views.length})</h2><table><tr><th>workspace</th><th>run</th><th>status</th><th>tasks</th><th>workers</th></tr>${rows}</table>`;
}

/** A parallel run's page; the section is re-fetched live when its files change (SSE). */
export function parallelPage(v: ParallelRunView): string {
  return layout(
    `${v.workspace} · parallel`,
    `<style>${PARALLEL_STYLE}</style><div id="parallel" data-key="${esc(v.key)}">${parallelSection(v)}</div>`,
  );
}
