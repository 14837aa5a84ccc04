import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBotApi } from '../../src/human/telegram/bot-api.ts';
import { runPoller } from '../../src/human/telegram/poller.ts';
import type { TelegramUpdate } from '../../src/human/telegram/route-update.ts';
import { createSendQueue, MAX_FLOOD_WAIT_MS } from '../../src/human/telegram/send-queue.ts';
import { createTelegramReporter } from '../../src/human/telegram/telegram-reporter.ts';
import type { LoopEvent } from '../../src/observe/events.ts';
import { thisHolder } from '../../src/state/io/lock.ts';
import { waitFor } from '../helpers/wait.ts';
import { makeWorkspace, removeWhenDone } from '../helpers/workspace.ts';
import { CHAT_ID, startTelegramServer, type TelegramServer } from '../support/telegram-server/server.ts';

// Telegram's service limits against the scripted Bot API on 127.0.0.1: a webhook set on the token,
// another poller, flood control (429 retry_after), long questions, update ids restarted after a quiet week.

const TOKEN = '123456:AAE-secret-telegram-token-xyz';
const DAY = 24 * 60 * 60_000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(o: { firstUpdateId?: number } = {}): Promise<TelegramServer> {
  const s = await startTelegramServer(o);
  cleanups.push(() => s.close());
  return s;
}

function stateDir(bot?: object): string {
  const dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-tg-limits-')));
  mkdirSync(dir, { recursive: true });
  if (bot) writeFileSync(join(dir, 'bot.json'), JSON.stringify(bot));
  return dir;
}

/** A poller on the scripted server; what it hands on and the notices it gives are collected. */
function poll(s: TelegramServer, dir: string) {
  const stop = new AbortController();
  const handled: TelegramUpdate[] = [];
  const notices: string[] = [];
  const done = runPoller({
    api: createBotApi({ apiUrl: s.url, token: TOKEN }),
    dir,
    me: { ...thisHolder(), started_at: new Date().toISOString() },
    signal: stop.signal,
    respond: (_applied, update) => handled.push(update),
    onProblem: (m) => notices.push(m),
    longPollSeconds: 1,
  });
  cleanups.push(async () => {
    stop.abort();
    await done;
  });
  return { handled, notices };
}

const readBot = (dir: string) => JSON.parse(readFileSync(join(dir, 'bot.json'), 'utf8'));

describe('the Telegram poller against getUpdates conflicts', () => {
  it('a webhook set on the bot is removed once, keeping its pending updates, and said once', async () => {
    const s = await server();
    s.setWebhook('https://example.invalid/hook');
    const pending = s.userMessage('/start');
    const p = poll(s, stateDir());
    await waitFor(() => p.handled.some((u) => u.update_id === pending), 10_000, 'the pending update');
    const deletes = s.requests.filter((r) => r.method === 'deleteWebhook');
    expect(deletes.map((r) => r.body)).toEqual([{ drop_pending_updates: false }]);
    expect(s.webhook).toBeUndefined();
    expect(s.requests.find((r) => r.method === 'getUpdates')?.status).toBe(409);
    expect(p.notices).toEqual([
      expect.stringContaining('Ralph removed it (deleteWebhook, pending updates kept)'),
    ]);
    const later = s.userMessage('hello');
    await waitFor(() => p.handled.some((u) => u.update_id === later), 10_000, 'a later update');
  });

  it('another getUpdates poller (another machine) is said plainly; no webhook is touched', async () => {
    const s = await server();
    s.failNext('getUpdates', 1, 409, {
      description:
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
    });
    const p = poll(s, stateDir());
    await waitFor(() => p.notices.length > 0, 10_000, 'the notice');
    expect(p.notices).toEqual([expect.stringContaining('another program is reading this bot')]);
    expect(s.requests.some((r) => r.method === 'deleteWebhook')).toBe(false);
  });
});

describe('the getUpdates offset kept across runs', () => {
  it('an offset over a day old is not trusted: update ids restarted below it after a quiet week still arrive', async () => {
    const s = await server({ firstUpdateId: 17 });
    const dir = stateDir({
      chat_id: CHAT_ID,
      offset: 900_000,
      offset_at: new Date(Date.now() - 8 * DAY).toISOString(),
    });
    const id = s.userMessage('/status');
    const p = poll(s, dir);
    await waitFor(() => p.handled.some((u) => u.update_id === id), 10_000, 'the update below the old offset');
    expect(s.requests.find((r) => r.method === 'getUpdates')?.body.offset).toBeUndefined();
    expect(readBot(dir)).toMatchObject({ chat_id: CHAT_ID, offset: 18 });
    expect(Date.now() - Date.parse(readBot(dir).offset_at)).toBeLessThan(DAY);
  });

  it('an offset from the last day is trusted: updates applied but not yet confirmed are not applied again', async () => {
    const s = await server({ firstUpdateId: 3 });
    s.userMessage('applied by the last run');
    s.userMessage('applied by the last run too');
    const fresh = s.userMessage('new');
    const dir = stateDir({
      chat_id: CHAT_ID,
      offset: fresh,
      offset_at: new Date(Date.now() - 60_000).toISOString(),
    });
    const p = poll(s, dir);
    await waitFor(() => p.handled.length > 0, 10_000, 'the new update');
    expect(s.requests.find((r) => r.method === 'getUpdates')?.body.offset).toBe(fresh);
    expect(p.handled.map((u) => u.update_id)).toEqual([fresh]);
  });
});

describe('sending under flood control', () => {
  /** A queue whose retry waits are recorded, not slept (a long retry_after is the subject). */
  function queue(s: TelegramServer) {
    const waits: number[] = [];
    const problems: string[] = [];
    const api = createBotApi({
      apiUrl: s.url,
      token: TOKEN,
      sleep: async (ms) => {
        waits.push(ms);
        return true;
      },
    });
    const q = createSendQueue({
      api,
      chatId: () => CHAT_ID,
      onProblem: (m) => problems.push(m),
      mustDeliverPauseMs: 1,
    });
    cleanups.push(() => q.close(0));
    return { q, waits, problems };
  }
  const message = (text: string, mustDeliver = false) => ({
    method: 'sendMessage',
    what: text,
    mustDeliver,
    params: (chat_id: number) => ({ chat_id, text }),
  });

  it('a 429 retry_after is waited in full (45 s), and a very long one up to the 10-minute cap', async () => {
    const s = await server();
    const { q, waits } = queue(s);
    s.failNext('sendMessage', 1, 429, {
      description: 'Too Many Requests: retry after 45',
      parameters: { retry_after: 45 },
    });
    q.push(message('first'));
    await s.waitForMessage((m) => m.text === 'first');
    s.failNext('sendMessage', 1, 429, { parameters: { retry_after: 3600 } });
    q.push(message('second'));
    await s.waitForMessage((m) => m.text === 'second');
    expect(waits).toEqual([45_000, MAX_FLOOD_WAIT_MS]);
    expect(MAX_FLOOD_WAIT_MS).toBe(600_000);
  });

  it('a question is retried past every bound until it is sent; a notification is dropped after four tries, said', async () => {
    const s = await server();
    const { q, problems } = queue(s);
    s.failNext('sendMessage', 4, 500);
    q.push(message('the run stopped'));
    await waitFor(() => problems.length > 0, 10_000, 'the dropped notification');
    expect(problems).toEqual([
      expect.stringContaining('could not send the run stopped to Telegram: Telegram sendMessage: HTTP 500'),
    ]);
    s.failNext('sendMessage', 11, 503);
    q.push(message('Which database?', true));
    await s.waitForMessage((m) => m.text === 'Which database?');
    const tries = s.requests.filter((r) => r.method === 'sendMessage' && r.body.text === 'Which database?');
    expect(tries.map((r) => r.status)).toEqual([...Array(11).fill(503), 200]);
    expect(problems[1]).toContain('Which database? is not sent yet');
    expect(s.messages.map((m) => m.text)).toEqual(['Which database?']);
  });
});

describe('a question longer than a Telegram message', () => {
  it('goes as parts of at most 4,096 UTF-16 units, cut at line ends, the buttons on the last part only', async () => {
    const s = await server();
    const dir = stateDir({ chat_id: CHAT_ID, offset: 0 });
    const workspace = makeWorkspace({}, 'shop');
    const reporter = createTelegramReporter({
      settings: { token: TOKEN, apiUrl: s.url, checkinMs: undefined, stateDir: dir },
      workspace,
      onProblem: () => {},
    });
    cleanups.push(() => reporter.close());
    const line = `${'😀'.repeat(10)} ${'x'.repeat(78)}\n`; // 100 UTF-16 units
    const text = line.repeat(50); // 5,000
    reporter.onEvent({
      type: 'loop.started',
      runId: 'r1',
      resumed: false,
      backend: 'fake',
    } as unknown as LoopEvent);
    reporter.onEvent({
      type: 'human.question',
      iteration: 1,
      id: 'q-1a2b',
      kind: 'question',
      text,
      options: ['yes', 'no'],
      expiresAt: null,
    } as unknown as LoopEvent);
    const last = await s.waitForMessage((m) => m.text.includes('(q-1a2b)'));
    const parts = s.messages.filter((m) => !m.text.includes('started run'));
    expect(parts.length).toBe(2);
    expect(parts.every((m) => m.text.length <= 4096)).toBe(true);
    expect(parts[0]?.text.endsWith('x\n')).toBe(true); // cut after a line
    expect(parts[0]?.reply_markup).toBeUndefined();
    expect(last).toBe(parts[1]);
    expect(last.reply_markup?.inline_keyboard.flat().map((b) => b.text)).toEqual(['yes', 'no']);
    expect(parts.map((m) => m.text).join('')).toContain(text);
  });
});
