import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, ROOT, readRecords, readState, runRalph } from '../helpers/workspace.ts';
import { openAiChat } from '../support/model-server/openai-chat.ts';
import type { Script } from '../support/model-server/script.ts';
import { type ModelServer, startModelServer } from '../support/model-server/server.ts';

/**
 * The real pi CLI (the pinned @mariozechner/pi-coding-agent devDependency) driven by the built
 * `ralph` against the scripted model server on 127.0.0.1, through a provider of pi's own
 * `models.json` (`api: openai-completions`) in a private home. Nothing leaves the machine: pi's
 * start-up checks are off (`PI_OFFLINE=1`) and proxies point at a dead loopback port.
 */
const PI = join(ROOT, 'node_modules', '.bin', 'pi');
const KEY_VAR = 'RALPH_TEST_PI_KEY';
const MODEL = 'ralphtest/ralph-model';
/** USD per million tokens of the scripted model, so pi reports a cost. */
const PRICE = { input: 3, output: 15 };

let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer([openAiChat], { rules: [] });
});

afterAll(async () => {
  await server?.close();
});

/** Variables of the outer environment that would move pi's files or give it another key. */
const STRIPPED = [
  'PI_CODING_AGENT_DIR',
  'PI_CODING_AGENT_SESSION_DIR',
  'PI_PACKAGE_DIR',
  'RALPH_DIAGNOSTICS',
];

/** A private HOME whose ~/.pi/agent/models.json points pi at the model server; proxies dead. */
function piEnv(): NodeJS.ProcessEnv {
  const home = makeWorkspace();
  const agentDir = join(home, '.pi', 'agent');
  mkdirSync(agentDir, { recursive: true });
  const models = {
    providers: {
      ralphtest: {
        baseUrl: `${server.url}/v1`,
        api: 'openai-completions',
        apiKey: KEY_VAR, // pi reads a value that names a variable from that variable
        models: [
          {
            id: 'ralph-model',
            contextWindow: 200_000,
            maxTokens: 32_000,
            cost: { ...PRICE, cacheRead: 0.3, cacheWrite: 3.75 },
          },
        ],
      },
    },
  };
  writeFileSync(join(agentDir, 'models.json'), JSON.stringify(models));
  const env: NodeJS.ProcessEnv = {};
  for (const k of STRIPPED) env[k] = undefined;
  const proxy = 'http://127.0.0.1:9';
  return {
    ...env,
    HOME: home,
    [KEY_VAR]: 'test-key',
    PI_OFFLINE: '1',
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    ALL_PROXY: proxy,
    https_proxy: proxy,
    http_proxy: proxy,
    all_proxy: proxy,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}

/** The cost pi computes for `calls` model calls of `usage` at PRICE. */
const costOf = (calls: number, usage: { input: number; output: number }) =>
  (calls * (usage.input * PRICE.input + usage.output * PRICE.output)) / 1_000_000;

const STEPS: Script = {
  rules: [
    {
      // Iteration 2: the scratchpad (in the prompt) says step one is done.
      match: 'step-1-done',
      reply: {
        tools: [{ kind: 'shell', command: 'echo two >> progress.txt' }],
        text: 'Wrote step two; both steps are in progress.txt.\nLOOP_COMPLETE',
        usage: { input: 900, output: 30 },
      },
    },
    {
      match: 'Append the steps',
      reply: {
        tools: [
          {
            kind: 'shell',
            command: 'echo one > progress.txt && echo step-1-done >> .ralph/agent/scratchpad.md',
          },
        ],
        text: 'Wrote step one. Step two is next.',
        usage: { input: 800, output: 20 },
      },
    },
  ],
};

describe('real pi driven by ralph', () => {
  // Once as is, once inside `sandbox: on`: pi starts, reaches the server on loopback and keeps its
  // files in ~/.pi/agent, the part of the home it sees.
  it.each([
    ['', false],
    [' (sandbox: on)', true],
  ])(
    'a solo loop: pi runs bash over two iterations, then completes with the promise; tokens and cost counted%s',
    async (_, sandbox) => {
      server.setScript(STEPS);
      const from = server.requests.length;
      const dir = makeWorkspace({ 'PROMPT.md': 'Append the steps to progress.txt, one per iteration.\n' });
      const yml = [
        'event_loop:',
        '  max_iterations: 6',
        '  iteration_timeout_seconds: 120',
        'cli:',
        '  backend: pi',
        `  command: ${JSON.stringify(PI)}`,
        `  model: ${MODEL}`,
        sandbox ? 'sandbox: on' : '',
      ];
      writeFileSync(join(dir, 'ralph.yml'), yml.join('\n'));
      mkdirSync(join(dir, '.ralph', 'agent'), { recursive: true });
      const env = piEnv();
      const r = await runRalph(['run'], dir, env);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(readFileSync(join(dir, 'progress.txt'), 'utf8')).toBe('one\ntwo\n');
      expect(readState(dir).stop_reason).toBe('completed');
      const records = readRecords(dir);
      expect(records.map((x) => x.sandbox?.mode)).toEqual(sandbox ? ['on', 'on'] : [undefined, undefined]);
      expect(records.every((x) => x.backend === 'pi')).toBe(true);
      // Each iteration: two model calls (bash, answer).
      expect(records.map((x) => x.tokens.total)).toEqual([2 * 820, 2 * 930]);
      expect(records[0]!.tokens).toMatchObject({ input: 1600, output: 40 });
      // The cost pi reported, not an estimate.
      expect(records[0]!.cost_usd).toBeCloseTo(costOf(2, { input: 800, output: 20 }), 10);
      expect(records[1]!.cost_usd).toBeCloseTo(costOf(2, { input: 900, output: 30 }), 10);
      expect(records.some((x) => x.cost_estimated === true)).toBe(false);
      const calls = server.requests.slice(from);
      expect(calls.map((c) => c.path)).toEqual(Array(4).fill('/v1/chat/completions'));
      expect(calls.every((c) => (c.body as { model?: string }).model === 'ralph-model')).toBe(true);
      // --no-session: pi kept no session file; its own files stayed in its agent dir.
      const agentDir = join(env.HOME as string, '.pi', 'agent');
      expect(readdirSync(agentDir).sort()).toEqual(['auth.json', 'models.json']);
      expect(existsSync(join(agentDir, 'sessions'))).toBe(false);
    },
    180_000,
  );

  it('ralph doctor --probe: one real turn of pi counts its tokens; a 401 is an auth error for the probe and the loop, read from pi’s events (it exits 0)', async () => {
    const dir = makeWorkspace({ 'PROMPT.md': 'x\n' });
    const yml = ['cli:', '  backend: pi', `  command: ${JSON.stringify(PI)}`, `  model: ${MODEL}`, ''].join(
      '\n',
    );
    writeFileSync(join(dir, 'ralph.yml'), yml);
    const env = piEnv();
    server.setScript({ rules: [{ reply: { text: 'OK', usage: { input: 100, output: 2 } } }] });
    const ok = await runRalph(['doctor', '--probe'], dir, env);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    // 100 in / 2 out at $3 / $15 per million tokens: the cost pi computed.
    expect(ok.stdout).toMatch(/^✓ probe +pi answered: OK \(tokens 100 in \/ 2 out, \$0\.0003, /m);
    server.setScript({
      rules: [
        {
          reply: {
            status: 401,
            errorBody: { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } },
          },
        },
      ],
    });
    const denied = await runRalph(['doctor', '--probe'], dir, env);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toMatch(
      /^✗ probe +pi: auth error: 401 Incorrect API key provided — run `pi` and `\/login`, or set a provider key/m,
    );
    // The loop reads it the same way: the run stops on the auth error, exit 1.
    const run = await runRalph(['run', '--max-iterations', '3'], dir, env);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(readState(dir).stop_reason).toBe('auth_error');
    expect(readRecords(dir)).toHaveLength(1);
  }, 120_000);

  it('ralph-orchestrator’s ralph.m.yml cli block (backend "pi", prompt_mode "arg", --provider/--model/--thinking in args) runs: the prompt still goes on stdin', async () => {
    server.setScript({
      rules: [
        {
          match: 'Improve one thing',
          reply: { text: 'Improved.\nLOOP_COMPLETE', usage: { input: 200, output: 4 } },
        },
      ],
    });
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': 'Improve one thing.\n' });
    const yml = [
      'event_loop:',
      '  prompt_file: "PROMPT.md"',
      '  max_iterations: 2',
      'cli:',
      '  backend: "pi"',
      `  command: ${JSON.stringify(PI)}`,
      '  prompt_mode: "arg"',
      '  args: ["--provider", "ralphtest", "--model", "ralph-model", "--thinking", "high"]',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'ralph.yml'), yml);
    const env = piEnv();
    const v = await runRalph(['config', 'validate', '--strict'], dir, env);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const dry = await runRalph(['run', '--dry-run'], dir, env);
    expect(dry.stdout).toContain(
      '-p --mode json --no-session --provider ralphtest --model ralph-model --thinking high',
    );
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    const calls = server.requests.slice(from);
    expect(calls).toHaveLength(1);
    // The prompt reached the model whole (as pi's user message, from stdin).
    expect(JSON.stringify(calls[0]?.body)).toContain('Improve one thing.');
  }, 120_000);

  // Their ralph.pi.yml as shipped has a hat with no triggers, which Ralph refuses on its own
  // grounds (no event could activate it); with `triggers` it is this config.
  it('ralph-orchestrator’s ralph.pi.yml (cli.backend: pi, a hat backend {type: pi, args}) validates and runs', async () => {
    server.setScript({
      rules: [
        { match: 'Say done', reply: { text: 'All done.\nLOOP_COMPLETE', usage: { input: 300, output: 5 } } },
      ],
    });
    const dir = makeWorkspace({ 'PROMPT.md': 'Say done.\n' });
    const yml = [
      'cli:',
      '  backend: pi',
      `  command: ${JSON.stringify(PI)}`,
      'hats:',
      '  default:',
      '    name: "Planner @pi"',
      '    description: "General-purpose hat using pi"',
      '    triggers: [task.start]',
      '    backend:',
      '      type: pi',
      '      args: ["--provider", "ralphtest", "--model", "ralph-model", "--thinking", "off"]',
      'event_loop:',
      '  max_iterations: 3',
      '  completion_promise: LOOP_COMPLETE',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'ralph.yml'), yml);
    const env = piEnv();
    const v = await runRalph(['config', 'validate'], dir, env);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain('ralph.yml: valid (backend pi, 1 hats)');
    expect(v.stdout).toContain(
      'hats.default.backend: backend {type: pi, …} read as backend pi, args [--provider, ralphtest, --model, ralph-model, --thinking, off]',
    );
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    const records = readRecords(dir);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ backend: 'pi', hat: 'default' });
    expect(records[0]!.tokens.total).toBe(305);
  }, 120_000);
});
