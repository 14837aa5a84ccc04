import { spawn } from 'node:child_process';
import { closeSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RALPH_BIN } from '../paths-package.ts';
import { type LockHolder, lockHolderAlive } from '../state/io/lock.ts';
import { openOutputFile } from '../state/io/write-faults.ts';

/** A running worker process: its pid and a promise that settles when it has exited. */
export interface WorkerHandle {
  pid: number;
  exited: Promise<void>;
  /** Asks it to stop like Ctrl-C would: the agent is killed, the iteration recorded, state saved. */
  interrupt(): void;
}

/** Starts worker processes; injected so tests can count or fake them. */
export type SpawnWorker = (opts: {
  specFile: string;
  logFile: string;
  env: NodeJS.ProcessEnv;
}) => WorkerHandle;

/**
 * `ralph parallel-worker SPEC` in a process group of its own (a Ctrl-C in the terminal reaches the
 * coordinator, which stops the workers in order), its output appended to a log file rather than a
 * pipe: a worker outlives a coordinator that crashed, and the next one adopts it.
 */
export const spawnWorkerProcess: SpawnWorker = ({ specFile, logFile, env }) => {
  mkdirSync(join(logFile, '..'), { recursive: true });
  const fd = openOutputFile(logFile);
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(process.execPath, [RALPH_BIN, 'parallel-worker', specFile], {
      detached: true,
      stdio: ['ignore', fd, fd],
      env,
    });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start a worker process (${RALPH_BIN})`);
  const exited = new Promise<void>((done) => {
    child.once('exit', () => done());
    child.once('error', () => done());
  });
  return { pid, exited, interrupt: () => signal(pid, 'SIGINT') };
};

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * A worker a previous coordinator started and that still runs: it is watched by polling, since
 * only a parent hears a child's exit.
 */
export function adoptWorker(holder: LockHolder, pollMs = 200): WorkerHandle {
  const { pid } = holder;
  const exited = new Promise<void>((done) => {
    const timer = setInterval(() => {
      if (!lockHolderAlive(holder)) {
        clearInterval(timer);
        done();
      }
    }, pollMs);
  });
  return { pid, exited, interrupt: () => signal(pid, 'SIGINT') };
}
