import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { recordLine } from '../../src/state/records-file.ts';
import { waitFor } from './wait.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const RALPH = join(ROOT, 'bin', 'ralph');

const created: string[] = [];

/**
 * Removes `path` when the test that made it finishes (after its `afterEach` hooks); made outside a
 * test (module scope, `beforeAll`), when the file's tests are done (`test/setup/workspaces.ts`).
 */
export function removeWhenDone(path: string): string {
  try {
    onTestFinished(() => rmSync(path, { recursive: true, force: true }));
  } catch {
    // Not inside a test: vitest throws, and the file-level cleanup takes it.
    created.push(path);
  }
  return path;
}

/** Stops `p` (SIGTERM, then waits for it) when the test that started it finishes. */
export function stopWhenDone(p: RalphProcess): RalphProcess {
  onTestFinished(async () => {
    p.child.kill('SIGTERM');
    await p.done;
  });
  return p;
}

/**
 * A temp workspace with the given files, removed when its test (or its file) is done; `name`: a
 * directory of that name inside the temp one (a path that reads well in a screenshot).
 */
export function makeWorkspace(files: Record<string, string> = {}, name?: string): string {
  const temp = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-test-')));
  const dir = name ? join(temp, name) : temp;
  mkdirSync(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** Removes the workspaces made outside a test; the setup file runs it after each test file. */
export function cleanupWorkspaces(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A file of the seed 000 fixture (its ralph.yml and PROMPT.md run unchanged). */
export const seed000 = (name: string): string =>
  readFileSync(join(ROOT, 'test', 'fixtures', 'seed-000', name), 'utf8');

/** ralph.yml for the fake backend with `fake-agent.yml`, plus extra event_loop settings. */
export function fakeConfig(eventLoop: Record<string, unknown> = {}): string {
  return agentConfig(eventLoop, ['  backend: fake', '  fake_script: fake-agent.yml']);
}

/**
 * ralph.yml for a shell agent, `sh agent.sh` (`custom`, the prompt on stdin), read as stream-json
 * like the fake agent's output: far cheaper than the fake agent's node start, for tests whose
 * subject is not the scripted agent. `shellResult` prints its result line.
 */
export function shellAgentConfig(eventLoop: Record<string, unknown> = {}): string {
  return agentConfig(eventLoop, [
    '  backend: custom',
    '  command: sh',
    '  args: [agent.sh]',
    '  output_format: stream-json',
  ]);
}

function agentConfig(eventLoop: Record<string, unknown>, cli: string[]): string {
  const lines = ['event_loop:', '  prompt_file: PROMPT.md'];
  for (const [k, v] of Object.entries(eventLoop)) lines.push(`  ${k}: ${JSON.stringify(v)}`);
  lines.push('cli:', ...cli);
  return `${lines.join('\n')}\n`;
}

/**
 * A shell line printing the stream-json result line the fake agent's `result` step prints: `text`
 * (the inside of a JSON string once the shell has read it in double quotes, so `\\n` in the
 * shell's text is a newline in the result) and its cost, if any.
 */
export const shellResult = (text: string, costUsd?: number): string =>
  `printf '{"type":"result","result":"%s"${costUsd === undefined ? '' : `,"total_cost_usd":${costUsd}`}}\\n' "${text}"`;

/**
 * Two iterations: the first asks `Ship it on Friday?` (`ralph emit human.interact`) and the loop
 * waits for the answer; the second saves the prompt it got as p2.md.
 */
export function interactWorkspace(): string {
  return makeWorkspace({
    'PROMPT.md': 'work\n',
    'ralph.yml': fakeConfig({ max_iterations: 2 }),
    'fake-agent.yml': [
      'turns:',
      '  - when: { iteration: 1 }',
      '    do:',
      '      - run: "ralph emit human.interact \'Ship it on Friday?\'"',
      '  - do:',
      '      - save_prompt: p2.md',
    ].join('\n'),
  });
}

/** A fake-agent step (a line of fake-agent.yml) that waits until the test creates `file` in the workspace. */
export const waitForFile = (file: string) => `      - run: "while [ ! -f ${file} ]; do sleep 0.05; done"`;

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running `ralph` process with its collected output. */
export interface RalphProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  done: Promise<RunResult>;
}

/** A running program (its stdout and stderr collected), with the test's environment and NO_COLOR. */
export function startProcess(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): RalphProcess {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const done = new Promise<RunResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout: out, stderr: err }));
  });
  return { child, stdout: () => out, stderr: () => err, done };
}

export function startRalph(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): RalphProcess {
  return startProcess(process.execPath, [RALPH, ...args], cwd, env);
}

export function runRalph(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return startRalph(args, cwd, env).done;
}

export function readState(dir: string): Record<string, any> {
  return JSON.parse(readFileSync(join(dir, '.ralph', 'state.json'), 'utf8'));
}

/** The run's status in state.json, or undefined while there is none yet (or it is mid-write). */
export function readStatus(dir: string): string | undefined {
  try {
    return readState(dir).status;
  } catch {
    return undefined;
  }
}

/**
 * Every iteration record of the workspace (each checked against the records' schema), run after run in the order the runs started (two runs
 * started in the same second have run ids that sort by their random suffix, not by time).
 */
export function readRecords(dir: string): Record<string, any>[] {
  const runs = join(dir, '.ralph', 'runs');
  const perRun: Record<string, any>[][] = [];
  for (const run of readdirSync(runs)) {
    const file = join(runs, run, 'iterations.jsonl');
    if (!existsSync(file)) continue;
    const records = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => {
        // What the loop writes must pass the one schema its readers check (or they would skip it).
        const checked = recordLine(line);
        if ('error' in checked)
          throw new Error(`${file}: a record Ralph wrote fails its schema: ${checked.error}`);
        return JSON.parse(line);
      });
    if (records.length > 0) perRun.push(records);
  }
  const startOf = (records: Record<string, any>[]) => String(records[0]?.started_at ?? '');
  return perRun.sort((a, b) => startOf(a).localeCompare(startOf(b))).flat();
}

// The poll lives with the other waits; most tests import it from here.
export { waitFor } from './wait.ts';

/** The pid of a process that has exited (a lock or claim left behind by it is stale). */
export function deadPid(): number {
  const pid = spawnSync('true').pid;
  if (pid === undefined) throw new Error('could not start `true`');
  return pid;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * A workspace whose scripted fake agent completes at once. `hold`: the agent first touches the
 * file `started`, then waits until the file `go` exists (a run the test keeps live).
 */
export function completingWorkspace(hold = false): string {
  return makeWorkspace({
    'ralph.yml': fakeConfig({ max_iterations: 2 }),
    'PROMPT.md': 'go\n',
    'fake-agent.yml': `turns:\n  - do:\n${hold ? '      - run: "touch started; while [ ! -f go ]; do sleep 0.05; done"\n' : ''}      - print: LOOP_COMPLETE\n`,
  });
}

/** One write of a run, as RALPH_FAULT_TRACE_WRITES lists it. */
export interface TracedWrite {
  kind: 'durable' | 'output';
  n: number;
  path: string;
  text?: string;
}

/**
 * Runs `ralph run` in `dir` with every write traced (the trace kept outside it); the writes in order.
 * With `until`, the run is killed as soon as the writes traced so far satisfy it: a test that needs
 * only the first write points does not pay for the rest of the run.
 */
export async function traceRunWrites(
  dir: string,
  until?: (writes: TracedWrite[]) => boolean,
): Promise<TracedWrite[]> {
  // Outside the workspace: an untracked file in a repository would be rolled back or committed.
  const trace = removeWhenDone(`${dir}.writes.jsonl`);
  const run = startRalph(['run'], dir, { RALPH_FAULT_TRACE_WRITES: trace });
  if (until) {
    let over = false;
    void run.done.then(() => (over = true));
    await waitFor(() => over || until(tracedWrites(trace)), 30_000, 'the traced writes');
    run.child.kill('SIGKILL');
  }
  await run.done;
  return tracedWrites(trace);
}

/** The complete lines of a write trace so far (the run may be appending the next one). */
function tracedWrites(trace: string): TracedWrite[] {
  if (!existsSync(trace)) return [];
  const lines = readFileSync(trace, 'utf8').split('\n');
  return lines.slice(0, -1).map((l) => JSON.parse(l) as TracedWrite);
}
