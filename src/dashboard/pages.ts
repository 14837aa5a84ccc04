import { describeEvent } from '../observe/describe-event.ts';
import { formatCost, formatNumber, repoSummary } from '../observe/format.ts';
import type { StreamLine } from '../observe/reporters/event-stream-file.ts';
import { formatSpan, localTime } from '../state/io/time-format.ts';
import type { IterationRecord } from '../state/iteration-record-shape.ts';
import { barChart, esc, hatGraphSvg, observedHatGraph } from './charts.ts';
import { GROUPS, type RunSummary } from './run-data.ts';

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:10px 20px}header a{color:#9cf}
main{padding:16px 20px;max-width:1200px}h2{margin:18px 0 6px;font-size:16px}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border-bottom:1px solid #e3e6ea;padding:4px 8px;text-align:left;vertical-align:top}
.group-running,.group-completed{color:#17753a}.group-waiting,.group-paused,.group-parked{color:#a35c00}.group-stopped{color:#b3261e}.group-removed{color:#777}
pre{background:#10141c;color:#d8dee9;padding:10px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-word}
.charts{display:flex;gap:16px;flex-wrap:wrap}.chart{background:#fff;margin:0;padding:8px}.chart svg{width:360px;height:120px}
.chart rect{fill:#4a7bd0}.axis{stroke:#999}.chart text{font-size:10px;fill:#555}
svg.hats{max-width:100%;height:auto}.hat rect{fill:#fff;stroke:#888}.hat.active rect{fill:#ffe08a;stroke:#a35c00;stroke-width:2}
svg.metric-chart{width:100%;max-width:640px;height:auto;background:#fff}svg.metric-chart text{font-size:10px;fill:#555}
.metric-chart .kept{fill:#17753a}.metric-chart .rolled-back{fill:#fff;stroke:#b3261e;stroke-width:1.5}.metric-chart .unmeasured{stroke:#b3261e;stroke-width:1.5}
.metric-chart .best{fill:none;stroke:#17753a;stroke-width:1.5}.metric-chart .baseline{stroke:#999;stroke-dasharray:4 3}.metric-chart .baseline-point{fill:#555}.metric-chart .target{stroke:#a35c00;stroke-dasharray:6 3}
svg.hats line{stroke:#888}svg.hats .topic{font-size:10px;fill:#555}.muted{color:#777}
.actions{display:flex;gap:8px;flex-wrap:wrap;align-items:flex-start;background:#fff;padding:10px}
.question{background:#fff3cd;padding:10px;margin:8px 0}button{padding:4px 10px}textarea{width:320px;height:48px}
#flash{min-height:1.4em;color:#17753a}`;

/** The page frame: inline style, one small ES module, no CDN. */
export function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${esc(title)}</title><style>${STYLE}</style></head><body><header><a href="/">ralph dashboard</a> · <a href="/stats">stats</a> · ${esc(title)}</header><main>${body}</main><script type="module" src="/app.js"></script></body></html>`;
}

/** The index's switch between hiding and showing the runs whose workspace is gone. */
function removedToggle(removed: number, showRemoved: boolean): string {
  if (removed === 0) return '';
  const what = `${removed} run${removed === 1 ? '' : 's'} whose workspace is gone`;
  return showRemoved
    ? `<p class="muted" id="removed-toggle">Showing ${what}. <a href="/">Hide removed</a></p>`
    : `<p class="muted" id="removed-toggle">${what} hidden (<code>ralph runs prune</code> forgets them). <a href="/?removed=1">Show removed</a></p>`;
}

/**
 * Every run this user started, grouped, with the stop reason of each stopped one; runs whose
 * workspace is gone only with `showRemoved`. `parallel`: the parallel runs' section (HTML), first;
 * `fleet`: the fleet's, last.
 */
export function runsPage(runs: RunSummary[], parallel = '', fleet = '', showRemoved = false): string {
  if (runs.length === 0 && parallel === '' && fleet === '')
    return layout('runs', '<p>No runs yet. Start one with <code>ralph run</code>; it shows up here.</p>');
  const removed = runs.filter((r) => r.group === 'removed').length;
  const shown = showRemoved ? runs : runs.filter((r) => r.group !== 'removed');
  const sections = GROUPS.map((g) => {
    const rows = shown.filter((r) => r.group === g);
    if (rows.length === 0) return '';
    return `<h2 class="group-${g}">${esc(g)} (${rows.length})</h2><table><tr><th>workspace</th><th>run</th><th>iterations</th><th>cost</th><th></th></tr>${rows
      .map(
        (r) =>
          `<tr data-run="${esc(r.key)}"><td><a href="/run/${esc(r.key)}">${esc(r.workspace)}</a></td><td>${esc(r.runId)}</td><td>${r.state ? `${r.state.iterations}/${r.state.max_iterations}` : ''}</td><td>${r.state ? esc(formatCost(r.state.cost_usd)) : ''}</td><td>${esc(r.detail)}</td></tr>`,
      )
      .join('')}</table>`;
  }).join('');
  return layout(
    'runs',
    `<div id="runs" data-refresh="5000">${parallel}${sections}${removedToggle(removed, showRemoved)}${fleet}</div>`,
  );
}

/** The parts of a run page that change with each iteration (re-fetched live by the page). */
export function runLive(
  run: RunSummary,
  records: IterationRecord[],
  lines: StreamLine[],
  questions: { id: string; kind: string; text: string; options?: string[] | undefined }[],
  notice?: string,
): string {
  const s = run.state;
  const head = `<p><b class="group-${run.group}">${esc(run.group)}</b> — ${esc(run.detail)}${s ? ` · ${s.iterations} of ${s.max_iterations} iterations done · tokens ${esc(formatNumber(s.tokens.total))} · cost ${esc(formatCost(s.cost_usd))} · ${esc(formatSpan(s.elapsed_ms))}` : ''}</p>`;
  // Only a live loop can be stopped, paused or resumed; this part is re-rendered when it ends.
  const controls = run.alive
    ? '<div class="actions controls"><button data-action="stop">Stop after this iteration</button><button data-action="stop_now">Stop now</button><button data-action="pause">Pause</button><button data-action="resume">Resume</button></div>'
    : '';
  const qs = questions
    .map(
      (q) =>
        `<div class="question" data-question="${esc(q.id)}"><b>${esc(q.kind)} ${esc(q.id)}</b>: ${esc(q.text)}${q.options ? ` <i>(${esc(q.options.join(' | '))})</i>` : ''}<br>${
          q.kind === 'question'
            ? `<input name="answer" data-for="${esc(q.id)}" placeholder="your answer"> <button data-action="answer" data-id="${esc(q.id)}">Answer</button>`
            : `<button data-action="approve" data-id="${esc(q.id)}">Approve</button> <input name="reason" data-for="${esc(q.id)}" placeholder="why (to reject)"> <button data-action="reject" data-id="${esc(q.id)}">Reject</button>`
        }</div>`,
    )
    .join('');
  const labels = records.map((r) => `#${r.iteration}`);
  const charts = `<div class="charts">${barChart(
    'tokens per iteration',
    records.map((r) => r.tokens.total),
    labels,
    (v) => formatNumber(v),
  )}${barChart(
    'cost per iteration',
    records.map((r) => r.cost_usd ?? 0),
    labels,
    (v) => formatCost(v),
  )}${barChart(
    'duration per iteration',
    records.map((r) => r.duration_ms),
    labels,
    (v) => formatSpan(v),
  )}</div>`;
  const timeline = `<table><tr><th>#</th><th>hat</th><th>verdict</th><th>duration</th><th>tokens</th><th>cost</th><th>gates</th><th>commit</th><th>files</th><th>human</th></tr>${records
    .map((r) => {
      const gates = Object.entries(r.gates)
        .map(([k, g]) => `${k} ${g?.passed ? '✓' : '✗'}`)
        .join(', ');
      const human = [
        ...(r.guidance ?? []).map((g) => `guidance ${g}`),
        ...(r.approvals ?? []).map((a) => `${a.point}: ${a.answer}`),
      ].join(', ');
      return `<tr><td>${r.iteration}</td><td>${esc(r.hat ?? '')}</td><td>${esc(r.verdict)}${r.reason ? ` <small>${esc(r.reason)}</small>` : ''}</td><td>${esc(formatSpan(r.duration_ms))}</td><td>${esc(formatNumber(r.tokens.total))}</td><td>${r.cost_usd === null ? '' : esc(formatCost(r.cost_usd))}</td><td>${esc(gates)}</td><td>${r.commit ? `<code>${esc(r.commit.slice(0, 7))}</code>` : ''}${(r.repos ?? []).map((x) => `<div>${esc(repoSummary(x))}</div>`).join('')}</td><td>${r.files_changed ? esc(r.files_changed.join(', ')) : ''}</td><td>${esc(human)}</td></tr>`;
    })
    .join('')}</table>`;
  const graph = hatGraphSvg(observedHatGraph(lines), run.alive);
  const skipped = notice ? `<p class="notice">${esc(notice)}</p>` : '';
  return `${head}${controls}${qs}<h2>hats</h2>${graph}<h2>iterations</h2>${skipped}${charts}${timeline}`;
}

/** A run's page: live output, the live part, actions, events (filterable), prompts and the log. */
export function runPage(o: {
  run: RunSummary;
  live: string;
  events: StreamLine[];
  prompts: { iteration: number; hat: string | null; prompt: string }[];
  log: string;
  filter: { topic: string; iteration: string };
}): string {
  const { run } = o;
  const actions = `<div class="actions" data-key="${esc(run.key)}"><span><textarea name="guidance" placeholder="guidance for the next iteration"></textarea><br><button data-action="guidance">Send guidance</button></span><span id="flash" role="status"></span></div>`;
  const events = `<form method="get"><input name="topic" value="${esc(o.filter.topic)}" placeholder="topic contains"> <input name="iteration" value="${esc(o.filter.iteration)}" placeholder="iteration" size="6"> <button>Filter</button></form><table><tr><th>time</th><th>iteration</th><th>event</th><th>detail</th></tr>${o.events
    .map(({ at, event: e }) => {
      const it = 'iteration' in e ? String(e.iteration) : '';
      const detail = describeEvent(e);
      return `<tr><td>${esc(localTime(at, 'HH:mm:ss'))}</td><td>${esc(it)}</td><td>${esc(e.type)}</td><td>${esc(detail.slice(0, 300))}</td></tr>`;
    })
    .join('')}</table>`;
  const prompts = o.prompts
    .map(
      (p) =>
        `<details><summary>iteration ${p.iteration}${p.hat ? ` · ${esc(p.hat)}` : ''} (${p.prompt.length} chars)</summary><pre>${esc(p.prompt)}</pre></details>`,
    )
    .join('');
  return layout(
    `${run.workspace} · ${run.runId}`,
    `${actions}<div id="live" data-key="${esc(run.key)}">${o.live}</div><h2>agent output (live)</h2><pre id="output" data-key="${esc(run.key)}"></pre><h2>events</h2>${events}<h2>prompts</h2>${prompts || '<p class="muted">none yet</p>'}<h2>log</h2><pre>${esc(o.log)}</pre>`,
  );
}
