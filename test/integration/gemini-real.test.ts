import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveGroupMembers } from '../../src/process/pids.ts';
import { makeWorkspace, ROOT, readRecords, readState, runRalph } from '../helpers/workspace.ts';
import { builtBy, PLANNER_BUILDER_HATS, plannerBuilderScript } from '../support/hat-workflow.ts';
import { geminiApi, geminiView } from '../support/model-server/gemini.ts';
import {
  LADDER_GATE,
  LADDER_PROMPT,
  ladderScript,
  rungsSeen,
} from '../support/model-server/ladder-script.ts';
import type { Script } from '../support/model-server/script.ts';
import { type ModelServer, startModelServer } from '../support/model-server/server.ts';

/**
 * The real Gemini CLI (the pinned @google/gemini-cli devDependency) driven by the built `ralph`
 * against the scripted model server on 127.0.0.1. Nothing leaves the machine: proxies point at a
 * dead loopback port, and settings.json turns off usage statistics, telemetry and update checks
 * (measured with strace: then gemini connects to nothing but the model server).
 */
const GEMINI = join(ROOT, 'node_modules', '.bin', 'gemini');

let server: ModelServer;
/** Model servers of the runs that wait out a limit, one each: they run alongside the other tests. */
const ownServers: ModelServer[] = [];

async function ownServer(script: Script): Promise<ModelServer> {
  const own = await startModelServer([geminiApi], script);
  ownServers.push(own);
  return own;
}

/**
 * The two runs that wait out a 15 s limit (the quota's runtime limit, the iteration timeout) start
 * with the file and wait while the tests before theirs run; their tests read their results.
 */
let quota: ReturnType<typeof quotaRun>;
let timedOut: ReturnType<typeof timedOutRun>;

beforeAll(async () => {
  server = await startModelServer([geminiApi], { rules: [] });
  timedOut = timedOutRun();
  quota = quotaRun();
  // Awaited by their tests; a rejection before then is theirs to report, not an unhandled one.
  for (const run of [timedOut, quota]) run.catch(() => {});
});

afterAll(async () => {
  await Promise.allSettled([timedOut, quota]);
  await Promise.all([server, ...ownServers].map((s) => s?.close()));
});

/** Variables of the outer environment that would change gemini's auth, model, config or prompt. */
const STRIPPED = [
  'GOOGLE_API_KEY',
  'GOOGLE_GENAI_USE_VERTEXAI',
  'GOOGLE_GENAI_USE_GCA',
  'GOOGLE_CLOUD_PROJECT',
  'GOOGLE_CLOUD_LOCATION',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GEMINI_CLI_HOME',
  'GEMINI_MODEL',
  'GEMINI_SYSTEM_MD',
  'GEMINI_CLI_SYSTEM_SETTINGS_PATH',
  'GEMINI_CLI_SYSTEM_DEFAULTS_PATH',
  'GITHUB_SHA',
  'SURFACE',
  'CI',
  'GITHUB_ACTIONS',
  'RALPH_DIAGNOSTICS',
];

/**
 * A private HOME whose ~/.gemini/settings.json selects API-key auth (without it gemini exits 41)
 * and turns off everything that would phone home; GOOGLE_GEMINI_BASE_URL points the Gemini API at
 * the scripted server. TMPDIR is private too: gemini writes error reports there.
 */
function geminiEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of STRIPPED) delete env[k];
  const home = makeWorkspace();
  mkdirSync(join(home, '.gemini'));
  mkdirSync(join(home, 'tmp'));
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      telemetry: { enabled: false },
    }),
  );
  const dead = 'http://127.0.0.1:9';
  return {
    ...env,
    HOME: home,
    TMPDIR: join(home, 'tmp'),
    GEMINI_API_KEY: 'test-key',
    GOOGLE_GEMINI_BASE_URL: server.url,
    HTTPS_PROXY: dead,
    HTTP_PROXY: dead,
    ALL_PROXY: dead,
    https_proxy: dead,
    http_proxy: dead,
    all_proxy: dead,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    ...extra,
  };
}

function ralphYml(extra = '', eventLoop = 'max_iterations: 6', cli = ''): string {
  return [
    'event_loop:',
    `  ${eventLoop}`,
    '  iteration_timeout_seconds: 120',
    'cli:',
    '  backend: gemini',
    `  command: ${JSON.stringify(GEMINI)}`,
    cli,
    extra,
  ].join('\n');
}

/** The agent's model calls since `from` (`:streamGenerateContent`), as the script saw them. */
function turnsSince(from: number) {
  return server.requests
    .slice(from)
    .filter((r) => r.path.endsWith(':streamGenerateContent'))
    .map((r) => ({ path: r.path, body: r.body as Record<string, any>, ...geminiView(r.body as never) }));
}

// Live (non-zombie) members only: a killed process reparented to a PID 1 that does not reap
// stays a zombie, which kill(-pgid, 0) would still report.
const groupAlive = (pgid: number): boolean => liveGroupMembers(pgid).length > 0;

/** A quota with a retry delay of an hour, until a 15 s runtime limit ends the run (against its own server). */
async function quotaRun() {
  // The workspace and the home are made before the first await: inside beforeAll, so the file's
  // cleanup owns them, not the test that happens to run once the server is up (which removed
  // them mid-run: ENOENT under .ralph/runs/).
  const dir = makeWorkspace({ 'PROMPT.md': 'Use the quota.\n' });
  const env = geminiEnv();
  const own = await ownServer({
    rules: [
      {
        match: 'Use the quota',
        reply: {
          status: 429,
          errorBody: {
            error: {
              code: 429,
              message: 'You exceeded your current quota. Please retry in 3600s.',
              status: 'RESOURCE_EXHAUSTED',
              details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3600s' }],
            },
          },
        },
      },
    ],
  });
  writeFileSync(
    join(dir, 'ralph.yml'),
    ralphYml('', 'max_iterations: 3\n  max_runtime_seconds: 15', '  model: gemini-2.5-pro'),
  );
  const started = Date.now();
  const r = await runRalph(['run'], dir, { ...env, GOOGLE_GEMINI_BASE_URL: own.url });
  const turns = own.requests.filter((q) => q.path.endsWith(':streamGenerateContent')).length;
  return { r, state: readState(dir), started, turns };
}

/**
 * A solo run whose shell tool sleeps past the iteration timeout; the tool's shell writes its pid.
 * The timeout leaves gemini ample time to start the tool even on a loaded machine (a 4 s one once
 * fired before the tool ran, and tool.pid was missing).
 */
async function timedOutRun() {
  // Made before the first await (see quotaRun).
  const dir = makeWorkspace({ 'PROMPT.md': 'Sleep now.\n' });
  const env = geminiEnv();
  const own = await ownServer({
    rules: [
      {
        match: 'Sleep now',
        reply: {
          // `$$` (allowed; `$(…)` is not): the pid of gemini's wrapper shell, which leads its own group.
          tools: [{ kind: 'shell', command: 'echo $$ > tool.pid; sleep 90; echo late > late.txt' }],
          text: 'Slept.',
        },
      },
    ],
  });
  writeFileSync(
    join(dir, 'ralph.yml'),
    [
      'event_loop:',
      '  max_iterations: 1',
      '  iteration_timeout_seconds: 15',
      '  kill_grace_seconds: 1',
      'cli:',
      '  backend: gemini',
      `  command: ${JSON.stringify(GEMINI)}`,
      '  model: gemini-2.5-pro',
    ].join('\n'),
  );
  const started = Date.now();
  const r = await runRalph(['run'], dir, { ...env, GOOGLE_GEMINI_BASE_URL: own.url });
  const ms = Date.now() - started;
  const pidFile = join(dir, 'tool.pid');
  if (!existsSync(pidFile)) return { r, ms, toolStarted: false, toolAlive: false };
  // Whether the tool's group outlived the run, read as the run ends; then it goes either way.
  const toolGroup = Number(readFileSync(pidFile, 'utf8'));
  const toolAlive = groupAlive(toolGroup);
  if (toolAlive) process.kill(-toolGroup, 'SIGKILL');
  return { r, ms, toolStarted: true, toolAlive };
}

describe('real gemini driven by ralph', () => {
  // Once as is, once inside `sandbox: on` (issue 34): gemini starts, reaches the server on loopback
  // and keeps its chats in ~/.gemini, the one part of the home it sees.
  it.each([
    ['', false],
    [' (sandbox: on)', true],
  ])(
    'a solo loop: gemini runs a shell command, then writes a file, then completes with the promise%s',
    async (_, sandbox) => {
      const script: Script = {
        rules: [
          {
            // Iteration 2: the scratchpad (in the prompt) says step one is done.
            match: 'step-1-done',
            reply: {
              tools: [{ kind: 'write_file', path: 'step2.txt', content: 'two\n' }],
              text: 'Wrote step two.\nLOOP_COMPLETE',
              usage: { input: 900, output: 30 },
            },
          },
          {
            match: 'Write the steps',
            reply: {
              tools: [
                {
                  kind: 'shell',
                  command: 'echo one > step1.txt && echo step-1-done >> .ralph/agent/scratchpad.md',
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
      const dir = makeWorkspace({ 'PROMPT.md': 'Write the steps, one per iteration.\n' });
      writeFileSync(
        join(dir, 'ralph.yml'),
        ralphYml(sandbox ? 'sandbox: on' : '', 'max_iterations: 6', '  model: gemini-2.5-pro'),
      );
      mkdirSync(join(dir, '.ralph', 'agent'), { recursive: true });
      const env = geminiEnv();
      const r = await runRalph(['run'], dir, env);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(readRecords(dir).map((x) => x.sandbox?.mode)).toEqual(
        sandbox ? ['on', 'on'] : [undefined, undefined],
      );
      // Its chats are in ~/.gemini, kept on disk (not in the sandbox's throwaway home).
      const chats = readdirSync(join(env.HOME as string, '.gemini'), { recursive: true }).map(String);
      expect(
        chats.some((f) => /chats\/.+\.json/.test(f)),
        chats.join(' '),
      ).toBe(true);
      expect(readFileSync(join(dir, 'step1.txt'), 'utf8')).toBe('one\n');
      expect(readFileSync(join(dir, 'step2.txt'), 'utf8')).toBe('two\n');
      const state = readState(dir);
      expect(state.stop_reason).toBe('completed');
      const records = readRecords(dir);
      expect(records.map((x) => x.backend)).toEqual(['gemini', 'gemini']);
      // Two model calls per iteration (the tool call, then the answer), reported as session totals.
      expect(records.map((x) => x.tokens.total)).toEqual([2 * 820, 2 * 930]);
      expect(records.map((x) => x.tokens.input)).toEqual([1600, 1800]);
      expect(records.every((x) => x.model === 'gemini-2.5-pro')).toBe(true);
      expect(state.tokens.total).toBe(2 * 820 + 2 * 930);
      const turns = turnsSince(from);
      // With -m there is no routing call: every request is an agent turn.
      expect(server.requests.slice(from).map((q) => q.path)).toEqual(
        Array(4).fill('/v1beta/models/gemini-2.5-pro:streamGenerateContent'),
      );
      expect(turns.map((t) => t.toolRounds)).toEqual([0, 1, 0, 1]);
    },
    120_000,
  );

  it('a two-hat workflow: `ralph emit` from gemini’s shell tool, with RALPH_* stripped by strict sanitization', async () => {
    server.setScript(
      plannerBuilderScript('gemini', [
        // What the shell tool sees of Ralph's variables ($VAR is allowed; $(…) is not).
        { kind: 'shell', command: 'echo "events=[$RALPH_EVENTS_FILE] hat=[$RALPH_HAT]" > env-seen.txt' },
        { kind: 'shell', command: 'ralph emit build.done BUILD.md' },
      ]),
    );
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': 'Build the project.\n' });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml(PLANNER_BUILDER_HATS));
    // GITHUB_SHA makes gemini's shell tool drop every variable but PATH/HOME and a few others.
    const r = await runRalph(['run'], dir, geminiEnv({ GITHUB_SHA: '0123456789abcdef' }));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    const records = readRecords(dir);
    expect(records.map((x) => [x.hat, x.events])).toEqual([
      ['planner', ['build.task']],
      ['builder', ['build.done']],
      ['planner', ['LOOP_COMPLETE']],
    ]);
    expect(readFileSync(join(dir, 'BUILD.md'), 'utf8')).toBe(builtBy('gemini'));
    // The variables did not reach the shell; `ralph emit` found the events file by the marker.
    expect(readFileSync(join(dir, 'env-seen.txt'), 'utf8')).toBe('events=[] hat=[]\n');
    const events = JSON.parse((await runRalph(['events', '--format', 'json'], dir)).stdout) as {
      topic: string;
      payload: unknown;
    }[];
    expect(events.map((e) => e.topic)).toEqual(['task.start', 'build.task', 'build.done', 'LOOP_COMPLETE']);
    expect(events[1]?.payload).toBe('write BUILD.md');
    expect(events[2]?.payload).toBe('BUILD.md');
    // Tokens are recorded for every iteration; without cli.model gemini routes each prompt itself
    // (a `:generateContent` classifier call, answered by the server) and names the model it chose.
    expect(records.every((x) => x.tokens.total > 0)).toBe(true);
    expect(records.every((x) => typeof x.model === 'string' && x.model.startsWith('gemini-'))).toBe(true);
    expect(server.requests.slice(from).some((q) => q.path.endsWith(':generateContent'))).toBe(true);
  }, 180_000);

  it("a hat's disallowed_tools: the deny policy keeps gemini's shell tool from the model and from running", async () => {
    server.setScript({
      rules: [
        {
          match: 'NO-SHELL',
          turn: 1,
          reply: {
            tools: [{ kind: 'shell', command: 'echo ran > shell-ran.txt' }],
            usage: { input: 100, output: 10 },
          },
        },
        { match: 'NO-SHELL', reply: { text: 'Done.\nLOOP_COMPLETE', usage: { input: 100, output: 10 } } },
      ],
    });
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': 'Look around. NO-SHELL\n' });
    writeFileSync(
      join(dir, 'ralph.yml'),
      ralphYml(
        'hats:\n  looker:\n    triggers: [task.start]\n    instructions: Look only.\n    disallowed_tools: [run_shell_command]',
        'max_iterations: 2',
        '  model: gemini-2.5-pro',
      ),
    );
    const r = await runRalph(['run'], dir, geminiEnv());
    expect(existsSync(join(dir, 'shell-ran.txt')), r.stdout + r.stderr).toBe(false);
    const declared = turnsSince(from).map((t) =>
      ((t.body.tools ?? []) as { functionDeclarations?: { name: string }[] }[]).flatMap((x) =>
        (x.functionDeclarations ?? []).map((f) => f.name),
      ),
    );
    expect(declared.length).toBeGreaterThan(0);
    for (const names of declared) {
      expect(names).toContain('write_file');
      expect(names).not.toContain('run_shell_command');
    }
  }, 120_000);

  it('a model ladder: the server sees the model change after a failed tests gate (cli.models → -m)', async () => {
    // One rung up is enough here: each gemini start costs seconds.
    server.setScript(ladderScript(1));
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': LADDER_PROMPT });
    const models = ['gemini-2.5-flash', 'gemini-2.5-pro'];
    writeFileSync(
      join(dir, 'ralph.yml'),
      ralphYml(LADDER_GATE, 'max_iterations: 6', `  models: [${models.join(', ')}]`),
    );
    const r = await runRalph(['run'], dir, geminiEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // Gemini names the model in the request path: /v1beta/models/<model>:streamGenerateContent.
    expect(rungsSeen(turnsSince(from).map((t) => /models\/([^:]+):/.exec(t.path)?.[1]))).toEqual(models);
    expect(readRecords(dir).map((x) => x.decision.route.model.name)).toEqual(models);
  }, 120_000);

  it('a 429 that gemini retries succeeds within the same iteration', async () => {
    server.setScript({
      rules: [
        { match: 'Say done', times: 1, reply: { status: 429 } },
        { match: 'Say done', reply: { text: 'Done.\nLOOP_COMPLETE' } },
      ],
    });
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': 'Say done.\n' });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml('', 'max_iterations: 3', '  model: gemini-2.5-pro'));
    const r = await runRalph(['run'], dir, geminiEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(turnsSince(from)).toHaveLength(2);
    expect(readRecords(dir).map((x) => x.verdict)).toEqual(['complete']);
    expect(readState(dir).consecutive_failures).toBe(0);
  }, 120_000);

  it('a quota with a retry delay parks the loop (not a failure) until the runtime limit ends it', async () => {
    const { r, state, started, turns } = await quota;
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(state.stop_reason).toBe('max_runtime');
    expect(state.consecutive_failures).toBe(0);
    // Parked until the reset time gemini reported, with the same iteration still to run.
    expect(state.parked?.until).toBeGreaterThanOrEqual(started + 3_600_000);
    expect(r.stderr).toMatch(/ralph: parked — \[API Error: You exceeded your current quota/);
    // A terminal quota: gemini itself does not retry it.
    expect(turns).toBe(1);
  }, 120_000);

  // One timed-out run for the two tests below (started with the file: 15 s of gemini at least).
  const theTimedOutRun = async () => {
    const run = await timedOut;
    expect(
      run.toolStarted,
      `gemini never started its shell tool within the timeout\n${run.r.stdout}${run.r.stderr}`,
    ).toBe(true);
    return run;
  };

  it('an iteration timeout kills gemini and records the iteration as timed out', async () => {
    const { r, ms } = await theTimedOutRun();
    // The timeout plus the kill grace, not the tool's 90 s (a loaded machine may be slow to start gemini).
    expect(ms).toBeLessThan(85_000);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(/iteration timeout: the agent was killed/);
  }, 120_000);

  // gemini spawns each shell command with `detached: true` (a session of its own), so killing only
  // gemini's process group would leave the command running; the supervisor also kills the groups
  // of the agent's descendants.
  it('no shell command of gemini outlives the kill', async () => {
    const { toolAlive } = await theTimedOutRun();
    expect(toolAlive).toBe(false);
  }, 120_000);

  it('a prompt longer than the argument limit reaches the model intact (stdin)', async () => {
    const line = 'the quick brown fox jumps over the lazy dog 0123456789\n';
    const body = `# Big prompt\n${line.repeat(Math.ceil(250_000 / line.length))}END-OF-BIG-PROMPT\n`;
    expect(body.length).toBeGreaterThan(200_000);
    server.setScript({
      rules: [{ match: 'END-OF-BIG-PROMPT', reply: { text: 'Read it all.\nLOOP_COMPLETE' } }],
    });
    const from = server.requests.length;
    const dir = makeWorkspace({ 'PROMPT.md': body });
    writeFileSync(join(dir, 'ralph.yml'), ralphYml('', 'max_iterations: 2', '  model: gemini-2.5-pro'));
    const r = await runRalph(['run'], dir, geminiEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const turns = turnsSince(from);
    expect(turns).toHaveLength(1);
    // gemini sends its <session_context> and the prompt as two parts of the first user turn.
    const parts = turns[0]!.body.contents[0].parts as { text: string }[];
    expect(parts).toHaveLength(2);
    expect(parts[0]!.text).toMatch(/^<session_context>/);
    const received = parts[1]!.text;
    expect(received.startsWith(body.trimEnd())).toBe(true);
    expect(received).toContain('## DONE');
  }, 120_000);
});
