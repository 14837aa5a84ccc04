import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { RalphError } from '../errors.ts';
import { refuseAnyAgent } from '../human/agent-caller.ts';
import { answer, approve, pause, reject, resume, stop, tell } from '../human/control.ts';
import { logTail } from '../human/read-status.ts';
import { describeEvent } from '../observe/describe-event.ts';
import type { StreamLine } from '../observe/reporters/event-stream-file.ts';
import { followJsonl, poll } from '../state/io/jsonl.ts';
import { CLIENT_SCRIPT } from './client-script.ts';
import { type FleetSource, fleetSection } from './fleet-section.ts';
import { createMetricsSource } from './metrics-data.ts';
import { layout, runLive, runPage, runsPage } from './pages.ts';
import { findParallel, parallelSignature, parallelWorkspaces, readParallelRun } from './parallel-data.ts';
import { parallelIndex, parallelPage, parallelSection } from './parallel-pages.ts';
import { EXPOSITION_CONTENT_TYPE } from './prometheus-text.ts';
import {
  createStreamCache,
  findRun,
  listRuns,
  questionsOf,
  type RunSummary,
  recordsOfRun,
  streamFileOf,
  streamLine,
} from './run-data.ts';
import {
  allowedHosts,
  checkRequest,
  isLoopback,
  isWildcard,
  localMachineNames,
  newToken,
  TOKEN_COOKIE,
} from './security.ts';
import { statsResponse } from './stats-page.ts';

/** Where {@link startDashboard} listens and what it serves. */
export interface DashboardOptions {
  env: NodeJS.ProcessEnv;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Binding off loopback needs this, and then prints a warning (DESIGN.md §5). */
  unsafeExpose?: boolean;
  /** More names the Host header may carry (`--allow-host`: a DNS name or proxy in front of it). */
  allowHosts?: readonly string[] | undefined;
  token?: string;
  /** Fleet runs for the runs page (when a fleet Redis is configured). */
  fleet?: FleetSource | undefined;
}

/** A running dashboard: where it answers, its token, and how to close it. */
export interface Dashboard {
  /** The URL with the token (print it once; the browser keeps a cookie after the first visit). */
  url: string;
  origin: string;
  token: string;
  /** The Host headers it answers to (`name:port`); any other gets 421. */
  hosts: readonly string[];
  close(): Promise<void>;
}

/** Events the events table leaves out: output has its own pane, prompts their own section. */
const NOISY = new Set(['agent.output', 'agent.event', 'gate.output', 'prompt.assembled', 'agent.heartbeat']);
/** What a 401 answers: the token may come as a bearer token (what Prometheus sends). */
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="ralph dashboard"' };

function liveHtml(run: RunSummary, lines: StreamLine[]): string {
  const { records, notice } = recordsOfRun(run.workspace, run.runId);
  return runLive(run, records, lines, questionsOf(run.workspace), notice);
}

/** Builds the app (routes and the security check); exported for tests that drive it without a socket. */
export function dashboardApp(o: {
  env: NodeJS.ProcessEnv;
  token: string;
  hosts: string[];
  fleet?: FleetSource | undefined;
}): Hono {
  const app = new Hono();
  const allLines = createStreamCache();
  app.use('*', async (c, next) => {
    const verdict = checkRequest(
      {
        method: c.req.method,
        host: c.req.header('host'),
        origin: c.req.header('origin'),
        queryToken: c.req.query('token'),
        cookie: c.req.header('cookie'),
        authorization: c.req.header('authorization'),
      },
      { token: o.token, allowedHosts: o.hosts },
    );
    if (!verdict.ok) return c.text(verdict.message, verdict.status, verdict.status === 401 ? CHALLENGE : {});
    if (verdict.setCookie) {
      c.header('Set-Cookie', `${TOKEN_COOKIE}=${o.token}; HttpOnly; SameSite=Strict; Path=/`);
      // The token leaves the address bar (and the history) at once.
      if (c.req.method === 'GET') return c.redirect(new URL(c.req.url).pathname, 303);
    }
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header(
      'Content-Security-Policy',
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
    );
    await next();
  });
  // A bug in a page is a 500 with one line, never hono's default of a stack trace on stderr.
  app.onError((error, c) =>
    c.text(
      `internal error: ${error.message.split('\n')[0]} — this is a bug in Ralph: please report it\n`,
      500,
    ),
  );
  app.get('/app.js', (c) => c.body(CLIENT_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  const metrics = createMetricsSource(o.env);
  app.get('/metrics', (c) => c.body(metrics(), 200, { 'Content-Type': EXPOSITION_CONTENT_TYPE }));
  app.get('/', async (c) => {
    const fleet = o.fleet ? fleetSection(await o.fleet().catch((e: Error) => ({ error: e.message }))) : '';
    const parallel = parallelIndex(parallelWorkspaces(o.env).map(readParallelRun));
    return c.html(runsPage(listRuns(o.env), parallel, fleet, c.req.query('removed') === '1'));
  });
  app.get('/stats', (c) => {
    const page = statsResponse(o.env, c.req.query('since') || undefined, Date.now());
    return 'error' in page ? c.text(page.error, 400) : c.html(page.html);
  });
  app.get('/parallel/:key', (c) => {
    const view = findParallel(o.env, c.req.param('key'));
    if (!view)
      return c.html(layout('not found', '<p>No such parallel run. <a href="/">All runs</a></p>'), 404);
    return c.html(parallelPage(view));
  });
  app.get('/parallel/:key/live', (c) => {
    const view = findParallel(o.env, c.req.param('key'));
    return view ? c.html(parallelSection(view)) : c.text('no such parallel run', 404);
  });
  app.get('/parallel/:key/stream', (c) => {
    const view = findParallel(o.env, c.req.param('key'));
    if (!view) return c.text('no such parallel run', 404);
    return streamSSE(c, async (stream) => {
      const closed = new AbortController();
      stream.onAbort(() => closed.abort());
      // The coordinator writes no stream file: an event whenever its state or a worker's changes.
      let last = '';
      const signatures = poll(() => parallelSignature(readParallelRun(view.workspace)), {
        signal: closed.signal,
        intervalMs: 500,
      });
      for await (const now of signatures) {
        if (now !== last) await stream.writeSSE({ event: 'changed', data: now });
        last = now;
      }
    });
  });
  app.get('/run/:key', (c) => {
    const run = findRun(o.env, c.req.param('key'));
    if (!run) return c.html(layout('not found', '<p>No such run. <a href="/">All runs</a></p>'), 404);
    const lines = allLines(run);
    const topic = c.req.query('topic') ?? '';
    const iteration = c.req.query('iteration') ?? '';
    const events = lines
      .filter(({ event: e }) => !NOISY.has(e.type))
      .filter(({ event: e }) => !topic || JSON.stringify(e).includes(topic))
      .filter(({ event: e }) => !iteration || ('iteration' in e && String(e.iteration) === iteration))
      .reverse()
      .slice(0, 500);
    const prompts = lines.flatMap(({ event: e }) =>
      e.type === 'prompt.assembled' ? [{ iteration: e.iteration, hat: e.hat, prompt: e.prompt }] : [],
    );
    return c.html(
      runPage({
        run,
        live: liveHtml(run, lines),
        events,
        prompts,
        log: logTail(run.workspace, run.state),
        filter: { topic, iteration },
      }),
    );
  });
  app.get('/run/:key/live', (c) => {
    const run = findRun(o.env, c.req.param('key'));
    return run ? c.html(liveHtml(run, allLines(run))) : c.text('no such run', 404);
  });
  app.get('/run/:key/stream', (c) => {
    const run = findRun(o.env, c.req.param('key'));
    if (!run) return c.text('no such run', 404);
    return streamSSE(c, async (stream) => {
      const closed = new AbortController();
      stream.onAbort(() => closed.abort());
      // The output so far, then every new line as it is written.
      const file = streamFileOf(run.workspace, run.runId);
      // Each line carries its one-line description: the page shows the console's wording.
      for await (const chunk of followJsonl(file, streamLine, { signal: closed.signal }))
        for (const line of chunk.records)
          await stream.writeSSE({ data: JSON.stringify({ ...line, text: describeEvent(line.event) }) });
    });
  });
  app.post('/run/:key/action', async (c) => {
    const run = findRun(o.env, c.req.param('key'));
    if (!run) return c.json({ ok: false, message: 'no such run' }, 404);
    const form = await c.req.parseBody();
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : undefined);
    const kind = field('kind');
    const id = field('id');
    const text = field('text') ?? '';
    const target = { workspace: run.workspace, source: 'dashboard' as const, env: o.env };
    try {
      if (kind === 'guidance') tell(target, text);
      else if (kind === 'answer') answer(target, text, { id });
      else if (kind === 'approve') approve(target, { id });
      else if (kind === 'reject') reject(target, text, { id });
      else if (kind === 'stop' || kind === 'stop_now' || kind === 'pause' || kind === 'resume') {
        if (!run.alive) return c.json({ ok: false, message: 'the loop is not running' }, 409);
        if (kind === 'pause') pause(target);
        else if (kind === 'resume') resume(target);
        else stop(target, { now: kind === 'stop_now' });
      } else return c.json({ ok: false, message: `unknown action ${JSON.stringify(kind ?? '')}` }, 400);
    } catch (error) {
      if (error instanceof RalphError) return c.json({ ok: false, message: error.message }, 409);
      throw error;
    }
    return c.json({ ok: true, message: `${kind} sent` });
  });
  return app;
}

/** Starts the dashboard on `host:port` (127.0.0.1 unless told otherwise, with --unsafe-expose). */
export async function startDashboard(o: DashboardOptions): Promise<Dashboard> {
  // Its approve and answer buttons are a person's: an agent must not serve them to itself.
  refuseAnyAgent(o.env, '`ralph dashboard`');
  if (!isLoopback(o.host) && !o.unsafeExpose)
    throw new RalphError(
      'usage',
      `--host ${o.host} would expose the dashboard (and its stop/answer actions) beyond this machine; add --unsafe-expose if you mean it`,
    );
  const token = o.token ?? newToken();
  let hosts: string[] = [];
  let origin = '';
  const app = new Hono();
  // The real app needs the port, which is known once listening.
  let inner: Hono | undefined;
  app.all('*', (c) => (inner ? inner.fetch(c.req.raw) : c.text('starting', 503)));
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: o.port, hostname: o.host }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  // Bound to every interface, the URL printed is the loopback one: it works on this machine.
  const shown = isWildcard(o.host) ? '127.0.0.1' : o.host.includes(':') ? `[${o.host}]` : o.host;
  hosts = allowedHosts(o.host, port, {
    machine: isWildcard(o.host) ? localMachineNames() : undefined,
    extra: o.allowHosts,
  });
  origin = `http://${shown}:${port}`;
  inner = dashboardApp({ env: o.env, token, hosts, fleet: o.fleet });
  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    hosts,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // SSE clients keep connections open: end them.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
