/**
 * The dashboard's one small ES module (served as /app.js): live output over SSE, the live part of a
 * run page re-fetched after each structural event, and the action buttons as same-origin POSTs.
 */
export const CLIENT_SCRIPT = `
const live = document.getElementById('live');
const output = document.getElementById('output');
const flash = document.getElementById('flash');
const key = live?.dataset.key;

let refreshTimer;
function refreshLive() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(async () => {
    const res = await fetch('/run/' + key + '/live', { credentials: 'same-origin' });
    if (!res.ok) return;
    const html = await res.text();
    // What someone is typing into an answer or a reason survives the refresh (and keeps the focus).
    const field = (i) => i.name + '|' + i.dataset.for;
    const typed = {};
    for (const i of live.querySelectorAll('input[data-for]')) typed[field(i)] = i.value;
    const active = document.activeElement;
    const focused = active && active.dataset && active.dataset.for ? field(active) : null;
    live.innerHTML = html;
    for (const i of live.querySelectorAll('input[data-for]')) {
      if (typed[field(i)]) i.value = typed[field(i)];
      if (field(i) === focused) i.focus();
    }
  }, 200);
}

if (output && key) {
  const source = new EventSource('/run/' + key + '/stream');
  source.onmessage = (m) => {
    // text: the event's one-line description (describeEvent), as the console words it.
    const { event, text } = JSON.parse(m.data);
    // Every backend's parser turns its output into text and tool-call events (raw stream-json is noise).
    if (event.type === 'agent.event' && event.event.type === 'text') output.textContent += event.event.text + '\\n';
    else if (event.type === 'agent.event' && event.event.type === 'tool_call') output.textContent += text + '\\n';
    else if (event.type === 'iteration.started') output.textContent += '── ' + text + ' ──\\n';
    else if (event.type !== 'agent.event' && event.type !== 'agent.output' && event.type !== 'gate.output') refreshLive();
    if (output.textContent.length > 200000) output.textContent = output.textContent.slice(-150000);
    output.scrollTop = output.scrollHeight;
  };
}

async function act(kind, id, text) {
  const body = new URLSearchParams({ kind });
  if (id) body.set('id', id);
  if (text !== undefined) body.set('text', text);
  const res = await fetch('/run/' + key + '/action', { method: 'POST', body, credentials: 'same-origin' });
  const reply = await res.json().catch(() => ({ message: res.statusText }));
  if (flash) {
    flash.textContent = reply.message;
    flash.style.color = res.ok ? '' : '#b3261e';
  }
  refreshLive();
}

document.addEventListener('click', (e) => {
  const button = e.target.closest('button[data-action]');
  if (!button) return;
  const kind = button.dataset.action;
  const id = button.dataset.id;
  if (kind === 'guidance') {
    const area = document.querySelector('textarea[name=guidance]');
    act(kind, undefined, area.value).then(() => { area.value = ''; });
  } else if (kind === 'answer') {
    act(kind, id, document.querySelector('input[name=answer][data-for="' + id + '"]').value);
  } else if (kind === 'reject') {
    act(kind, id, document.querySelector('input[name=reason][data-for="' + id + '"]').value);
  } else act(kind, id);
});

// A parallel run's page: its section is re-fetched whenever the server says its files changed.
const parallel = document.getElementById('parallel');
if (parallel) {
  const source = new EventSource('/parallel/' + parallel.dataset.key + '/stream');
  source.addEventListener('changed', async () => {
    const res = await fetch('/parallel/' + parallel.dataset.key + '/live', { credentials: 'same-origin' });
    if (res.ok) parallel.innerHTML = await res.text();
  });
}

const runs = document.getElementById('runs');
if (runs) setInterval(async () => {
  // The same view (removed runs shown or hidden) as the page's own address.
  const res = await fetch('/' + location.search, { credentials: 'same-origin' });
  if (!res.ok) return;
  const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
  const fresh = doc.getElementById('runs');
  if (fresh) runs.innerHTML = fresh.innerHTML;
}, Number(runs.dataset.refresh) || 5000);
`;
