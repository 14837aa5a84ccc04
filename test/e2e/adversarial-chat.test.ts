import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markedProcesses } from '../helpers/marked-processes.ts';
import {
  fakeConfig,
  makeWorkspace,
  removeWhenDone,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';
import { startTelegramServer, type TelegramServer } from '../support/telegram-server/server.ts';

/** What an agent under pressure might put in a question to get everyone's attention, or a click. */
const ATTACK = '<!channel> @everyone @here <@U123> **bold** [link](http://x)';

/** The scripted agent's one turn: the attack, read from a file so no shell quoting gets in the way. */
const ASKING_AGENT = 'turns:\n  - do:\n      - run: "ralph ask \\"$(cat question.txt)\\" > answer.txt"\n';

/** A mention as Slack, GitHub and Telegram read plain text: `@` at a word's start, then a name. */
const PLAIN_MENTION = /(^|[^\p{L}\p{N}_`])@[\p{L}\p{N}_]/u;

/** A webhook receiver on a free loopback port, keeping every JSON body. */
async function receiver(): Promise<{ url: string; got: Record<string, any>[]; close(): Promise<void> }> {
  const got: Record<string, any>[] = [];
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => {
      data += c.toString();
    });
    req.on('end', () => {
      got.push(JSON.parse(data));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/**
 * The question asked through `ralph ask` by the scripted agent, answered (by `ralph answer`, else
 * by `reply`) once it reached `seen`.
 */
async function askedAndAnswered(
  ralphYml: string,
  seen: () => boolean,
  env: NodeJS.ProcessEnv = {},
  reply?: () => Promise<void>,
) {
  const dir = makeWorkspace({
    'PROMPT.md': 'work\n',
    'question.txt': ATTACK,
    'ralph.yml': ralphYml,
    'fake-agent.yml': ASKING_AGENT,
  });
  const loop = startRalph(['run'], dir, env);
  try {
    await waitFor(seen, 15_000, 'the question in the chat');
    if (reply) await reply();
    else expect((await runRalph(['answer', 'no'], dir, env)).code).toBe(0);
  } finally {
    const r = await loop.done;
    expect(r.code).toBe(2);
  }
  // The agent's `ralph ask` and everything it started are gone with the loop.
  expect(markedProcesses(dir)).toEqual([]);
  return dir;
}

const servers: TelegramServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe('adversarial: an agent’s question cannot ping everyone or hide a link in a chat', () => {
  it('Slack webhook: & < > escaped, so <!channel> and <@U123> show as typed; no plain @name left', async () => {
    const hook = await receiver();
    try {
      await askedAndAnswered(
        `${fakeConfig({ max_iterations: 1 })}notify:\n  webhook: ${hook.url}\n  webhook_format: slack\n  on: [question]\n`,
        () => hook.got.length > 0,
      );
      const text = hook.got[0]?.text as string;
      expect(text).toContain(
        '&lt;!channel&gt; @\u200beveryone @\u200bhere &lt;@\u200bU123&gt; **bold** [link](http://x)',
      );
      expect(text).not.toMatch(/<[!@]/);
      expect(text).not.toMatch(PLAIN_MENTION);
      expect(Object.keys(hook.got[0] ?? {})).toEqual(['text']);
    } finally {
      await hook.close();
    }
  }, 40_000);

  it('Discord webhook: allowed_mentions forbids every ping, markdown is escaped, no link preview', async () => {
    const hook = await receiver();
    try {
      await askedAndAnswered(
        `${fakeConfig({ max_iterations: 1 })}notify:\n  webhook: ${hook.url}\n  webhook_format: discord\n  on: [question]\n`,
        () => hook.got.length > 0,
      );
      const body = hook.got[0] as Record<string, any>;
      expect(body.allowed_mentions).toEqual({ parse: [] });
      expect(body.flags).toBe(4);
      expect(body.content).toContain(
        '\\<!channel\\> @\u200beveryone @\u200bhere \\<@\u200bU123\\> \\*\\*bold\\*\\* \\[link\\]\\(http://x\\)',
      );
      expect(body.content).not.toMatch(PLAIN_MENTION);
    } finally {
      await hook.close();
    }
  }, 40_000);

  it('Telegram: sent as plain text (no parse_mode), @names defused, no link preview', async () => {
    const server = await startTelegramServer();
    servers.push(server);
    const env = {
      RALPH_TELEGRAM_BOT_TOKEN: '123456:AAE-adversarial-token',
      RALPH_TELEGRAM_API_URL: server.url,
      XDG_STATE_HOME: removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-tg-state-'))),
    };
    server.userMessage('/start');
    const asked = () => server.messages.find((m) => m.text.includes('<!channel>'));
    await askedAndAnswered(
      `${fakeConfig({ max_iterations: 1 })}RObot:\n  enabled: true\n`,
      () => asked() !== undefined,
      env,
      async () => {
        // The chat echoes the answer: an @name in it mentions nobody either.
        server.userMessage('@everyone no', { replyTo: asked()?.message_id as number });
        await server.waitForMessage((m) => /^answered q-[0-9a-f]+: @\u200beveryone no$/.test(m.text));
      },
    );
    const sent = server.requests.find(
      (q) => q.method === 'sendMessage' && String(q.body.text).includes('<!channel>'),
    );
    expect(sent?.body).not.toHaveProperty('parse_mode');
    expect(sent?.body).not.toHaveProperty('entities');
    expect(sent?.body.link_preview_options).toEqual({ is_disabled: true });
    const text = String(sent?.body.text);
    expect(text).toContain('<!channel> @\u200beveryone @\u200bhere <@\u200bU123> **bold** [link](http://x)');
    // Ralph's own "@name" of the workspace stays; the agent's text mentions nobody.
    const question = text.slice(text.indexOf('\n') + 1, text.indexOf('\n\n'));
    expect(question).not.toMatch(PLAIN_MENTION);
  }, 40_000);
});
