import { setTimeout as sleep } from 'node:timers/promises';
import type { WEBHOOK_FORMATS } from '../config/schema/operations-values.ts';
import type { NotifyKind, RalphConfig } from '../config/schema.ts';
import type { HttpFailure } from '../http/http-failure.ts';
import { httpRequest } from '../http/http-request.ts';
import { describeEvent } from '../observe/describe-event.ts';
import type { LoopEvent } from '../observe/events.ts';
import type { Reporter } from '../observe/reporter.ts';
import { runCommand } from '../process/command-runner.ts';
import { formatDuration } from '../state/io/time-format.ts';
import { discordText, slackText } from './chat-text.ts';

/** A `notify.webhook_format`. */
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The JSON document a notification carries (stdin of `notify.command`, body of the webhook). */
export interface Notification {
  kind: NotifyKind;
  run_id: string | null;
  workspace: string;
  message: string;
  at: string;
  /** The event's own fields (stop reason, question id, park end …). */
  detail: Record<string, unknown>;
}

export interface NotifierOptions {
  notify: RalphConfig['notify'];
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** A delivery that failed for good (never thrown: notifications never stop the loop). */
  onProblem: (message: string) => void;
  /** Webhook attempts and the pause before each retry (ms). */
  retryDelaysMs?: readonly number[];
  commandTimeoutMs?: number;
  /** How long `close` waits for deliveries in flight, e.g. the `stopped` notification (default 10 s). */
  closeWaitMs?: number;
  fetchImpl?: typeof fetch;
}

/** A reporter that tells humans (`notify`); `close` waits, bounded, for deliveries in flight. */
export interface Notifier extends Reporter {
  close(): Promise<void>;
}

/** What an event is worth telling a human about, or undefined. */
export function notificationOf(
  event: LoopEvent,
  runId: string | null,
  workspace: string,
  now: Date,
): Notification | undefined {
  const base = { run_id: runId, workspace, at: now.toISOString() };
  switch (event.type) {
    case 'loop.finished':
      return {
        kind: 'stopped',
        ...base,
        message: describeEvent(event),
        detail: { stop_reason: event.stopReason, exit_code: event.exitCode, iterations: event.iterations },
      };
    case 'human.question':
      return {
        kind: event.kind === 'approval' ? 'approval' : 'question',
        ...base,
        message: event.text,
        detail: { id: event.id, options: event.options ?? null, point: event.point ?? null },
      };
    case 'loop.parked':
      // The first announcement of a park, not every minute's countdown.
      if (!event.first) return undefined;
      return { kind: 'parked', ...base, message: event.message, detail: { until: event.until } };
    case 'loop.resumed':
      return {
        kind: 'resumed',
        ...base,
        message: `resumed after ${event.from}`,
        detail: { from: event.from },
      };
    case 'limit.warning':
      return {
        kind: 'limit_warning',
        ...base,
        message: event.message,
        detail: { limit: event.limit, percent: event.percent },
      };
    default:
      return undefined;
  }
}

/** What each kind of notification is called in a chat message. */
const KIND_TITLES: Record<NotifyKind, string> = {
  stopped: 'stopped',
  question: 'question',
  approval: 'approval needed',
  parked: 'parked',
  resumed: 'resumed',
  limit_warning: 'limit warning',
};

/** How a chat shows a notification: its bold, and its escaping of text Ralph did not write. */
export interface ChatStyle {
  bold: (text: string) => string;
  text: (text: string) => string;
}

/** A notification in a few words for a person: `ralph · stopped — completed (run r-1, /path)`. */
export function notificationSummary(n: Notification, style: ChatStyle): string {
  const where = style.text(`run ${n.run_id ?? '-'} in ${n.workspace}`);
  return `${style.bold(`ralph · ${KIND_TITLES[n.kind]}`)} — ${style.text(n.message)}\n${where}`;
}

/** Discord's flag for a message without link previews (embeds). */
const SUPPRESS_EMBEDS = 1 << 2;

/**
 * The body of a webhook POST: the notification itself, or a Slack or Discord incoming-webhook
 * message whose text can neither mention anyone nor hide a link (chat-text.ts).
 */
export function webhookBody(format: WebhookFormat, n: Notification): object {
  switch (format) {
    case 'slack':
      return { text: notificationSummary(n, { bold: (t) => `*${t}*`, text: slackText }) };
    case 'discord':
      return {
        content: notificationSummary(n, { bold: (t) => `**${t}**`, text: discordText }).slice(0, 2000),
        // No @everyone, role or user ping, whatever the text says.
        allowed_mentions: { parse: [] },
        flags: SUPPRESS_EMBEDS,
      };
    default:
      return n;
  }
}

/** Delivers notifications to `notify.command` and `notify.webhook` in the background. */
export function createNotifier(o: NotifierOptions): Notifier {
  const inFlight = new Set<Promise<void>>();
  let runId: string | null = null;
  const track = (p: Promise<void>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  const enabled = o.notify.command !== undefined || o.notify.webhook !== undefined;
  return {
    onEvent: (event) => {
      if (event.type === 'loop.started') runId = event.runId;
      if (!enabled) return;
      const n = notificationOf(event, runId, o.workspace, new Date());
      if (!n || !o.notify.on.includes(n.kind)) return;
      if (o.notify.command) track(runNotifyCommand(o, o.notify.command, n));
      if (o.notify.webhook) track(postWebhook(o, o.notify.webhook, n));
    },
    close: async () => {
      if (inFlight.size === 0) return;
      const ms = o.closeWaitMs ?? 10_000;
      const timeout = new AbortController();
      await Promise.race([
        Promise.allSettled([...inFlight]),
        sleep(ms, undefined, { signal: timeout.signal }).catch(() => {}),
      ]);
      timeout.abort();
    },
  };
}

async function runNotifyCommand(o: NotifierOptions, command: string, n: Notification): Promise<void> {
  const timeoutMs = o.commandTimeoutMs ?? 30_000;
  const result = await runCommand('sh', ['-c', command], {
    cwd: o.workspace,
    env: {
      ...o.env,
      RALPH_NOTIFY_KIND: n.kind,
      RALPH_NOTIFY_RUN_ID: n.run_id ?? '',
      RALPH_NOTIFY_MESSAGE: n.message,
      RALPH_NOTIFY_WORKSPACE: n.workspace,
    },
    input: `${JSON.stringify(n)}\n`,
    timeoutMs,
    // Its output is not read: none of it is kept.
    maxOutputChars: 0,
  });
  if (result.spawnError) o.onProblem(`notify.command could not start: ${result.spawnError.message}`);
  else if (result.killedBy === 'timeout')
    o.onProblem(`notify.command took longer than ${formatDuration(timeoutMs)}; killed`);
  else if (result.exitCode !== 0 && result.exitCode !== null)
    o.onProblem(`notify.command exited ${result.exitCode} for a ${n.kind} notification`);
}

async function postWebhook(o: NotifierOptions, url: string, n: Notification): Promise<void> {
  try {
    await httpRequest(
      {
        method: 'POST',
        url,
        // The whole webhook URL is a credential (Slack's and Discord's path): the trace shows its host.
        traceUrl: url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#]*).*$/is, '$1/[redacted]'),
        headers: { 'content-type': 'application/json', 'user-agent': 'ralph-notify' },
        body: JSON.stringify(webhookBody(o.notify.webhook_format, n)),
      },
      {
        timeoutMs: 5000,
        // Only the status counts: a long answer is not read past 64 KiB.
        maxBodyBytes: 64 * 1024,
        // A client error will not get better by retrying (wrong URL, refused payload).
        retry: { delaysMs: o.retryDelaysMs ?? [1000, 3000], maxWaitMs: 30_000 },
        ...(o.fetchImpl ? { fetch: o.fetchImpl } : {}),
      },
    );
  } catch (error) {
    const e = error as HttpFailure;
    const last =
      e.status === undefined ? ((e.cause as Error | undefined)?.message ?? e.message) : `HTTP ${e.status}`;
    o.onProblem(`notify.webhook failed for a ${n.kind} notification: ${last}`);
  }
}
