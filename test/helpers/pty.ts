import { RALPH } from './workspace.ts';

/**
 * `ralph` in a real pseudo-terminal (80×24 unless told otherwise), for what only a TTY shows; with
 * NO_COLOR unless `env` sets it to undefined.
 */
export interface PtyRalph {
  /** Everything the terminal received so far (escape sequences included). */
  output(): string;
  write(data: string): void;
  /** Resolves once the output matches, or rejects after `timeoutMs` with what was seen. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<{ exitCode: number; signal: number | undefined }>;
  kill(): void;
  resize(cols: number, rows: number): void;
}

export async function startRalphPty(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  size = { cols: 80, rows: 24 },
  onData?: (data: string) => void,
): Promise<PtyRalph> {
  // Lazy: only the tests that need a terminal load the native module.
  const pty = await import('@lydell/node-pty');
  const term = pty.spawn(process.execPath, [RALPH, ...args], {
    cwd,
    cols: size.cols,
    rows: size.rows,
    // A variable given as undefined is left out (node-pty would pass the text "undefined").
    env: Object.fromEntries(
      Object.entries({ ...process.env, NO_COLOR: '1', ...env }).filter(([, v]) => v !== undefined),
    ) as Record<string, string>,
  });
  let out = '';
  const waiters = new Set<() => void>();
  term.onData((d) => {
    out += d;
    onData?.(d);
    for (const w of waiters) w();
  });
  const exited = new Promise<{ exitCode: number; signal: number | undefined }>((resolve) =>
    term.onExit((e) => resolve({ exitCode: e.exitCode, signal: e.signal })),
  );
  return {
    output: () => out,
    write: (data) => term.write(data),
    kill: () => term.kill(),
    resize: (cols, rows) => term.resize(cols, rows),
    exited,
    waitFor(pattern, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(out)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in terminal output:\n${out}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}
