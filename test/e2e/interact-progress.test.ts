import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  makeWorkspace,
  readRecords,
  readState,
  removeWhenDone,
  runRalph,
  startRalph,
} from '../helpers/workspace.ts';
import { startTelegramServer, type TelegramServer } from '../support/telegram-server/server.ts';

// `ralph tools interact progress` through the built CLI: a shell agent (`backend: custom`) sends a
// note; the loop sends it to the human on Telegram (the scripted Bot API) or, with no channel,
// records it; either way the run log and the event stream have it, redacted.

const TOKEN = '123456:AAE-secret-telegram-token-xyz';
const SECRET = 'svc-secret-value-0042';
const servers: TelegramServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/**
 * The agent: waits for `before` (when given), sends one note, saves what the command printed, waits
 * for `after` (when given: the note reached the human while the agent still ran), completes.
 */
const AGENT = (before?: string, after?: string) =>
  [
    '#!/bin/sh',
    'cat > /dev/null',
    before ? `while [ ! -f ${before} ]; do sleep 0.05; done` : '',
    'ralph tools interact progress "Parser done; tests next (key $MY_SERVICE_API_KEY)" > note-out.txt 2>&1',
    'echo "exit $?" >> note-out.txt',
    after ? `while [ ! -f ${after} ]; do sleep 0.05; done` : '',
    'echo LOOP_COMPLETE',
    '',
  ].join('\n');

function workspace(agent: string, robot: boolean, sandbox = false): string {
  const dir = makeWorkspace(
    {
      'PROMPT.md': 'work\n',
      'ralph.yml': [
        'event_loop:',
        '  max_iterations: 2',
        'cli:',
        '  backend: custom',
        '  command: ./agent.sh',
        robot ? 'RObot:\n  enabled: true' : '',
        sandbox ? 'sandbox: on' : '',
        '',
      ].join('\n'),
    },
    'shop',
  );
  writeFileSync(join(dir, 'agent.sh'), agent);
  chmodSync(join(dir, 'agent.sh'), 0o755);
  return dir;
}

/** The run's stream.jsonl events of a type, and its run log's text. */
function runFiles(dir: string): { progress: Record<string, unknown>[]; log: string } {
  const runId = readState(dir).run_id as string;
  const progress = readFileSync(join(dir, '.ralph', 'runs', runId, 'stream.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { event: Record<string, unknown> }).event)
    .filter((e) => e.type === 'human.progress');
  return { progress, log: readFileSync(join(dir, readState(dir).log_file as string), 'utf8') };
}

describe('ralph tools interact progress (a shell agent, the built CLI)', () => {
  it('with RObot on: the note reaches the Telegram chat, redacted, and the run log and event stream record it', async () => {
    const server = await startTelegramServer();
    servers.push(server);
    const state = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-tg-state-')));
    const env = {
      RALPH_TELEGRAM_BOT_TOKEN: TOKEN,
      RALPH_TELEGRAM_API_URL: server.url,
      XDG_STATE_HOME: state,
      MY_SERVICE_API_KEY: SECRET,
    };
    const dir = workspace(AGENT('go', 'seen'), true);
    const loop = startRalph(['run'], dir, env);
    server.userMessage('/start');
    await server.waitForMessage((m) => m.text.startsWith('Ralph is listening here'));
    writeFileSync(join(dir, 'go'), '');
    const note = await server.waitForMessage((m) => m.text.includes('Parser done'));
    expect(note.text).toBe('@shop progress (iteration 1):\nParser done; tests next (key [redacted])');
    // It arrived while the agent was still running (it waits for this file): nothing waited on it.
    writeFileSync(join(dir, 'seen'), '');
    const r = await loop.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'note-out.txt'), 'utf8')).toMatch(
      /^sent p-[0-9a-f]{8}: the loop passes it to the human on Telegram\nexit 0\n$/,
    );
    const { progress, log } = runFiles(dir);
    expect(progress).toEqual([
      expect.objectContaining({
        iteration: 1,
        text: 'Parser done; tests next (key [redacted])',
        channel: 'telegram',
      }),
    ]);
    expect(log).toMatch(
      /progress note p-[0-9a-f]{8} → telegram: Parser done; tests next \(key \[redacted\]\)/,
    );
    for (const text of [r.stdout, r.stderr, log, JSON.stringify(server.requests)])
      expect(text).not.toContain(SECRET);
  }, 60_000);

  // Also inside `sandbox: on`, where the progress file is one of the few of .ralph/ the agent may write.
  it.each([
    ['', false],
    [' (sandbox: on)', true],
  ])(
    'with no human channel: recorded in the run log and event stream, the command says nobody is notified, exit 0%s',
    async (_, sandbox) => {
      const dir = workspace(AGENT(), false, sandbox);
      const r = await runRalph(['run'], dir, { MY_SERVICE_API_KEY: SECRET });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(readFileSync(join(dir, 'note-out.txt'), 'utf8')).toMatch(
        /^recorded p-[0-9a-f]{8} in the run log and event stream: no human channel is configured \(RObot\.enabled is false\), so nobody is notified\nexit 0\n$/,
      );
      const { progress, log } = runFiles(dir);
      expect(progress).toEqual([expect.objectContaining({ iteration: 1, channel: 'none' })]);
      expect(readRecords(dir).map((x) => x.sandbox?.mode)).toEqual([sandbox ? 'on' : undefined]);
      expect(log).toContain('(no human channel: recorded only): Parser done; tests next (key [redacted])');
      expect(r.stdout).toContain('Parser done');
      expect(existsSync(join(dir, '.ralph', 'control', 'progress.jsonl'))).toBe(true);
      expect(readFileSync(join(dir, '.ralph', 'control', 'progress.jsonl'), 'utf8')).not.toContain(SECRET);
    },
    60_000,
  );
});
