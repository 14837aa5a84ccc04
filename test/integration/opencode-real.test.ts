import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opencodeBinary } from '../helpers/agent-binaries.ts';
import { elapse } from '../helpers/wait.ts';
import { makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';
import { builtBy, PLANNER_BUILDER_HATS, plannerBuilderScript } from '../support/hat-workflow.ts';
import {
  LADDER_GATE,
  LADDER_PROMPT,
  ladderScript,
  rungsSeen,
} from '../support/model-server/ladder-script.ts';
import { chatView, isTitleRequest, openAiChat } from '../support/model-server/openai-chat.ts';
import type { Script } from '../support/model-server/script.ts';
import { type ModelServer, startModelServer } from '../support/model-server/server.ts';

/**
 * The real opencode CLI (the pinned opencode-ai devDependency) driven by the built `ralph` against
 * the scripted model server on 127.0.0.1, through an `@ai-sdk/openai-compatible` provider (bundled
 * in the opencode binary: nothing is installed at runtime). Nothing leaves the machine: proxies
 * point at a dead loopback port, the models.dev catalogue fetch is off, and the config directory
 * already holds what opencode would otherwise `npm install` into it in the background
 * (`@opencode-ai/plugin`); measured with strace and a recording proxy, opencode then connects to
 * nothing but the model server.
 */
const KEY_VAR = 'RALPH_TEST_OPENCODE_KEY';
const MODEL = 'ralphtest/ralph-model';
/** USD per million tokens of the scripted model, so opencode reports a cost. */
const PRICE = { input: 3, output: 15 };

let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer([openAiChat], { rules: [] });
});

afterAll(async () => {
  await server?.close();
});

/** Variables of the outer environment that would change opencode's config, auth or directory. */
const STRIPPED = [
  'OPENCODE_CONFIG',
  'OPENCODE_CONFIG_DIR',
  'OPENCODE_CONFIG_CONTENT',
  'OPENCODE_PERMISSION',
  'OPENCODE_AUTH_CONTENT',
  'OPENCODE_API_KEY',
  'OPENCODE_MODELS_URL',
  'OPENCODE_MODELS_PATH',
  'RALPH_DIAGNOSTICS',
];

/**
 * A private HOME (and XDG dirs) whose opencode config directory is already "installed", the
 * provider config in OPENCODE_CONFIG_CONTENT, and proxies at `proxy` (a dead port by default).
 */
function opencodeEnv(proxy = 'http://127.0.0.1:9', extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = makeWorkspace();
  const configDir = join(home, '.config', 'opencode');
  // With node_modules/ and a lock naming @opencode-ai/plugin present, opencode skips its background install.
  mkdirSync(join(configDir, 'node_modules'), { recursive: true });
  const dependencies = { '@opencode-ai/plugin': '1.18.33' };
  writeFileSync(join(configDir, 'package.json'), JSON.stringify({ dependencies }));
  writeFileSync(
    join(configDir, 'package-lock.json'),
    JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies } } }),
  );
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    provider: {
      ralphtest: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Ralph scripted model server',
        options: { baseURL: `${server.url}/v1`, apiKey: `{env:${KEY_VAR}}` },
        models: {
          'ralph-model': {
            name: 'Ralph scripted model',
            limit: { context: 200_000, output: 32_000 },
            cost: { ...PRICE, cache_read: 0.3, cache_write: 3.75 },
          },
          // The strong rung of the model-ladder test.
          'ralph-strong': {
            name: 'Ralph scripted strong model',
            limit: { context: 200_000, output: 32_000 },
            cost: { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
          },
        },
      },
    },
  };
  const env: NodeJS.ProcessEnv = {};
  for (const k of STRIPPED) env[k] = undefined;
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    [KEY_VAR]: 'test-key',
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_MODELS_FETCH: '1', // else it fetches https://models.opencode.ai/api.json
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    ALL_PROXY: proxy,
    https_proxy: proxy,
    http_proxy: proxy,
    all_proxy: proxy,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    ...extra,
  };
}

function ralphYml(extra = '', eventLoop = 'max_iterations: 6'): string {
  return [
    'event_loop:',
    `  ${eventLoop}`,
    '  iteration_timeout_seconds: 120',
    'cli:',
    '  backend: opencode',
    `  command: ${JSON.stringify(opencodeBinary())}`,
    `  model: ${MODEL}`,
    extra,
  ].join('\n');
}

/** Requests the server answered since `from`, as the script saw them. */
function viewsSince(from: number) {
  return server.requests.slice(from).map((r) => {
    const body = r.body as Record<string, unknown>;
    return { path: r.path, title: isTitleRequest(body), ...chatView(body) };
  });
}

/** The cost opencode computes for `calls` model calls of `usage` at PRICE. */
const costOf = (calls: number, usage: { input: number; output: number }) =>
  (calls * (usage.input * PRICE.input + usage.output * PRICE.output)) / 1_000_000;

/**
 * A proxy that records and refuses every request: opencode honours the proxy variables, so any
 * fetch of models.dev, npm or an update check would show up in `attempts`.
 */
async function startTrapProxy(): Promise<{ url: string; attempts: string[]; close: () => Promise<void> }> {
  const attempts: string[] = [];
  const trap: Server = createServer((req, res) => {
    attempts.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  trap.on('connect', (req, socket) => {
    attempts.push(`CONNECT ${req.url}`);
    socket.on('error', () => {});
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    trap.closeAllConnections();
    await new Promise((resolve) => trap.close(resolve));
  };
  return { url: `http://127.0.0.1:${(trap.address() as AddressInfo).port}`, attempts, close };
}

describe('real opencode driven by ralph', () => {
  // Once as is, once inside `sandbox: on` (issue 34): opencode starts, reaches the server on
  // loopback and keeps its sessions in its data dir, the part of the home it sees. The run
  // without the sandbox is also the check that opencode connects to nothing but the model server
  // (writing a file, bash, two iterations: one opencode run less than a test of its own).
  it.each([
    ['; it connects to nothing but the model server', false],
    [' (sandbox: on)', true],
  ])(
    'a solo loop: opencode writes a file and runs bash over two iterations, then completes with the promise%s',
    async (_, sandbox) => {
      const first = { input: 800, output: 20 };
      const second = { input: 900, output: 30 };
      const script: Script = {
        rules: [
          {
            // Iteration 2: the scratchpad (in the prompt) says step one is done.
            match: 'step-1-done',
            reply: {
              tools: [{ kind: 'shell', command: 'echo two >> progress.txt' }],
              text: 'Wrote step two; both steps are in progress.txt.\nLOOP_COMPLETE',
              usage: second,
            },
          },
          {
            match: 'Append the steps',
            reply: {
              tools: [
                { kind: 'write_file', path: 'progress.txt', content: 'one\n' },
                { kind: 'shell', command: 'echo step-1-done >> .ralph/agent/scratchpad.md' },
              ],
              text: 'Wrote step one. Step two is next.',
              usage: first,
            },
          },
        ],
      };
      server.setScript(script);
      const from = server.requests.length;
      const dir = makeWorkspace({ 'PROMPT.md': 'Append the steps to progress.txt, one per iteration.\n' });
      writeFileSync(join(dir, 'ralph.yml'), ralphYml(sandbox ? 'sandbox: on' : ''));
      mkdirSync(join(dir, '.ralph', 'agent'), { recursive: true });
      // opencode prefers $PWD over its working directory: a stale one must not move it.
      const elsewhere = makeWorkspace();
      const trap = sandbox ? undefined : await startTrapProxy();
      try {
        const env = opencodeEnv(trap?.url, { PWD: elsewhere });
        const r = await runRalph(['run'], dir, env);
        expect(r.code, r.stdout + r.stderr).toBe(0);
        if (trap) {
          await elapse(
            1000,
            "opencode's background work (the config-directory install) may outlive the run by a moment",
          );
          // Connects to nothing but the model server.
          expect(trap.attempts).toEqual([]);
        }
        expect(readRecords(dir).map((x) => x.sandbox?.mode)).toEqual(
          sandbox ? ['on', 'on'] : [undefined, undefined],
        );
        // Its sessions are in its data dir, kept on disk (not in the sandbox's throwaway home).
        const data = readdirSync(join(env.XDG_DATA_HOME as string, 'opencode'), { recursive: true }).map(
          String,
        );
        expect(
          data.some((f) => /^storage\/session\//.test(f) || /opencode\.db$/.test(f)),
          data.join(' '),
        ).toBe(true);
        expect(readFileSync(join(dir, 'progress.txt'), 'utf8')).toBe('one\ntwo\n');
        expect(existsSync(join(elsewhere, 'progress.txt'))).toBe(false);
        expect(readState(dir).stop_reason).toBe('completed');
        const records = readRecords(dir);
        expect(records).toHaveLength(2);
        expect(records.every((x) => x.backend === 'opencode')).toBe(true);
        // Iteration 1: three model calls (write, bash, answer); iteration 2: two (bash, answer).
        expect(records.map((x) => x.tokens.total)).toEqual([3 * 820, 2 * 930]);
        expect(records[0]!.tokens).toMatchObject({ input: 2400, output: 60 });
        // The cost opencode reported, not an estimate.
        expect(records[0]!.cost_usd).toBeCloseTo(costOf(3, first), 10);
        expect(records[1]!.cost_usd).toBeCloseTo(costOf(2, second), 10);
        expect(records.some((x) => x.cost_estimated === true)).toBe(false);
        expect(readState(dir).cost_usd).toBeCloseTo(costOf(3, first) + costOf(2, second), 10);
        const views = viewsSince(from);
        // No session-title call: Ralph sets the title.
        expect(views.some((v) => v.title)).toBe(false);
        expect(views.map((v) => v.path)).toEqual(Array(5).fill('/v1/chat/completions'));
        expect(views.map((v) => v.toolRounds)).toEqual([0, 1, 2, 0, 1]);
      } finally {
        await trap?.close();
      }
    },
    180_000,
  );

  it('a two-hat workflow: the agent publishes with `ralph emit` through opencode’s bash tool', async () => {
    server.setScript(plannerBuilderScript('opencode'));
    const dir = makeWorkspace({ 'PROMPT.md': 'Build the project.\n' });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml(PLANNER_BUILDER_HATS));
    const r = await runRalph(['run'], dir, opencodeEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    expect(readRecords(dir).map((x) => x.hat)).toEqual(['planner', 'builder', 'planner']);
    expect(readFileSync(join(dir, 'BUILD.md'), 'utf8')).toBe(builtBy('opencode'));
    const events = JSON.parse((await runRalph(['events', '--format', 'json'], dir)).stdout) as {
      topic: string;
      payload: unknown;
    }[];
    expect(events.map((e) => e.topic)).toEqual(['task.start', 'build.task', 'build.done', 'LOOP_COMPLETE']);
    expect(events[1]?.payload).toBe('write BUILD.md');
    expect(events[2]?.payload).toBe('BUILD.md');
    const records = readRecords(dir);
    expect(records.every((x) => x.tokens.total > 0 && x.cost_usd > 0)).toBe(true);
  }, 240_000);

  it('a model ladder: the server sees the model change after a failed tests gate (cli.models → -m)', async () => {
    server.setScript(ladderScript(1));
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': LADDER_PROMPT });
    const yml = ralphYml(LADDER_GATE).replace(
      `  model: ${MODEL}`,
      `  models: [${MODEL}, ralphtest/ralph-strong]`,
    );
    writeFileSync(join(dir, 'ralph.yml'), yml);
    const r = await runRalph(['run'], dir, opencodeEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const calls = server.requests.slice(from).map((q) => q.body as Record<string, unknown> | undefined);
    const chat = calls.filter((b) => b !== undefined && typeof b === 'object' && !isTitleRequest(b));
    expect(rungsSeen(chat.map((b) => b?.model))).toEqual(['ralph-model', 'ralph-strong']);
    expect(readRecords(dir).map((x) => x.decision.route.model.name)).toEqual([
      MODEL,
      'ralphtest/ralph-strong',
    ]);
  }, 120_000);

  it('a 429 that opencode retries succeeds within the same iteration', async () => {
    server.setScript({
      rules: [
        { match: 'Say done', times: 1, reply: { status: 429, headers: { 'retry-after': '1' } } },
        { match: 'Say done', reply: { text: 'Done.\nLOOP_COMPLETE' } },
      ],
    });
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': 'Say done.\n' });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml('', 'max_iterations: 3'));
    const r = await runRalph(['run'], dir, opencodeEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(viewsSince(from)).toHaveLength(2);
    expect(readRecords(dir).map((x) => x.verdict)).toEqual(['complete']);
  }, 120_000);

  it('a prompt longer than the argument limit reaches the model intact', async () => {
    const line = 'the quick "brown" fox jumps over the lazy dog 0123456789\n';
    const body = `# Big prompt\n${line.repeat(Math.ceil(250_000 / line.length))}END-OF-BIG-PROMPT\n`;
    expect(body.length).toBeGreaterThan(200_000);
    server.setScript({
      rules: [{ match: 'END-OF-BIG-PROMPT', reply: { text: 'Read it all.\nLOOP_COMPLETE' } }],
    });
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': body });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml('', 'max_iterations: 2'));
    const r = await runRalph(['run'], dir, opencodeEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const views = viewsSince(from);
    expect(views).toHaveLength(1);
    const received = views[0]!.prompt;
    // Byte for byte: not wrapped in quotes, its quotes not escaped (as opencode does to an argument).
    expect(received.startsWith(body.trimEnd())).toBe(true);
    expect(received).toContain('## DONE');
  }, 120_000);

  it('an auth error stops the loop with stop_reason auth_error after one iteration', async () => {
    server.setScript({
      rules: [
        {
          match: 'Say done',
          reply: {
            status: 401,
            errorBody: {
              error: {
                message: 'Incorrect API key provided.',
                type: 'invalid_request_error',
                code: 'invalid_api_key',
              },
            },
          },
        },
      ],
    });
    const dir = makeWorkspace({ 'PROMPT.md': 'Say done.\n' });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml('', 'max_iterations: 3'));
    const r = await runRalph(['run'], dir, opencodeEnv());
    expect(r.code, r.stdout + r.stderr).not.toBe(0);
    expect(readState(dir).stop_reason).toBe('auth_error');
    expect(readState(dir).stop_message).toContain('APIError (HTTP 401): Incorrect API key provided.');
  }, 120_000);
});
