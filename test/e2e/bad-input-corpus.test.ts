import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCliInMemory } from '../helpers/cli-in-memory.ts';
import { openDashboard } from '../helpers/dashboard.ts';
import { REMOTE_URL, WRITE_TOKEN } from '../helpers/forge-workspace.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import {
  fakeConfig,
  type RalphProcess,
  readState,
  removeWhenDone,
  runRalph,
  stopWhenDone,
} from '../helpers/workspace.ts';

// Every reader of Ralph's files against what an agent (or a crash, or another tool) can append,
// and every file-path flag against links to nowhere: a notice naming the file, never a stack trace.

/** A stack frame anywhere in what a command printed. */
const STACK_FRAME = /^\s+at /m;

/** Lines no reader may trip on: not objects, wrong types, huge numbers, nulls, cut short, binary. */
const GENERIC = [
  'null',
  '42',
  '"a string"',
  '[1,2,3]',
  'true',
  '{}',
  '{"iteration":2}',
  '{"iteration":"2","tokens":null,"decision":{"limits":null}}',
  '{"iteration":1e999,"duration_ms":1e999}',
  '{"__proto__":{"iteration":4},"constructor":{"prototype":{"polluted":1}}}',
  '{"run_id":"cut","itera',
  '\u0000\u0001\u00fe\ufffdgarbage\u0007',
];

/** A line of the file's own type with one field of a wrong type (what a shallow check lets through). */
const NEAR_MISS: Record<string, string[]> = {
  // Filled from the run's own record: that record with one field of a wrong type.
  records: [],
  events: [
    '{"topic":42}',
    '{"topic":"odd.types","payload":{"a":[1]},"iteration":"x","hat":5,"ts":7,"source":[]}',
  ],
  tasks: [
    '{"id":"task-bad","title":5}',
    '{"id":"task-odd","title":"odd","status":"open","blocked_by":"x","priority":"high","labels":[1,null],"issue":"x"}',
  ],
  questions: [
    '{"id":"q-bad1","text":"options as text","options":"a,b"}',
    '{"id":"q-bad2","text":"wrong iteration","kind":"approval","iteration":"one","expires_at":"soon"}',
  ],
  registry: ['{"workspace":"/nowhere","run_id":"r"}', '{"workspace":5,"run_id":null,"pid":"x"}'],
  attempts: ['{"run_id":"r","at":5,"iteration":"x","kept":"yes","verdict":1}'],
};

function damage(file: string, kind: keyof typeof NEAR_MISS): void {
  mkdirSync(join(file, '..'), { recursive: true });
  appendFileSync(file, `${[...GENERIC, ...NEAR_MISS[kind]!].join('\n')}\n`);
}

const root = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-bad-input-')));
const env = { XDG_STATE_HOME: join(root, 'state'), GITHUB_TOKEN: WRITE_TOKEN, GH_TOKEN: '' };
let dir = '';
let files: Record<
  'records' | 'events' | 'tasks' | 'questions' | 'registry' | 'attempts' | 'allDamaged',
  string
>;

const inProcess = (args: string[]): Promise<CliResult> => runCliInMemory(args, { cwd: dir, env });

function clean(what: string, r: { stdout: string; stderr: string }): void {
  expect(r.stdout, `${what}: stdout`).not.toMatch(STACK_FRAME);
  expect(r.stderr, `${what}: stderr`).not.toMatch(STACK_FRAME);
  expect(r.stderr, `${what}: stderr`).not.toContain('unexpected error');
}

beforeAll(async () => {
  dir = makeGitWorkspace({
    'PROMPT.md': 'work\n',
    'ralph.yml': fakeConfig({ max_iterations: 1 }),
    // The agent itself writes the first damaged lines, as an agent under pressure could.
    'fake-agent.yml': [
      'turns:',
      '  - do:',
      '      - run: "ralph emit work.done ok"',
      '      - run: |',
      `          printf '%s\\n' '{"iteration":2}' >> ".ralph/runs/$RALPH_RUN_ID/iterations.jsonl"`,
      `          printf '%s\\n' '[1,2]' >> "$RALPH_EVENTS_FILE"`,
      '      - print: ok',
      '',
    ].join('\n'),
  });
  git(dir, 'remote', 'add', 'origin', REMOTE_URL);
  const run = await runRalph(['run'], dir, env);
  expect(run.code, run.stderr).toBe(2);
  const added = await runRalph(['tools', 'task', 'add', 'A good task'], dir, env);
  expect(added.code, added.stderr).toBe(0);
  const state = readState(dir);
  const ralph = join(dir, '.ralph');
  // The loop went on past the agent's lines: its own record follows the one the agent wrote.
  const written = readFileSync(join(ralph, 'runs', state.run_id, 'iterations.jsonl'), 'utf8').split('\n');
  expect(written[0]).toBe('{"iteration":2}');
  const real = JSON.parse(written[1] as string);
  expect(real).toMatchObject({ iteration: 1, verdict: 'success' });
  const wrong: Record<string, unknown> = {
    tokens: { total: 'many' },
    gates: { tests: 'x' },
    decision: { limits: null },
    repos: [null],
    killed_processes: 'x',
    events: [1],
    duration_ms: '5',
    hat: 7,
  };
  NEAR_MISS.records = Object.entries(wrong).map(([k, v]) =>
    JSON.stringify({ ...real, iteration: 9, [k]: v }),
  );
  files = {
    records: join(ralph, 'runs', state.run_id, 'iterations.jsonl'),
    events: join(dir, state.events_file),
    tasks: join(ralph, 'agent', 'tasks.jsonl'),
    questions: join(ralph, 'control', 'questions.jsonl'),
    registry: join(env.XDG_STATE_HOME, 'ralph', 'runs.jsonl'),
    attempts: join(ralph, 'metric', 'attempts.jsonl'),
    // An older run whose every line is damaged: still named, never counted.
    allDamaged: join(ralph, 'runs', '20000101-000000-aaaaaa', 'iterations.jsonl'),
  };
  mkdirSync(join(ralph, 'control'), { recursive: true });
  writeFileSync(
    files.questions,
    `${JSON.stringify({ id: 'q-good', ts: state.started_at, kind: 'question', text: 'Still there?', run_id: state.run_id, iteration: 1 })}\n`,
  );
  for (const kind of Object.keys(NEAR_MISS)) damage(files[kind as keyof typeof files], kind);
  damage(files.allDamaged, 'records');
  // A last line a crash cut short (no newline) after everything else.
  appendFileSync(files.records, '{"run_id":"torn","iteration":3,"tok');
  appendFileSync(files.events, '{"topic":"torn');
}, 60_000);

describe('damaged lines in every file Ralph reads back', () => {
  /** Each command, the files whose damaged lines it must name, and what valid data must still show. */
  const commands: [string[], (keyof typeof files)[], (r: CliResult) => void][] = [
    [
      ['explain'],
      ['records'],
      (r) => {
        expect(r.stdout).toMatch(/iteration 1/);
        expect(r.stdout).not.toMatch(/iteration 9/);
      },
    ],
    [['explain', '--json'], ['records'], (r) => expect(JSON.parse(r.stdout).iteration).toBe(1)],
    [['stats'], ['records', 'attempts', 'allDamaged'], (r) => expect(r.stdout).toMatch(/iterations 1 /)],
    [
      ['stats', '--json'],
      ['records', 'attempts', 'allDamaged'],
      (r) => expect(JSON.parse(r.stdout).iterations).toBe(1),
    ],
    [['stats', '--all', '--json'], ['records'], (r) => expect(JSON.parse(r.stdout).iterations).toBe(1)],
    [['status'], [], (r) => expect(r.stdout).toContain('reached max_iterations')],
    [['status', '--json'], [], (r) => expect(JSON.parse(r.stdout).state.status).toBe('stopped')],
    [
      ['answer'],
      ['questions'],
      (r) => expect(r.stdout).toBe('q-good question (iteration 1): Still there?\n'),
    ],
    [['estimate'], ['records', 'allDamaged'], (r) => expect(r.stdout).toContain('from history')],
    [['events'], ['events'], (r) => expect(r.stdout).toContain('work.done')],
    [['events', '--format', 'json'], ['events'], (r) => expect(r.stdout).toContain('work.done')],
    [['runs'], ['registry'], (r) => expect(r.stdout).toContain(dir)],
    [['runs', '--json'], ['registry'], (r) => expect(r.stdout).toContain(dir)],
    [['tools', 'task', 'list'], ['tasks'], (r) => expect(r.stdout).toContain('A good task')],
    [
      ['tools', 'task', 'list', '--format', 'json'],
      ['tasks'],
      (r) => expect(r.stdout).toContain('A good task'),
    ],
    [['tools', 'task', 'ready'], ['tasks'], (r) => expect(r.stdout).toContain('A good task')],
  ];

  it.each(commands)(
    'ralph %j: the valid records still come through, the damaged lines are named',
    async (args, named, valid) => {
      const r = await inProcess(args);
      clean(args.join(' '), r);
      expect(r.code, r.stderr).toBe(0);
      valid(r);
      for (const kind of named) expect(r.stderr).toContain(files[kind]);
    },
  );

  it('the built CLI says the same (a representative subset)', async () => {
    for (const args of [
      ['explain'],
      ['stats', '--json'],
      ['status'],
      ['events'],
      ['runs'],
      ['tools', 'task', 'list'],
    ]) {
      const r = await runRalph(args, dir, env);
      clean(args.join(' '), r);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
  }, 60_000);

  it("the dashboard's pages and /metrics answer 200 over HTTP", async () => {
    const started: RalphProcess[] = [];
    try {
      const d = await openDashboard({ cwd: dir, env, track: (p) => started.push(stopWhenDone(p)) });
      const home = await d.get('/');
      const html = await home.text();
      expect(home.status).toBe(200);
      const key = /href="\/run\/([^"/]+)"/.exec(html)?.[1];
      expect(key, html).toBeDefined();
      for (const path of ['/stats', `/run/${key}`, `/run/${key}/live`]) {
        const res = await d.get(path);
        const body = await res.text();
        expect(res.status, `${path}: ${body}`).toBe(200);
        expect(body).not.toMatch(STACK_FRAME);
      }
      const live = await (await d.get(`/run/${key}/live`)).text();
      expect(live).toContain(`${files.records}: skipped damaged lines`);
      const stats = await (await d.get('/stats')).text();
      expect(stats).toContain(`${files.allDamaged}: skipped damaged lines`);
      const metrics = await fetch(`${d.origin}/metrics`, { headers: { authorization: `Bearer ${d.token}` } });
      const text = await metrics.text();
      expect(metrics.status).toBe(200);
      expect(text).toMatch(/^ralph_iterations_total\{.*\} 1$/m);
      clean('dashboard', { stdout: d.process.stdout(), stderr: d.process.stderr() });
    } finally {
      for (const p of started) p.child.kill('SIGTERM');
    }
  }, 60_000);
});

describe('file-path flags pointing at links to nowhere, link loops and directories', () => {
  const targets = (): Record<string, string> => {
    const base = join(root, 'links');
    mkdirSync(base, { recursive: true });
    const dangling = join(base, 'dangling');
    const loopA = join(base, 'loop-a');
    const loopB = join(base, 'loop-b');
    const folder = join(base, 'folder');
    try {
      symlinkSync(join(base, 'missing'), dangling);
      symlinkSync(loopB, loopA);
      symlinkSync(loopA, loopB);
      mkdirSync(folder);
    } catch {
      // Made by an earlier test of this file.
    }
    return { dangling, loop: loopA, folder };
  };
  const flags: [string, (path: string) => string[]][] = [
    ['-c', (p) => ['run', '--dry-run', '-c', p]],
    ['config validate -c', (p) => ['config', 'validate', '-c', p]],
    ['-P', (p) => ['run', '--dry-run', '-P', p]],
    ['-H', (p) => ['run', '--dry-run', '-H', p]],
    ['dashboard --token-file', (p) => ['dashboard', '--token-file', p]],
  ];
  it.each(flags)(
    '%s: one line naming the file, exit 1 or 2',
    async (_flag, argv) => {
      for (const [what, path] of Object.entries(targets())) {
        const r = await runRalph(argv(path), dir, env);
        clean(`${argv(path).join(' ')} (${what})`, r);
        expect([1, 2], `${what}: ${r.stderr}`).toContain(r.code);
        expect(r.stderr, what).toContain(path.split('/').pop());
      }
    },
    60_000,
  );

  it('a ralph.yml that is a link to nowhere is named, not run on the defaults', async () => {
    const ws = mkdtempSync(join(root, 'ws-link-'));
    writeFileSync(join(ws, 'PROMPT.md'), 'work\n');
    symlinkSync(join(ws, 'moved.yml'), join(ws, 'ralph.yml'));
    for (const args of [
      ['run', '--dry-run'],
      ['config', 'validate'],
    ]) {
      const r = await runCliInMemory(args, { cwd: ws, env });
      clean(args.join(' '), r);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`${join(ws, 'ralph.yml')} is a symbolic link to a file that does not exist`);
    }
  });

  it('the registry as a link loop: `ralph runs` and `ralph stats --all` read it as empty', async () => {
    const state = mkdtempSync(join(root, 'state-loop-'));
    mkdirSync(join(state, 'ralph'));
    symlinkSync(join(state, 'ralph', 'runs.jsonl'), join(state, 'ralph', 'runs.jsonl'));
    for (const args of [['runs'], ['stats', '--all']]) {
      const r = await runCliInMemory(args, { cwd: dir, env: { ...env, XDG_STATE_HOME: state } });
      clean(args.join(' '), r);
      expect(r.code, r.stderr).toBe(0);
    }
  });
});

describe('a GitHub API that answers 200 with something that is not JSON', () => {
  let server: Server;
  let url = '';
  let answer = { type: 'text/html', body: '<!DOCTYPE html><html><title>Sign in</title></html>' };
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': answer.type });
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const bodies: [string, { type: string; body: string }, RegExp][] = [
    [
      'an HTML page',
      { type: 'text/html', body: '<!DOCTYPE html><html><title>Sign in</title></html>' },
      /text\/html.*"<!DOCTYPE html>/,
    ],
    ['an empty body', { type: 'application/json', body: '' }, /an empty body/],
    ['JSON that is not a list', { type: 'application/json', body: '{"message":"hi"}' }, /not a list/],
  ];
  it.each(bodies)(
    '%s: tools task import names the URL, the answer and GITHUB_API_URL',
    async (_what, body, said) => {
      answer = body;
      const r = await runRalph(['tools', 'task', 'import', '--from', 'github'], dir, {
        ...env,
        GITHUB_API_URL: url,
      });
      clean('task import', r);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(url);
      expect(r.stderr).toMatch(said);
      expect(r.stderr).toContain('GITHUB_API_URL');
      expect(r.stderr).not.toContain(WRITE_TOKEN);
      expect(readFileSync(files.tasks, 'utf8')).not.toContain('Sign in');
    },
    30_000,
  );
});

describe('a damaged state.json beside the damaged records', () => {
  it('status names it; explain, stats and events still say one line, never a stack', async () => {
    const state = join(dir, '.ralph', 'state.json');
    const kept = readFileSync(state, 'utf8');
    try {
      writeFileSync(state, '{"version":1,"iterations":"many"}');
      for (const args of [
        ['status'],
        ['status', '--json'],
        ['explain'],
        ['stats'],
        ['events'],
        ['estimate'],
      ]) {
        const r = await inProcess(args);
        clean(args.join(' '), r);
        expect([0, 1], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
        if (r.code === 1) expect(r.stderr).toContain(state);
      }
    } finally {
      writeFileSync(state, kept);
    }
  });
});
