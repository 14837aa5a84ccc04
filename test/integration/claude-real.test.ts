import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeBackend } from '../../src/backends/agents/claude.ts';
import type { AgentEvent } from '../../src/backends/types.ts';
import { configSchema } from '../../src/config/schema.ts';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { initGitRepo } from '../helpers/git-workspace.ts';
import { makeWorkspace, RALPH, ROOT, readRecords, readState, removeWhenDone } from '../helpers/workspace.ts';
import { anthropicMessages, anthropicView } from '../support/model-server/anthropic.ts';
import {
  LADDER_GATE,
  LADDER_PROMPT,
  ladderScript,
  rungsSeen,
} from '../support/model-server/ladder-script.ts';
import type { Script } from '../support/model-server/script.ts';
import { type ModelServer, startModelServer } from '../support/model-server/server.ts';

/**
 * The real Claude Code CLI (pinned devDependency) driven by the built `ralph`, against the scripted
 * model server on 127.0.0.1. Nothing may leave the machine: proxies point at a dead loopback port,
 * Claude Code's nonessential traffic is off, and HOME is a fresh temp dir.
 */
const CLAUDE = join(ROOT, 'node_modules', '.bin', 'claude');

let server: ModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Variables from the outer environment that would point Claude Code elsewhere or change its auth. */
const STRIPPED = [
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_MODEL',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDECODE',
  'CLAUDE_CONFIG_DIR',
  'RALPH_DIAGNOSTICS',
];

/** The isolated environment of a run: the outer env minus auth/routing, plus the model server. */
function isolatedEnv(url: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of STRIPPED) delete env[k];
  const home = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-claude-home-')));
  return {
    ...env,
    HOME: home,
    NO_COLOR: '1',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    ALL_PROXY: 'http://127.0.0.1:9',
    https_proxy: 'http://127.0.0.1:9',
    http_proxy: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-test',
    ...extra,
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  stdin?: string,
): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
    child.stdin.end(stdin ?? '');
  });
}

/** `ralph run` (the built CLI) in `dir` against the model server. */
async function ralph(dir: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const r = await run(process.execPath, [RALPH, 'run', ...args], dir, isolatedEnv(server!.url, extraEnv));
  // RALPH_TEST_DEBUG=1 prints what ralph printed and which endpoints the server saw.
  if (process.env.RALPH_TEST_DEBUG)
    console.log(r.stdout, r.stderr, JSON.stringify(server?.requests.map((q) => q.path)));
  return r;
}

function ralphYml(eventLoop: Record<string, unknown> = {}, extra = ''): string {
  const loop = Object.entries({ prompt_file: 'PROMPT.md', max_iterations: 5, ...eventLoop })
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)
    .join('\n');
  return `event_loop:\n${loop}\ncli:\n  backend: claude\n  command: ${JSON.stringify(CLAUDE)}\n${extra}`;
}

/** Model calls the server answered (Claude Code calls `POST /v1/messages?beta=true`). */
const messageCalls = () => server!.requests.filter((r) => r.path === '/v1/messages');

function agentOutput(dir: string): AgentEvent[] {
  const root = join(dir, '.ralph', 'diagnostics');
  const out: AgentEvent[] = [];
  for (const d of readdirSync(root)) {
    const file = join(root, d, 'agent-output.jsonl');
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) if (line.trim()) out.push(JSON.parse(line));
  }
  return out;
}

const USAGE = { input: 2000, output: 100 };

describe('real claude driven by ralph', () => {
  // Once as is, once inside `sandbox: on` (issue 34): Claude Code starts, reaches the server on
  // loopback and keeps its session in its own config dir, the one part of the home it sees.
  it.each([
    ['', false],
    [' (sandbox: on)', true],
  ])(
    'solo loop: two iterations of real tool use (Bash, Write), then the promise completes it%s',
    async (_, sandbox) => {
      server = await startModelServer([anthropicMessages], {
        rules: [
          // Iteration 1: a Bash tool call, then an answer without the promise.
          {
            match: 'SOLO-TASK',
            turn: 1,
            times: 1,
            reply: {
              tools: [{ kind: 'shell', command: 'echo one > step1.txt && echo wrote step1' }],
              usage: USAGE,
            },
          },
          {
            match: 'SOLO-TASK',
            turn: 2,
            times: 1,
            reply: { text: 'Step 1 written; step 2 next.', usage: USAGE },
          },
          // Iteration 2: the Write tool (a new file, absolute path), then the promise as the last line.
          {
            match: 'SOLO-TASK',
            turn: 1,
            reply: { tools: [{ kind: 'write_file', path: 'step2.txt', content: 'two\n' }], usage: USAGE },
          },
          {
            match: 'SOLO-TASK',
            turn: 2,
            reply: { text: 'Both steps written.\nLOOP_COMPLETE', usage: USAGE },
          },
        ],
      });
      const dir = makeWorkspace({
        'PROMPT.md': 'Write step1.txt, then step2.txt. SOLO-TASK\n',
        'ralph.yml': ralphYml({}, sandbox ? 'sandbox: on\n' : ''),
      });
      const home = makeWorkspace();
      const r = await ralph(dir, [], { HOME: home });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(readFileSync(join(dir, 'step1.txt'), 'utf8')).toBe('one\n');
      expect(readFileSync(join(dir, 'step2.txt'), 'utf8')).toBe('two\n');
      expect(messageCalls()).toHaveLength(4);

      const state = readState(dir);
      expect(state.stop_reason).toBe('completed');
      expect(state.iterations).toBe(2);
      const records = readRecords(dir);
      expect(records.map((x) => x.backend)).toEqual(['claude', 'claude']);
      for (const rec of records) {
        expect(rec.tokens.input).toBe(2 * USAGE.input);
        expect(rec.tokens.output).toBe(2 * USAGE.output);
        expect(rec.tokens.total).toBeGreaterThan(0);
        expect(typeof rec.cost_usd).toBe('number');
        expect(rec.cost_usd).toBeGreaterThan(0);
        expect(rec.model).toMatch(/^claude-/);
      }
      expect(state.tokens.total).toBe(records[0]!.tokens.total + records[1]!.tokens.total);
      expect(state.cost_usd).toBeCloseTo(records[0]!.cost_usd + records[1]!.cost_usd, 10);
      // The summary shows tokens and cost.
      expect(r.stdout).toMatch(/\$\d/);
      expect(records.map((x) => x.sandbox?.mode)).toEqual(sandbox ? ['on', 'on'] : [undefined, undefined]);
      // Its session transcripts are in ~/.claude, kept on disk (not in the sandbox's throwaway home).
      expect(
        readdirSync(join(home, '.claude', 'projects'), { recursive: true }).some((f) =>
          String(f).endsWith('.jsonl'),
        ),
      ).toBe(true);
    },
    60_000,
  );

  it('hats: planner → builder → planner, handing off with `ralph emit` from the Bash tool, completes', async () => {
    server = await startModelServer([anthropicMessages], {
      rules: [
        {
          match: 'PLANNER-HAT.*- build\\.done',
          reply: {
            tools: [{ kind: 'shell', command: 'ralph emit LOOP_COMPLETE' }],
            text: 'Verified. Done.',
            usage: USAGE,
          },
        },
        {
          match: 'PLANNER-HAT',
          reply: {
            tools: [{ kind: 'shell', command: 'ralph emit build.task "write out.txt"' }],
            text: 'Planned the build.',
            usage: USAGE,
          },
        },
        {
          match: 'BUILDER-HAT.*- build\\.task: write out\\.txt',
          reply: {
            tools: [{ kind: 'shell', command: 'echo built > out.txt && ralph emit build.done out.txt' }],
            text: 'Built out.txt.',
            usage: USAGE,
          },
        },
      ],
      fallback: 'I do not know what to do.',
    });
    const hats = [
      'hats:',
      '  planner:',
      '    name: Planner',
      '    triggers: [task.start, task.resume, build.done]',
      '    publishes: [build.task, LOOP_COMPLETE]',
      '    instructions: PLANNER-HAT. Plan the next task and publish it.',
      '  builder:',
      '    name: Builder',
      '    triggers: [build.task]',
      '    publishes: [build.done]',
      '    instructions: BUILDER-HAT. Build the task, then publish build.done.',
      '',
    ].join('\n');
    const dir = makeWorkspace({
      'PROMPT.md': 'Produce out.txt.\n',
      'ralph.yml': ralphYml({ max_iterations: 6 }, hats),
    });
    const r = await ralph(dir, []);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const state = readState(dir);
    expect(state.stop_reason).toBe('completed');
    expect(state.iterations).toBe(3);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('built\n');
    const records = readRecords(dir);
    expect(records.map((x) => [x.hat, x.events])).toEqual([
      ['planner', ['build.task']],
      ['builder', ['build.done']],
      ['planner', ['LOOP_COMPLETE']],
    ]);
    for (const rec of records) expect(rec.cost_usd).toBeGreaterThan(0);
  }, 60_000);

  it("a hat's disallowed_tools never reach the model: Bash is not in Claude Code's tool list", async () => {
    server = await startModelServer([anthropicMessages], {
      rules: [{ match: 'NO-BASH', reply: { text: 'Nothing to run.\nLOOP_COMPLETE', usage: USAGE } }],
    });
    const dir = makeWorkspace({
      'PROMPT.md': 'Look around. NO-BASH\n',
      'ralph.yml': ralphYml(
        {},
        'hats:\n  looker:\n    triggers: [task.start]\n    instructions: Look only.\n    disallowed_tools: [Bash]\n',
      ),
    });
    const r = await ralph(dir, []);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const tools = messageCalls().map((c) =>
      ((c.body as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name),
    );
    expect(tools.length).toBeGreaterThan(0);
    for (const names of tools) {
      expect(names).toContain('Write');
      expect(names).not.toContain('Bash');
    }
  }, 120_000);

  it('a model ladder: the server sees the model change after each failed tests gate (cli.models)', async () => {
    server = await startModelServer([anthropicMessages], ladderScript(2));
    const models = ['claude-haiku-4-5', 'claude-sonnet-4-5', 'claude-opus-5-5'];
    const dir = makeWorkspace({
      'PROMPT.md': LADDER_PROMPT,
      'ralph.yml': ralphYml({}, `  models: [${models.join(', ')}]\n${LADDER_GATE}`),
    });
    const r = await ralph(dir, []);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The model of every call, in order, without repeats: one rung per iteration.
    expect(rungsSeen(messageCalls().map((c) => (c.body as { model?: string }).model))).toEqual(models);
    expect(readRecords(dir).map((x) => x.decision.route.model.name)).toEqual(models);
    expect(readRecords(dir)[1]?.decision.route.model.reason).toBe(
      'up from claude-haiku-4-5 after a failed gate',
    );
  }, 90_000);

  it('a cost cap below the first iteration’s cost stops the run (exit 2, max_cost)', async () => {
    server = await startModelServer([anthropicMessages], {
      rules: [
        {
          match: 'COST-TASK',
          reply: {
            tools: [{ kind: 'shell', command: 'echo part > part.txt' }],
            text: 'Part done.',
            usage: USAGE,
          },
        },
      ],
    });
    const dir = makeWorkspace({ 'PROMPT.md': 'COST-TASK\n', 'ralph.yml': ralphYml() });
    const r = await ralph(dir, ['--max-cost', '0.001']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const state = readState(dir);
    expect(state.stop_reason).toBe('max_cost');
    expect(state.cost_usd).toBeGreaterThan(0.001);
    // Claude Code reports cost only in its final `result` line, so Ralph estimates it from the streamed
    // usage and the model's list price: the cap kills the agent after its first model call (on a
    // loaded machine the CLI may already have sent its second request when the kill lands).
    expect(messageCalls().length).toBeLessThanOrEqual(2);
    expect(readRecords(dir)[0]).toMatchObject({ killed_by: 'max_cost', cost_estimated: true });
  }, 60_000);

  it('a token cap kills the agent mid-iteration, while its tool is still running (exit 2, max_tokens)', async () => {
    server = await startModelServer([anthropicMessages], {
      rules: [
        {
          match: 'TOKEN-TASK',
          reply: {
            tools: [{ kind: 'shell', command: 'sleep 20; echo late > late.txt' }],
            text: 'Done.',
            usage: USAGE,
          },
        },
      ],
    });
    const dir = makeWorkspace({ 'PROMPT.md': 'TOKEN-TASK\n', 'ralph.yml': ralphYml({ max_tokens: 500 }) });
    const r = await ralph(dir, []);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(readState(dir).stop_reason).toBe('max_tokens');
    // Streamed usage of the first model call crossed the cap: the agent never got to its second call.
    expect(messageCalls()).toHaveLength(1);
    expect(existsSync(join(dir, 'late.txt'))).toBe(false);
  }, 60_000);

  it('a 429 then success is retried by the CLI within the iteration, which succeeds', async () => {
    server = await startModelServer([anthropicMessages], {
      rules: [
        { match: 'RETRY-TASK', times: 1, reply: { status: 429, headers: { 'retry-after': '1' } } },
        { match: 'RETRY-TASK', reply: { text: 'Finished after the retry.\nLOOP_COMPLETE', usage: USAGE } },
      ],
    });
    const dir = makeWorkspace({ 'PROMPT.md': 'RETRY-TASK\n', 'ralph.yml': ralphYml() });
    const r = await ralph(dir, [], { RALPH_DIAGNOSTICS: '1' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const state = readState(dir);
    expect(state.stop_reason).toBe('completed');
    expect(state.iterations).toBe(1);
    expect(state.consecutive_failures).toBe(0);
    expect(messageCalls()).toHaveLength(2);
    // The CLI's own retry report reached Ralph as a structured rate-limit event.
    expect(agentOutput(dir)).toContainEqual(
      expect.objectContaining({
        type: 'rate_limit',
        retrying: true,
        message: expect.stringContaining('429'),
      }),
    );
  }, 60_000);

  it('a prompt over 200 KB reaches the model intact (stdin, not argv)', async () => {
    const marker = 'LONG-PROMPT-END-MARKER';
    const body = `${'Ralph long prompt line with some words in it. '.repeat(5000)}\n${marker}\n`;
    expect(body.length).toBeGreaterThan(200_000);
    server = await startModelServer([anthropicMessages], {
      rules: [{ match: marker, reply: { text: 'Read it all.\nLOOP_COMPLETE', usage: USAGE } }],
    });
    const dir = makeWorkspace({ 'PROMPT.md': body, 'ralph.yml': ralphYml() });
    const r = await ralph(dir, []);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const seen = anthropicView(messageCalls()[0]!.body as Record<string, unknown>).prompt;
    expect(seen).toContain(body);
    expect(seen.indexOf(marker)).toBe(seen.indexOf(body) + body.length - marker.length - 1);
  }, 60_000);

  it('a second-opinion review round by the real claude (gates.review) holds completion until it approves', async () => {
    server = await startModelServer([anthropicMessages], {
      rules: [
        {
          match: 'second-opinion code reviewer',
          times: 1,
          reply: { text: '- greet.sh prints nothing for an empty name\nREQUEST_CHANGES', usage: USAGE },
        },
        {
          match: 'second-opinion code reviewer',
          reply: { text: 'All findings fixed.\nAPPROVE', usage: USAGE },
        },
      ],
    });
    const dir = makeWorkspace({
      'PROMPT.md': 'write greet.sh\n',
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - append: { path: greet.sh, content: "echo hello {{iteration}}\\n" }',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
      'ralph.yml': `event_loop:\n  prompt_file: PROMPT.md\n  max_iterations: 4\ncli:\n  backend: fake\n  fake_script: fake-agent.yml\ngates:\n  review:\n    backend: claude\n`,
    });
    // The reviewer runs `claude` from PATH: cli.command is the fake loop's, not the reviewer's.
    const r = await ralph(dir, [], { PATH: `${dirname(CLAUDE)}:${process.env.PATH}` });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [first, second] = readRecords(dir);
    expect(first?.review).toMatchObject({
      approved: false,
      findings: ['greet.sh prints nothing for an empty name'],
    });
    expect(second?.review).toMatchObject({ approved: true });
    const state = readState(dir);
    expect(state).toMatchObject({ stop_reason: 'completed', iterations: 2 });
    // The reviews' usage counts toward the run and is kept apart.
    expect(state.review.tokens).toBeGreaterThan(0);
    expect(state.tokens.total).toBe(state.review.tokens);
    // The second review was told about the first round's findings.
    const prompts = messageCalls().map((c) => anthropicView(c.body as Record<string, unknown>).prompt);
    expect(prompts.at(-1)).toContain('greet.sh prints nothing for an empty name');
    expect(prompts.at(-1)).toContain('## The task\nwrite greet.sh');
  }, 90_000);

  it('rules.deny reaches Claude Code as Edit rules: its Write tool refuses a denied path and writes the others', async () => {
    const wrote = { kind: 'write_file' as const, content: 'x\n' };
    server = await startModelServer([anthropicMessages], {
      rules: [
        {
          match: 'RULES-TASK',
          reply: {
            tools: [
              { ...wrote, path: 'secrets/key.txt' },
              { ...wrote, path: '.env.local' },
              { ...wrote, path: 'src/ok.txt' },
              // `.env*` is the workspace root's only, in Ralph and in the Edit rule.
              { ...wrote, path: 'config/.env.example' },
            ],
            text: 'Wrote what I could.\nLOOP_COMPLETE',
            usage: USAGE,
          },
        },
      ],
    });
    const dir = initGitRepo(
      makeWorkspace({
        'PROMPT.md': 'Write the files. RULES-TASK\n',
        'src/README.md': 'src\n',
        'config/README.md': 'config\n',
        '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
        'ralph.yml': ralphYml(
          {},
          [
            'rules:',
            '  deny: ["secrets/", ".env*"]',
            'hats:',
            '  writer:',
            '    triggers: [task.start]',
            '    instructions: Write files.',
            '    disallowed_tools: [Bash]',
            '',
          ].join('\n'),
        ),
      }),
    );
    const r = await ralph(dir, []);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The CLI refused the denied paths itself: nothing for Ralph's own check to roll back. (Anchored:
    // a slash-free `Edit(./.env*)` would refuse config/.env.example too, as gitignore reads it.)
    expect(existsSync(join(dir, 'secrets', 'key.txt')), r.stdout + r.stderr).toBe(false);
    expect(existsSync(join(dir, '.env.local'))).toBe(false);
    // A path outside the deny globs is written.
    expect(readFileSync(join(dir, 'src', 'ok.txt'), 'utf8')).toBe('x\n');
    expect(readFileSync(join(dir, 'config', '.env.example'), 'utf8')).toBe('x\n');
    // The tool results the CLI sent back: the two denied writes are errors naming the permission.
    type Block = { type: string; is_error?: boolean; content: unknown };
    const resultsOf = (body: unknown): Block[] =>
      (body as { messages: { content: unknown }[] }).messages
        .flatMap((m) => (Array.isArray(m.content) ? (m.content as Block[]) : []))
        .filter((b) => b.type === 'tool_result');
    const results = messageCalls()
      .map((c) => resultsOf(c.body))
      .filter((x) => x.length > 0)
      .at(-1);
    expect(results).toHaveLength(4);
    const denied = (results ?? []).filter((b) => b.is_error === true);
    expect(denied, JSON.stringify(results)).toHaveLength(2);
    for (const b of denied) expect(JSON.stringify(b.content)).toMatch(/denied|permission/i);
    // The hat's disallowed_tools still hold in the same --disallowedTools value: no Bash tool.
    for (const c of messageCalls())
      expect(((c.body as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name)).not.toContain(
        'Bash',
      );
  }, 120_000);
});

describe('real claude through the adapter alone', () => {
  const config = configSchema.parse({ cli: { backend: 'claude', command: CLAUDE } });

  /** One agent run the way Ralph does it: the adapter's invocation, parser and classification. */
  async function runAdapter(prompt: string, extraEnv: Record<string, string>) {
    const dir = makeWorkspace();
    const inv = claudeBackend.buildInvocation({ prompt, config, workspace: dir, extraArgs: [] });
    const r = await run(
      inv.command,
      inv.args,
      dir,
      { ...isolatedEnv(server!.url, extraEnv), ...inv.env },
      inv.stdin ?? '',
    );
    const parser = claudeBackend.createParser();
    const events = r.stdout.split('\n').flatMap((l) => (l ? parser.parseLine(l) : []));
    const cls = claudeBackend.classifyExit!({
      exitCode: r.code,
      signal: null,
      killedBy: null,
      stdoutTail: r.stdout.slice(-4000),
      stderrTail: r.stderr.slice(-4000),
      events,
    });
    return { r, events, cls };
  }

  it('a subscription usage limit (429 with unified rate-limit headers) classifies as a limit with its reset time', async () => {
    const reset = Math.floor(Date.now() / 1000) + 3 * 3600;
    server = await startModelServer([anthropicMessages], {
      rules: [
        {
          reply: {
            status: 429,
            headers: {
              'anthropic-ratelimit-unified-status': 'rejected',
              'anthropic-ratelimit-unified-reset': String(reset),
              'anthropic-ratelimit-unified-representative-claim': 'five_hour',
            },
          },
        },
      ],
    } satisfies Script);
    // Claude Code reads these headers only with subscription (OAuth) auth, not with an API key.
    const { r, cls } = await runAdapter('hi', {
      ANTHROPIC_API_KEY: '',
      CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-test',
    });
    expect(r.code).toBe(1);
    expect(cls).toEqual({
      kind: 'rate_limit',
      message: expect.stringMatching(/^You've hit your 5-hour limit · resets /),
      resetAt: reset * 1000,
    });
    // It gave up at once (no retries of a rejected usage limit).
    expect(messageCalls()).toHaveLength(1);
  }, 60_000);

  it('an invalid key classifies as an auth error', async () => {
    server = await startModelServer([anthropicMessages], { rules: [{ reply: { status: 401 } }] });
    const { r, cls } = await runAdapter('hi', { CLAUDE_CODE_MAX_RETRIES: '0' });
    expect(r.code).toBe(1);
    expect(cls).toMatchObject({ kind: 'auth_error' });
  }, 60_000);
});
