import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { BoundedTail, LineSplitter } from './bounded-tail.ts';
import { trace, tracing } from './debug-trace.ts';
import { killGroup } from './kill-group.ts';
import type { KilledProcess } from './marked-processes.ts';
import { processInfo } from './pids.ts';

export type OutputStream = 'stdout' | 'stderr';

/** What to run and how to watch it. */
export interface SuperviseOptions {
  command: string;
  args: readonly string[];
  /** Undefined: this process's directory. */
  cwd?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Written to the agent's stdin, which is then closed; null gives it /dev/null. */
  stdin: string | null;
  /** Hard deadline for the whole run, and the reason reported when it fires. */
  timeoutMs?: number | undefined;
  timeoutReason?: string | undefined;
  /** Kill when no output arrived for this long. */
  idleTimeoutMs?: number | undefined;
  /** While this says true the idle clock stands still (the agent waits for a human, silently). */
  idleSuspended?: (() => boolean) | undefined;
  killGraceMs: number;
  /**
   * The command's processes all die with it (a PID namespace's, `bwrap --unshare-pid`): after it
   * exits there is nothing of it to look for, only the wrapper's zombies, so no /proc scan.
   */
  contained?: boolean | undefined;
  /** Aborting kills the group; `signal.reason` (a string) becomes `killedBy`. */
  signal?: AbortSignal | undefined;
  /** Characters of each stream kept in memory. */
  tailChars?: number | undefined;
  onSpawn?: ((pid: number, startTime: string | undefined) => void) | undefined;
  onChunk?: ((stream: OutputStream, text: string) => void) | undefined;
  onLine?: ((stream: OutputStream, line: string) => void) | undefined;
}

export interface SuperviseResult {
  pid: number | undefined;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why Ralph killed the group (`iteration_timeout`, `idle_timeout`, an abort reason), or null. */
  killedBy: string | null;
  /** Set when the command could not be started at all (e.g. ENOENT). */
  spawnError: Error | undefined;
  /** Processes still in the group after the agent exited, which Ralph then killed. */
  leftoverKilled: number;
  /** Every other process of the group (and its escaped descendants) Ralph killed, the agent excluded. */
  killed: KilledProcess[];
  stdoutTail: string;
  stderrTail: string;
  /** More output came than the tails hold (`tailChars` per stream): the tails are its last part. */
  truncated: boolean;
  durationMs: number;
}

/**
 * Runs one agent process in its own process group and supervises it: streams output, enforces the
 * deadline, idle timeout and abort signal by killing the whole group (SIGTERM, then SIGKILL), and
 * makes sure nothing of the group outlives the run.
 */
export function supervise(options: SuperviseOptions): Promise<SuperviseResult> {
  const started = Date.now();
  const tailChars = options.tailChars ?? 64 * 1024;
  const tails = { stdout: new BoundedTail(tailChars), stderr: new BoundedTail(tailChars) };
  return new Promise((resolve) => {
    let killedBy: string | null = null;
    let killing: Promise<{ killed: KilledProcess[] }> | undefined;
    let lastOutput = Date.now();
    const timers: NodeJS.Timeout[] = [];

    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      detached: true, // own process group: pgid === child.pid
      stdio: [options.stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const pid = child.pid;

    let exited = false;
    const kill = (reason: string) => {
      // An agent that already exited on its own is not "killed" by a timer firing just after.
      if (killedBy !== null || pid === undefined || exited) return;
      killedBy = reason;
      killing = killGroup(pid, options.killGraceMs);
    };

    const abortListener = () => kill(String(options.signal?.reason ?? 'aborted'));
    if (options.signal) {
      if (options.signal.aborted) queueMicrotask(abortListener);
      else options.signal.addEventListener('abort', abortListener, { once: true });
    }
    if (options.timeoutMs !== undefined) {
      // Clamped to setTimeout's ceiling (~24.8 days): a larger value would fire at once.
      timers.push(
        setTimeout(
          () => kill(options.timeoutReason ?? 'timeout'),
          Math.min(Math.max(0, options.timeoutMs), 2_147_483_647),
        ),
      );
    }
    if (options.idleTimeoutMs !== undefined) {
      const idleMs = options.idleTimeoutMs;
      const tick = Math.min(1000, Math.max(20, Math.floor(idleMs / 10)));
      timers.push(
        setInterval(() => {
          if (options.idleSuspended?.()) lastOutput = Date.now();
          else if (Date.now() - lastOutput >= idleMs) kill('idle_timeout');
        }, tick),
      );
    }

    if (pid !== undefined) options.onSpawn?.(pid, processInfo(pid)?.startTime);

    const openStreams = new Set<OutputStream>();
    for (const name of ['stdout', 'stderr'] as const) {
      const stream = child[name];
      if (!stream) continue;
      openStreams.add(name);
      const decoder = new StringDecoder('utf8');
      const splitter = options.onLine ? new LineSplitter((line) => options.onLine?.(name, line)) : undefined;
      const handle = (text: string) => {
        if (text.length === 0) return;
        lastOutput = Date.now();
        tails[name].push(text);
        options.onChunk?.(name, text);
        splitter?.push(text);
      };
      stream.on('data', (buf: Buffer) => handle(decoder.write(buf)));
      stream.on('close', () => {
        handle(decoder.end());
        splitter?.end();
        openStreams.delete(name);
        maybeFinish();
      });
    }

    if (options.stdin !== null && child.stdin) {
      child.stdin.on('error', () => {}); // EPIPE when the agent never reads its prompt
      child.stdin.end(options.stdin);
    }

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let spawnError: Error | undefined;
    let leftoverKilled = 0;
    let killed: KilledProcess[] = [];
    let finished = false;
    let exitSettled = false;
    let streamCap: NodeJS.Timeout | undefined;

    child.on('error', (error) => {
      spawnError = error;
      if (exit === undefined) exit = { code: null, signal: null };
      for (const name of ['stdout', 'stderr'] as const) child[name]?.destroy();
      openStreams.clear();
      maybeFinish();
    });

    child.on('exit', (code, signal) => {
      exit = { code, signal };
      exited = true;
      // Whatever the agent left behind in its group (a grandchild holding stdout, a dev server)
      // must not outlive the iteration.
      void (async () => {
        if (killing) killed = (await killing).killed;
        else if (pid !== undefined && !options.contained) {
          const group = await killGroup(pid, Math.min(options.killGraceMs, 1000));
          leftoverKilled = group.forced.length;
          killed = group.killed;
        }
        // Pipes close once every writer is gone; bound the wait in case a writer escaped the group.
        streamCap = setTimeout(() => {
          for (const name of ['stdout', 'stderr'] as const) child[name]?.destroy();
          openStreams.clear();
          maybeFinish();
        }, 2000);
        exitSettled = true;
        maybeFinish();
      })();
    });

    function maybeFinish() {
      if (finished || exit === undefined || openStreams.size > 0) return;
      if (!spawnError && !exitSettled) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      if (streamCap) clearTimeout(streamCap);
      options.signal?.removeEventListener('abort', abortListener);
      if (tracing()) traceExit(options, exit, killedBy, spawnError, Date.now() - started);
      void Promise.resolve(killing).then(() =>
        resolve({
          pid,
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          killedBy,
          spawnError,
          leftoverKilled,
          killed: killed.filter((p) => p.pid !== pid),
          stdoutTail: tails.stdout.text(),
          stderrTail: tails.stderr.text(),
          truncated: tails.stdout.truncated || tails.stderr.truncated,
          durationMs: Date.now() - started,
        }),
      );
    }
  });
}

/** The debug record of a finished child: what ran, where, how it ended and how long it took. */
function traceExit(
  o: SuperviseOptions,
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
  killedBy: string | null,
  spawnError: Error | undefined,
  durationMs: number,
): void {
  trace({
    kind: 'process.ended',
    command: o.command,
    args: o.args,
    cwd: o.cwd,
    exitCode: exit?.code ?? null,
    signal: exit?.signal ?? null,
    killedBy,
    spawnError: spawnError?.message,
    durationMs,
  });
}
