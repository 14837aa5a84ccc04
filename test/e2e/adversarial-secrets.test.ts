import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { openDashboard } from '../helpers/dashboard.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';
import {
  fakeConfig,
  makeWorkspace,
  readState,
  readStatus,
  removeWhenDone,
  runRalph,
  startRalph,
  stopWhenDone,
  waitFor,
  waitForFile,
} from '../helpers/workspace.ts';
import { startTelegramServer, type TelegramServer } from '../support/telegram-server/server.ts';

/** A secret-named variable of the run's environment, and a key shape in a variable of no such name. */
const ENV_SECRET = 'acme-Zq8vR2pL9xW4tY7u-adv';
const SHAPE = 'ghp_Adv3rs4r1alK3yS3cr3tV4lu3x9Z8y7W6';
const SECRETS = { ACME_CLOUD_API_KEY: ENV_SECRET, LEAK_SHAPE: SHAPE };

/** Where a secret (or a cut-off start of one: a subject or a status line is cut) shows in `text`. */
function leaks(where: string, text: string): string[] {
  return [ENV_SECRET, SHAPE].filter((s) => text.includes(s.slice(0, 8))).map((s) => `${where}: ${s}`);
}

/** `text` with every character as a JSON escape (`\\u0061…`): JSON readers see it, a raw search does not. */
function escaped(text: string): string {
  return [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
}

/** Every file under `dir` as [path, text]. */
function allFiles(dir: string): [string, string][] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile())
    .map((p) => [p, readFileSync(p, 'utf8')] as [string, string]);
}

/** Reads an SSE response until `until` holds of what arrived (or 10 s pass), then hangs up. */
async function readSse(response: Response, until: (text: string) => boolean): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const timer = setTimeout(() => void reader.cancel(), 10_000);
  try {
    while (!until(text)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel();
  }
  return text;
}

const telegrams: TelegramServer[] = [];
afterEach(async () => {
  for (const s of telegrams.splice(0)) await s.close();
});

describe('agent text carrying a secret is redacted where it enters Ralph', () => {
  it('a summary with keys: neither the commit message nor the pushed remote has them', async () => {
    const remote = makeWorkspace();
    git(remote, 'init', '-q', '--bare', '-b', 'main');
    const dir = makeGitWorkspace({
      '.gitignore': '.ralph/\n',
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}git:\n  commit: true\n  push: true\n`,
      // The subject holds one key whole and the start of the other (it is cut at 72 characters).
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - write: { path: feature.txt, content: "done\\n" }',
        `      - result: { text: "rotated {{env.ACME_CLOUD_API_KEY}} of the deploy pipeline, new {{env.LEAK_SHAPE}}\\n\\nLOOP_COMPLETE" }`,
      ].join('\n'),
    });
    git(dir, 'remote', 'add', 'origin', remote);
    const r = await runRalph(['run'], dir, SECRETS);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const pushed = git(remote, 'log', '--all', '--format=%B');
    // Not vacuous: the iteration's commit, subject from the summary, reached the remote.
    expect(pushed).toContain('ralph: rotated [redacted] of the deploy pipeline');
    const found = [
      ...leaks('local git log', git(dir, 'log', '--all', '--format=%B')),
      ...leaks('remote git log', pushed),
      ...leaks('console', r.stdout + r.stderr),
      ...allFiles(join(dir, '.ralph')).flatMap(([f, t]) => leaks(f, t)),
    ];
    expect(found).toEqual([]);
  }, 30_000);

  it('ralph emit, ralph ask and <event> tags with keys: no file, command, dashboard, Telegram message or webhook has them', async () => {
    const telegram = await startTelegramServer();
    telegrams.push(telegram);
    const hook = await webhookReceiver();
    onTestFinished(() => hook.close());
    const state = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-adv-state-')));
    const env = {
      ...SECRETS,
      RALPH_TELEGRAM_BOT_TOKEN: '123456:AAE-adversarial-telegram-token',
      RALPH_TELEGRAM_API_URL: telegram.url,
      XDG_STATE_HOME: state,
    };
    const dir = makeWorkspace(
      {
        'PROMPT.md': 'work\n',
        'ralph.yml': [
          fakeConfig({ max_iterations: 1 }).trimEnd(),
          'RObot:',
          '  enabled: true',
          '  checkin_interval_seconds: 1',
          'notify:',
          `  webhook: ${hook.url}`,
          '  on: [question, stopped]',
        ].join('\n'),
        'fake-agent.yml': [
          'turns:',
          '  - do:',
          `      - run: 'ralph emit deploy.note "key $ACME_CLOUD_API_KEY and $LEAK_SHAPE"'`,
          `      - run: 'ralph emit "deploy.$LEAK_SHAPE" "{\\"token\\": \\"$ACME_CLOUD_API_KEY\\"}" --json'`,
          `      - run: 'ralph ask "Ship with $ACME_CLOUD_API_KEY and $LEAK_SHAPE?" --options "yes,no $LEAK_SHAPE" > answer.txt'`,
          `      - result: { text: "rotated {{env.ACME_CLOUD_API_KEY}}\\n<event topic=\\"deploy.tag\\">{{env.LEAK_SHAPE}}</event>" }`,
        ].join('\n'),
      },
      'shop',
    );
    const loop = stopWhenDone(startRalph(['run'], dir, env));
    telegram.userMessage('/start');
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'the question');
    const waiting = readState(dir);
    // Not vacuous: the question is there, redacted.
    expect(waiting.waiting_for.text).toContain('[redacted]');

    const asked = await telegram.waitForMessage((m) => m.text.includes('@shop asks'));
    expect(asked.text).toContain('Ship with [redacted]');
    telegram.userMessage('/status');
    const replies = () =>
      telegram.requests.filter(
        (q) => q.method === 'sendMessage' && String(q.body.text).includes('waiting for a human'),
      );
    await waitFor(
      () => replies().some((q) => q.body.reply_parameters) && replies().some((q) => !q.body.reply_parameters),
      15_000,
      'the /status reply and a check-in',
    );
    await waitFor(() => hook.got.some((g) => g.body.kind === 'question'), 15_000, 'the question webhook');
    expect(hook.got.find((g) => g.body.kind === 'question')?.body.message).toContain('Ship with [redacted]');

    const board = await openDashboard({ track: stopWhenDone, env: { XDG_STATE_HOME: state } });
    const index = await (await board.get('/')).text();
    const runPath = /<a href="(\/run\/[0-9a-f]+)">/.exec(index)?.[1] as string;
    expect(runPath).toBeDefined();
    const page = await (await board.get(runPath)).text();
    const live = await (await board.get(`${runPath}/live`)).text();
    // Not vacuous: the live view shows the open question.
    expect(live).toContain('Ship with [redacted]');
    const sse = await readSse(await board.get(`${runPath}/stream`), (t) => t.includes('human.question'));
    expect(sse).toContain('human.question');

    const status = await runRalph(['status'], dir, env);
    const statusJson = await runRalph(['status', '--json'], dir, env);
    const open = await runRalph(['answer'], dir, env);
    expect(open.stdout).toContain('Ship with [redacted]');
    const answered = await runRalph(['answer', 'yes'], dir, env);
    expect(answered.code).toBe(0);
    const r = await loop.done;
    expect(r.code).toBe(2);
    await telegram.waitForMessage((m) => m.text.startsWith('ralph · stopped'));
    await waitFor(() => hook.got.some((g) => g.body.kind === 'stopped'), 15_000, 'the stopped webhook');

    const events = await runRalph(['events'], dir, env);
    expect(events.stdout).toContain('deploy.note');
    const explain = await runRalph(['explain'], dir, env);
    const after = await runRalph(['status', '--json'], dir, env);
    const final = readState(dir);
    // The stale-loop signature is taken from the redacted events.
    expect(final.last_signature).toContain('[redacted]');
    const found = [
      ...leaks('state.json while waiting', JSON.stringify(waiting)),
      ...leaks('telegram', telegram.requests.map((q) => JSON.stringify(q.body)).join('\n')),
      ...leaks('telegram question', asked.text),
      ...leaks('webhook', JSON.stringify(hook.got)),
      ...leaks('dashboard page', page),
      ...leaks('dashboard live', live),
      ...leaks('dashboard SSE', sse),
      ...leaks('ralph status', status.stdout + status.stderr),
      ...leaks('ralph status --json', statusJson.stdout),
      ...leaks('ralph answer (list)', open.stdout + open.stderr),
      ...leaks('ralph answer yes', answered.stdout + answered.stderr),
      ...leaks('ralph events', events.stdout + events.stderr),
      ...leaks('ralph explain', explain.stdout + explain.stderr),
      ...leaks('ralph status --json after', after.stdout),
      ...leaks('console', r.stdout + r.stderr),
      ...allFiles(join(dir, '.ralph')).flatMap(([f, t]) => leaks(f, t)),
      ...allFiles(state).flatMap(([f, t]) => leaks(f, t)),
    ];
    expect(found).toEqual([]);
  }, 60_000);

  it('an agent that writes the events and questions files itself: the loop redacts each line as it reads it in, and in the file', async () => {
    const telegram = await startTelegramServer();
    telegrams.push(telegram);
    const state = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-adv-state-')));
    const env = { ...SECRETS, XDG_STATE_HOME: state };
    // A bot token only in ralph.yml: the agent's environment never has it, the loop knows it.
    const bot = '654321:AAE-yml-only-bot-token-adv';
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': [
        fakeConfig({ max_iterations: 1 }).trimEnd(),
        'RObot:',
        '  enabled: true',
        '  telegram:',
        `    bot_token: "${bot}"`,
        `    api_url: ${telegram.url}`,
      ].join('\n'),
      // Around `ralph emit` and `ralph ask`: an event, a line that is not one, a line posing as the
      // loop's own (it skips those), a key hidden by JSON escapes, an open question of this
      // iteration and one of no run (`ralph answer` lists it after the run).
      'bypass.sh': [
        `echo "{\\"topic\\":\\"deploy.raw\\",\\"payload\\":{\\"key\\":\\"$ACME_CLOUD_API_KEY\\",\\"bot\\":\\"${bot}\\"}}" >> "$RALPH_EVENTS_FILE"`,
        'echo "$LEAK_SHAPE is not JSON" >> "$RALPH_EVENTS_FILE"',
        `printf '%s\\n' '{"topic":"deploy.forged","payload":"${bot}","source":"loop"}' >> "$RALPH_EVENTS_FILE"`,
        `printf '%s\\n' '{"topic":"deploy.escaped","payload":"${escaped(ENV_SECRET)}"}' >> "$RALPH_EVENTS_FILE"`,
        `echo "{\\"id\\":\\"q-0000beef\\",\\"ts\\":\\"2026-01-01T00:00:00Z\\",\\"kind\\":\\"question\\",\\"text\\":\\"Ship with $ACME_CLOUD_API_KEY?\\",\\"run_id\\":\\"$RALPH_RUN_ID\\",\\"iteration\\":$RALPH_ITERATION}" >> .ralph/control/questions.jsonl`,
        `printf '%s\\n' '{"id":"q-0000f00d","ts":"2026-01-01T00:00:00Z","kind":"question","text":"Post ${bot} and ${escaped(SHAPE)}?","run_id":null,"iteration":null}' >> .ralph/control/questions.jsonl`,
      ].join('\n'),
      'fake-agent.yml': ['turns:', '  - do:', '      - run: sh bypass.sh', waitForFile('go')].join('\n'),
    });
    mkdirSync(join(dir, '.ralph', 'control'), { recursive: true });
    const loop = stopWhenDone(startRalph(['run'], dir, env));
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'the question');
    const waiting = readState(dir);
    expect(waiting.waiting_for.text).toBe('Ship with [redacted]?');
    const status = await runRalph(['status', '--json'], dir, env);
    // The questions file is cleaned as the loop reads it: `ralph answer` and the dashboard list both open questions.
    const open = await runRalph(['answer'], dir, env);
    expect(open.stdout).toContain('Ship with [redacted]?');
    expect(open.stdout).toContain('Post [redacted] and [redacted]?');
    const board = await openDashboard({ track: stopWhenDone, env: { XDG_STATE_HOME: state } });
    const runPath = /<a href="(\/run\/[0-9a-f]+)">/.exec(await (await board.get('/')).text())?.[1] as string;
    expect(runPath).toBeDefined();
    const live = await (await board.get(`${runPath}/live`)).text();
    expect(live).toContain('Ship with [redacted]?');
    writeFileSync(join(dir, 'go'), '');
    const r = await loop.done;
    expect(r.code).toBe(2);
    const final = readState(dir);
    expect(final.pending_events).toContainEqual(
      expect.objectContaining({ topic: 'deploy.raw', payload: { key: '[redacted]', bot: '[redacted]' } }),
    );
    expect(final.last_signature).toContain('[redacted]');
    const explain = await runRalph(['explain'], dir, env);
    const events = await runRalph(['events'], dir, env);
    const eventsJson = await runRalph(['events', '--format', 'json'], dir, env);
    // Not vacuous: the agent's lines are there, redacted, the forged and escaped ones too.
    expect(JSON.parse(eventsJson.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ topic: 'deploy.raw', payload: { key: '[redacted]', bot: '[redacted]' } }),
        expect.objectContaining({ topic: 'deploy.forged', payload: '[redacted]' }),
        expect.objectContaining({ topic: 'deploy.escaped', payload: '[redacted]' }),
      ]),
    );
    const after = await runRalph(['answer'], dir, env);
    expect(after.stdout).toContain('Post [redacted] and [redacted]?');
    const liveAfter = await (await board.get(`${runPath}/live`)).text();
    const eventsFile = readFileSync(join(dir, final.events_file), 'utf8');
    expect(eventsFile).toContain('[redacted] is not JSON');
    const found = [
      ...leaks('state.json while waiting', JSON.stringify(waiting)),
      ...leaks('ralph status --json', status.stdout),
      ...leaks('ralph answer (list) while waiting', open.stdout + open.stderr),
      ...leaks('dashboard live while waiting', live),
      ...leaks('ralph explain', explain.stdout + explain.stderr),
      ...leaks('ralph events', events.stdout + events.stderr),
      ...leaks('ralph events --format json', eventsJson.stdout + eventsJson.stderr),
      ...leaks('ralph answer (list) after', after.stdout + after.stderr),
      ...leaks('dashboard live after', liveAfter),
      ...leaks('console', r.stdout + r.stderr),
      ...allFiles(join(dir, '.ralph')).flatMap(([f, t]) => leaks(f, t)),
      ...allFiles(state).flatMap(([f, t]) => leaks(f, t)),
    ];
    const bots = [
      ...[
        events.stdout,
        eventsJson.stdout,
        open.stdout,
        after.stdout,
        live,
        liveAfter,
        explain.stdout,
        r.stdout,
      ]
        .filter((t) => t.includes(bot.slice(0, 12)))
        .map(() => 'a command or page: the bot token'),
      ...allFiles(join(dir, '.ralph'))
        .filter(([, t]) => t.includes(bot.slice(0, 12)))
        .map(([f]) => `${f}: the bot token`),
    ];
    expect([...found, ...bots]).toEqual([]);
  }, 45_000);

  it('kill -9 right before and after each write of the events and questions files, then --resume: no key is left in either', async () => {
    // Iteration 1 writes a key into both files itself (a question of no run: nothing waits for it).
    const workspace = () =>
      makeWorkspace({
        'PROMPT.md': 'work\n',
        'ralph.yml': fakeConfig({ max_iterations: 3 }),
        'bypass.sh': [
          `echo "{\\"topic\\":\\"deploy.raw\\",\\"payload\\":\\"$ACME_CLOUD_API_KEY\\"}" >> "$RALPH_EVENTS_FILE"`,
          `echo "{\\"id\\":\\"q-0000cafe\\",\\"ts\\":\\"2026-01-01T00:00:00Z\\",\\"kind\\":\\"question\\",\\"text\\":\\"$LEAK_SHAPE?\\",\\"run_id\\":null,\\"iteration\\":null}" >> .ralph/control/questions.jsonl`,
        ].join('\n'),
        'fake-agent.yml': [
          'turns:',
          '  - when: { iteration: 1 }',
          '    do: [{ run: "mkdir -p .ralph/control && sh bypass.sh" }, { print: "step one done" }]',
          '  - do: [{ print: "LOOP_COMPLETE" }]',
        ].join('\n'),
      });
    const trace = join(makeWorkspace(), 'writes.jsonl');
    const undisturbed = await runRalph(['run'], workspace(), { ...SECRETS, RALPH_FAULT_TRACE_WRITES: trace });
    expect(undisturbed.code, undisturbed.stderr).toBe(0);
    const points = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; n: number; path: string })
      .filter((w) => w.kind === 'durable' && /(events-[^/]*|questions)\.jsonl$/.test(w.path))
      .map((w) => w.n);
    // Not vacuous: the cleaning of each file is among them (and the loop's own appends).
    expect(points.length).toBeGreaterThanOrEqual(2);
    for (const when of ['BEFORE', 'AFTER'])
      for (const n of points) {
        const dir = workspace();
        const where = `killed ${when.toLowerCase()} write ${n}`;
        const first = await runRalph(['run'], dir, {
          ...SECRETS,
          [`RALPH_FAULT_KILL_${when}_WRITE`]: String(n),
        });
        expect(first.signal, where).toBe('SIGKILL');
        const resumed = await runRalph(['run', '--resume'], dir, SECRETS);
        expect(resumed.code, `${where}\n${resumed.stdout}${resumed.stderr}`).toBe(0);
        expect(readState(dir), where).toMatchObject({ status: 'completed', iterations: 2 });
        const events = await runRalph(['events', '--format', 'json'], dir, SECRETS);
        const open = await runRalph(['answer'], dir, SECRETS);
        expect(open.stdout, where).toContain('q-0000cafe');
        expect(
          [
            ...leaks('ralph events', events.stdout),
            ...leaks('ralph answer', open.stdout),
            ...allFiles(join(dir, '.ralph')).flatMap(([f, t]) => leaks(f, t)),
          ],
          where,
        ).toEqual([]);
      }
  }, 120_000);

  it("a usage-limit message with a key: the parked loop's state and status have it redacted", async () => {
    const resetsAt = Math.ceil(Date.now() / 1000) + 600;
    const limit = `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","rateLimitType":"five_hour","resetsAt":${resetsAt}}}`;
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        `      - print: '${limit}'`,
        `      - result: { text: "You've hit your limit, key {{env.ACME_CLOUD_API_KEY}}", is_error: true }`,
        '      - exit: 1',
      ].join('\n'),
    });
    const loop = stopWhenDone(startRalph(['run'], dir, SECRETS));
    await waitFor(() => readStatus(dir) !== undefined && readState(dir).parked != null, 15_000, 'the park');
    const parked = readState(dir);
    // Not vacuous: the agent's own message is what the state keeps.
    expect(parked.parked.message).toBe("You've hit your limit, key [redacted]");
    const status = await runRalph(['status', '--json'], dir, SECRETS);
    loop.child.kill('SIGINT');
    const r = await loop.done;
    expect(r.code).toBe(130);
    const found = [
      ...leaks('state.json while parked', JSON.stringify(parked)),
      ...leaks('ralph status --json', status.stdout),
      ...leaks('console', r.stdout + r.stderr),
      ...allFiles(join(dir, '.ralph')).flatMap(([f, t]) => leaks(f, t)),
    ];
    expect(found).toEqual([]);
  }, 30_000);
});
