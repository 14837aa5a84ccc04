import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fakeConfig,
  makeWorkspace,
  readRecords,
  readStatus,
  removeWhenDone,
  startRalph,
  waitFor,
  waitForFile,
} from '../helpers/workspace.ts';
import { CHAT_ID, startTelegramServer, type TelegramServer } from '../support/telegram-server/server.ts';

const TOKEN = '123456:AAE-secret-telegram-token-xyz';
const servers: TelegramServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function bot(): Promise<{ server: TelegramServer; env: NodeJS.ProcessEnv; state: string }> {
  const server = await startTelegramServer();
  servers.push(server);
  const state = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-tg-state-')));
  const env = { RALPH_TELEGRAM_BOT_TOKEN: TOKEN, RALPH_TELEGRAM_API_URL: server.url, XDG_STATE_HOME: state };
  return { server, env, state };
}

/** Every file under `dir`, read as text. */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile())
    .map((p) => readFileSync(p, 'utf8'))
    .join('\n');
}

const robot = 'RObot:\n  enabled: true\n';

describe('the human on Telegram (RObot)', () => {
  it('a question answered by a button, guidance reaching the next prompt, /status and /stop; the token never logged', async () => {
    const { server, env, state } = await bot();
    const dir = makeWorkspace(
      {
        'PROMPT.md': 'work\n',
        'ralph.yml': `${fakeConfig({ max_iterations: 3 })}${robot}`,
        'fake-agent.yml': [
          'turns:',
          '  - when: { iteration: 1 }',
          '    do:',
          `      - run: "ralph ask 'Which database?' --options postgres,sqlite > answer.txt"`,
          '  - do:',
          '      - save_prompt: p2.md',
          waitForFile('go'),
        ].join('\n'),
      },
      'shop',
    );
    const loop = startRalph(['run'], dir, env);
    server.userMessage('/start');
    const question = await server.waitForMessage((m) => m.text.includes('Which database?'));
    expect(question.chat_id).toBe(CHAT_ID);
    expect(question.reply_markup?.inline_keyboard.flat().map((b) => b.text)).toEqual(['postgres', 'sqlite']);
    server.userMessage('keep the schema in migrations/');
    await server.waitForMessage((m) => m.text.includes('noted for the next iteration of @shop'));
    const sqlite = question.reply_markup?.inline_keyboard[1]?.[0]?.callback_data as string;
    server.pressButton(question.message_id, sqlite);
    await server.waitForMessage((m) => /answered q-[0-9a-f]+: sqlite/.test(m.text));
    await waitFor(() => existsSync(join(dir, 'p2.md')), 15_000, 'iteration 2');
    server.userMessage('/status');
    const status = await server.waitForMessage(
      (m) => m.text.startsWith('@shop run ') && m.text.includes('iteration 2/3'),
    );
    expect(status.text).toContain('running');
    server.userMessage('/stop');
    await server.waitForMessage((m) => m.text === '@shop stops after the current iteration');
    writeFileSync(join(dir, 'go'), '');
    const r = await loop.done;
    expect(r.code).toBe(0);
    await server.waitForMessage((m) => m.text.startsWith('ralph · stopped'));

    expect(readFileSync(join(dir, 'answer.txt'), 'utf8').trim()).toBe('sqlite');
    expect(readFileSync(join(dir, 'p2.md'), 'utf8')).toContain('keep the schema in migrations/');
    expect(readRecords(dir)).toHaveLength(2);
    const methods = server.requests.map((q) => q.method);
    expect(methods).toContain('answerCallbackQuery');
    expect(server.requests.find((q) => q.method === 'editMessageReplyMarkup')?.body).toMatchObject({
      message_id: question.message_id,
      reply_markup: { inline_keyboard: [] },
    });
    expect(server.requests.every((q) => q.token === TOKEN)).toBe(true);
    expect(server.conflicts).toBe(0);
    // The offset is kept, with when it moved: the next poller (within a day) starts after the last update handled.
    const botFile = JSON.parse(readFileSync(join(state, 'ralph', 'telegram', '123456', 'bot.json'), 'utf8'));
    expect(botFile).toEqual({ chat_id: CHAT_ID, offset: 6, offset_at: expect.any(String) });
    // The token is in no file Ralph wrote, nor its output.
    for (const text of [r.stdout, r.stderr, allText(join(dir, '.ralph')), allText(state)])
      expect(text).not.toContain('secret-telegram-token');
  }, 40_000);

  it('a reply answers a question; /pause, /tail, /resume; approvals by the Approve button and by a reply with the reason', async () => {
    const { server, env } = await bot();
    const dir = makeWorkspace(
      {
        'PROMPT.md': 'work\n',
        'ralph.yml': `${fakeConfig({ max_iterations: 3 })}gates:\n  approval: before_complete\n${robot}`,
        'fake-agent.yml': [
          'turns:',
          '  - when: { iteration: 1 }',
          '    do:',
          `      - run: "ralph ask 'Which port?' > port.txt"`,
          '      - print: LOOP_COMPLETE',
          '  - do:',
          '      - save_prompt: p2.md',
          '      - print: LOOP_COMPLETE',
        ].join('\n'),
      },
      'shop',
    );
    const loop = startRalph(['run'], dir, env);
    server.userMessage('/start');
    const question = await server.waitForMessage((m) => m.text.includes('Which port?'));
    expect(question.reply_markup).toBeUndefined();
    server.userMessage('/pause');
    await server.waitForMessage(
      (m) => m.text === '@shop pauses after the current iteration (/resume goes on)',
    );
    server.userMessage('8080', { replyTo: question.message_id });
    await server.waitForMessage((m) => /^answered q-[0-9a-f]+: 8080$/.test(m.text));
    // Completion waits for approval; a reply to the approval rejects it, the reply being the reason.
    const first = await server.waitForMessage((m) =>
      m.text.includes('waits for your approval (before_complete'),
    );
    expect(first.reply_markup?.inline_keyboard.flat().map((b) => b.text)).toEqual(['Approve', 'Reject']);
    server.userMessage('the README is missing', { replyTo: first.message_id });
    await server.waitForMessage((m) => /^rejected a-[0-9a-f]+: the README is missing$/.test(m.text));
    // Settled by a reply, its buttons go away as after a press.
    await waitFor(
      () => server.buttons(first.message_id)?.length === 0,
      15_000,
      'the buttons of the rejected approval to go',
    );
    // Paused at the iteration boundary: no second iteration until /resume.
    await waitFor(() => readStatus(dir) === 'paused', 15_000, 'the pause');
    server.userMessage('/tail');
    const tail = await server.waitForMessage((m) => m.text.startsWith('@shop, the end of its log:'));
    expect(tail.text).toContain('the README is missing');
    expect(existsSync(join(dir, 'p2.md'))).toBe(false);
    server.userMessage('/resume');
    await server.waitForMessage((m) => m.text === '@shop goes on');
    const second = await server.waitForMessage(
      (m) => m.message_id !== first.message_id && m.text.includes('waits for your approval (before_complete'),
    );
    const approveButton = second.reply_markup?.inline_keyboard[0]?.[0]?.callback_data as string;
    server.pressButton(second.message_id, approveButton);
    await server.waitForMessage((m) => /^approved a-[0-9a-f]+$/.test(m.text));
    const r = await loop.done;
    expect(r.code).toBe(0);
    expect(server.buttons(second.message_id)).toEqual([]);
    // Every call succeeded: no edit of a message that had no buttons (Telegram refuses those).
    expect(server.requests.filter((q) => q.status !== 200)).toEqual([]);

    expect(readFileSync(join(dir, 'port.txt'), 'utf8').trim()).toBe('8080');
    expect(readFileSync(join(dir, 'p2.md'), 'utf8')).toContain('the README is missing');
    const records = readRecords(dir);
    expect(records).toHaveLength(2);
    expect(records[0]?.approvals).toMatchObject([
      { point: 'before_complete', answer: 'reject', by: 'telegram' },
    ]);
    expect(records[1]?.approvals).toMatchObject([
      { point: 'before_complete', answer: 'approve', by: 'telegram' },
    ]);
  }, 40_000);

  it('a send that fails three times is retried in the background; the loop does not wait for it', async () => {
    const { server, env, state } = await bot();
    // The chat is known from an earlier run.
    mkdirSync(join(state, 'ralph', 'telegram', '123456'), { recursive: true });
    writeFileSync(
      join(state, 'ralph', 'telegram', '123456', 'bot.json'),
      JSON.stringify({ chat_id: CHAT_ID, offset: 0 }),
    );
    server.failNext('sendMessage', 3);
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 2 })}${robot}`,
      'fake-agent.yml': 'turns:\n  - do: [{ print: ok }]\n',
    });
    const r = await startRalph(['run'], dir, env).done;
    expect(r.code).toBe(2);
    const sends = server.requests.filter((q) => q.method === 'sendMessage');
    expect(sends.slice(0, 4).map((q) => q.status)).toEqual([500, 500, 500, 200]);
    expect(server.messages[0]?.text).toContain('started run');
    // Both iterations were over before the first message got through.
    const finished = Math.max(...readRecords(dir).map((x) => Date.parse(x.finished_at)));
    expect(finished).toBeLessThan((sends[3] as { at: number }).at);
    expect(server.messages.map((m) => m.text).join('\n')).toContain('ralph · stopped');
  }, 30_000);

  it('several loops share one bot: one poller at a time, @name routes guidance to its loop, each checks in', async () => {
    const { server, env } = await bot();
    const files = (name: string) => ({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 2 })}${robot}  checkin_interval_seconds: 1\n`,
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        waitForFile('go'),
        '  - do:',
        '      - save_prompt: p2.md',
      ].join('\n'),
      [`${name}.txt`]: '',
    });
    const a = makeWorkspace(files('a'), 'alpha');
    const b = makeWorkspace(files('b'), 'beta');
    const loops = [startRalph(['run'], a, env), startRalph(['run'], b, env)];
    server.userMessage('/start');
    await server.waitForMessage((m) => m.text.startsWith('@alpha: started'));
    await server.waitForMessage((m) => m.text.startsWith('@beta: started'));
    // Check-ins: each loop's status, unasked, at its interval.
    await server.waitForMessage((m) => m.text.startsWith('@alpha run ') && m.text.includes('iteration 1/2'));
    await server.waitForMessage((m) => m.text.startsWith('@beta run ') && m.text.includes('iteration 1/2'));
    server.userMessage('nobody in particular');
    await server.waitForMessage((m) => m.text.startsWith('2 loops are running'));
    server.userMessage('@alpha use tabs');
    server.userMessage('@beta use spaces');
    await server.waitForMessage((m) => m.text === 'noted for the next iteration of @alpha');
    await server.waitForMessage((m) => m.text === 'noted for the next iteration of @beta');
    writeFileSync(join(a, 'go'), '');
    writeFileSync(join(b, 'go'), '');
    const [ra, rb] = await Promise.all(loops.map((l) => l.done));
    expect([ra?.code, rb?.code]).toEqual([2, 2]);
    const pa = readFileSync(join(a, 'p2.md'), 'utf8');
    const pb = readFileSync(join(b, 'p2.md'), 'utf8');
    expect(pa).toContain('use tabs');
    expect(pa).not.toContain('use spaces');
    expect(pb).toContain('use spaces');
    expect(pb).not.toContain('use tabs');
    expect(server.conflicts).toBe(0);
  }, 40_000);
});
