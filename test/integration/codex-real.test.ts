import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGitWorkspace } from '../helpers/git-workspace.ts';
import { makeWorkspace, ROOT, readRecords, readState, runRalph } from '../helpers/workspace.ts';
import { builtBy, PLANNER_BUILDER_HATS, plannerBuilderScript } from '../support/hat-workflow.ts';
import {
  LADDER_GATE,
  LADDER_PROMPT,
  ladderScript,
  rungsSeen,
} from '../support/model-server/ladder-script.ts';
import { openAiResponses, responsesView } from '../support/model-server/openai-responses.ts';
import type { Script } from '../support/model-server/script.ts';
import { type ModelServer, startModelServer } from '../support/model-server/server.ts';

/**
 * The real codex CLI (the pinned @openai/codex devDependency) driven by Ralph against the scripted
 * model server on 127.0.0.1. Nothing leaves the machine: proxies point at a dead loopback port.
 */
const CODEX = join(ROOT, 'node_modules', '.bin', 'codex');
const KEY_VAR = 'RALPH_TEST_OPENAI_KEY';

let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer([openAiResponses], { rules: [] });
});

afterAll(async () => {
  await server?.close();
});

/** A private HOME and CODEX_HOME whose config.toml points codex at the scripted server. */
function codexEnv(): NodeJS.ProcessEnv {
  const home = makeWorkspace();
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-5.5"', // a model name codex knows
      'model_provider = "ralphtest"',
      '',
      '[model_providers.ralphtest]',
      'name = "ralph scripted model server"',
      `base_url = "${server.url}/v1"`,
      'wire_api = "responses"',
      `env_key = "${KEY_VAR}"`,
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[features]',
      'plugins = false',
      '',
    ].join('\n'),
  );
  const dead = 'http://127.0.0.1:9';
  return {
    HOME: home,
    CODEX_HOME: codexHome,
    [KEY_VAR]: 'test-key',
    HTTPS_PROXY: dead,
    HTTP_PROXY: dead,
    ALL_PROXY: dead,
    https_proxy: dead,
    http_proxy: dead,
    all_proxy: dead,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: '',
  };
}

function ralphYml(extra = '', eventLoop = 'max_iterations: 6'): string {
  return [
    'event_loop:',
    `  ${eventLoop}`,
    '  iteration_timeout_seconds: 120',
    'cli:',
    '  backend: codex',
    `  command: ${JSON.stringify(CODEX)}`,
    extra,
  ].join('\n');
}

/** Requests the server answered since `from`, as the script saw them. */
function viewsSince(from: number) {
  return server.requests.slice(from).map((r) => ({ path: r.path, ...responsesView(r.body as never) }));
}

describe('real codex driven by ralph', () => {
  // Once as is, once inside `sandbox: on` (issue 34): codex starts, reaches the server on loopback
  // and keeps its sessions in CODEX_HOME, the one part of the home it sees.
  it.each([
    ['', false],
    [' (sandbox: on)', true],
  ])(
    'a solo loop: codex runs shell commands over two iterations, then completes with the promise%s',
    async (_, sandbox) => {
      const script: Script = {
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
                  command: 'echo one >> progress.txt && echo step-1-done >> .ralph/agent/scratchpad.md',
                },
              ],
              text: 'Wrote step one. Step two is next.',
              usage: { input: 800, output: 20 },
            },
          },
        ],
      };
      server.setScript(script);
      const from = server.requests.length;
      const dir = makeWorkspace({ 'PROMPT.md': 'Append the steps to progress.txt, one per iteration.\n' });
      writeFileSync(join(dir, 'ralph.yml'), ralphYml(sandbox ? 'sandbox: on' : ''));
      mkdirSync(join(dir, '.ralph', 'agent'), { recursive: true });
      const env = codexEnv();
      const r = await runRalph(['run'], dir, env);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(readFileSync(join(dir, 'progress.txt'), 'utf8')).toBe('one\ntwo\n');
      // Its session rollouts are in CODEX_HOME, kept on disk (not in the sandbox's throwaway home).
      const sessions = join(env.CODEX_HOME as string, 'sessions');
      expect(readdirSync(sessions, { recursive: true }).some((f) => String(f).endsWith('.jsonl'))).toBe(true);
      expect(readRecords(dir).map((x) => x.sandbox?.mode)).toEqual(
        sandbox ? ['on', 'on'] : [undefined, undefined],
      );
      expect(readState(dir).stop_reason).toBe('completed');
      const records = readRecords(dir);
      expect(records).toHaveLength(2);
      // Two model calls per iteration (tool call, then the answer), each reporting its usage.
      expect(records.map((x) => x.tokens.total)).toEqual([2 * 820, 2 * 930]);
      expect(records.every((x) => x.backend === 'codex')).toBe(true);
      const views = viewsSince(from);
      expect(views.map((v) => v.path)).toEqual(Array(4).fill('/v1/responses'));
      expect(views.map((v) => v.toolRounds)).toEqual([0, 1, 0, 1]);
    },
    120_000,
  );

  it('a model ladder: the server sees the model change after two failed tests gates (cli.models → -m)', async () => {
    server.setScript(ladderScript(2));
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': LADDER_PROMPT });
    const models = ['gpt-5-nano', 'gpt-5-mini', 'gpt-5'];
    writeFileSync(join(dir, 'ralph.yml'), ralphYml(`  models: [${models.join(', ')}]\n${LADDER_GATE}`));
    const r = await runRalph(['run'], dir, codexEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(rungsSeen(server.requests.slice(from).map((q) => (q.body as { model?: string }).model))).toEqual(
      models,
    );
    expect(readRecords(dir).map((x) => x.decision.route.model.name)).toEqual(models);
  }, 120_000);

  it('a two-hat workflow: the agent publishes with `ralph emit` through codex’s shell tool', async () => {
    server.setScript(
      plannerBuilderScript('codex', [
        // The variable works too, should a login profile ever reset PATH.
        { kind: 'shell', command: '"$RALPH_BIN" emit build.done BUILD.md' },
      ]),
    );
    const dir = makeWorkspace({ 'PROMPT.md': 'Build the project.\n' });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml(PLANNER_BUILDER_HATS));
    const r = await runRalph(['run'], dir, codexEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    expect(readRecords(dir).map((x) => x.hat)).toEqual(['planner', 'builder', 'planner']);
    expect(readFileSync(join(dir, 'BUILD.md'), 'utf8')).toBe(builtBy('codex'));
    const events = JSON.parse((await runRalph(['events', '--format', 'json'], dir)).stdout) as {
      topic: string;
      payload: unknown;
    }[];
    expect(events.map((e) => e.topic)).toEqual(['task.start', 'build.task', 'build.done', 'LOOP_COMPLETE']);
    expect(events[1]?.payload).toBe('write BUILD.md');
    expect(events[2]?.payload).toBe('BUILD.md');
    expect(readRecords(dir).every((x) => x.tokens.total > 0)).toBe(true);
  }, 180_000);

  it('a 429 that codex retries succeeds within the same iteration', async () => {
    server.setScript({
      rules: [
        { match: 'Say done', times: 1, reply: { status: 429, headers: { 'retry-after': '0' } } },
        { match: 'Say done', reply: { text: 'Done.\nLOOP_COMPLETE' } },
      ],
    });
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': 'Say done.\n' });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml('', 'max_iterations: 3'));
    const r = await runRalph(['run'], dir, codexEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(viewsSince(from)).toHaveLength(2);
    expect(readRecords(dir).map((x) => x.verdict)).toEqual(['complete']);
  }, 120_000);

  it('sandbox: native — codex runs its commands in its own sandbox: the workspace is writable, .git/hooks is not, and the iteration completes', async () => {
    server.setScript({
      rules: [
        {
          match: 'Sandboxed step',
          reply: {
            tools: [
              {
                kind: 'shell',
                command:
                  'echo ok > inside.txt && { echo "exit 0" > .git/hooks/pre-commit || echo refused > hook-refused.txt; }',
              },
            ],
            text: 'Done inside the sandbox.\nLOOP_COMPLETE',
          },
        },
      ],
    });
    const dir = makeGitWorkspace({ 'PROMPT.md': 'Sandboxed step.\n' });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml('sandbox: native', 'max_iterations: 2'));
    const env = codexEnv();
    // codex will not set up its sandbox helper in a CODEX_HOME under the temp dir (a test's home is there).
    const tmp = join(env.HOME as string, 'tmp');
    mkdirSync(tmp);
    const r = await runRalph(['run'], dir, { ...env, TMPDIR: tmp });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'inside.txt'), 'utf8')).toBe('ok\n');
    expect(readFileSync(join(dir, 'hook-refused.txt'), 'utf8')).toBe('refused\n');
    expect(existsSync(join(dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readRecords(dir).map((x) => x.verdict)).toEqual(['complete']);
  }, 120_000);

  it('a prompt longer than the argument limit reaches the model intact', async () => {
    const line = 'the quick brown fox jumps over the lazy dog 0123456789\n';
    const body = `# Big prompt\n${line.repeat(Math.ceil(250_000 / line.length))}END-OF-BIG-PROMPT\n`;
    expect(body.length).toBeGreaterThan(200_000);
    server.setScript({
      rules: [{ match: 'END-OF-BIG-PROMPT', reply: { text: 'Read it all.\nLOOP_COMPLETE' } }],
    });
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': body });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml('', 'max_iterations: 2'));
    const r = await runRalph(['run'], dir, codexEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const views = viewsSince(from);
    expect(views).toHaveLength(1);
    const received = views[0]!.prompt;
    expect(received.startsWith(body.trimEnd())).toBe(true);
    expect(received).toContain('## DONE');
  }, 120_000);
});
