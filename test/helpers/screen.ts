import { createRequire } from 'node:module';
import { type PtyRalph, startRalphPty } from './pty.ts';

// @xterm/headless ships CommonJS only.
const { Terminal } = createRequire(import.meta.url)('@xterm/headless') as typeof import('@xterm/headless');

/** `ralph` in a pseudo-terminal whose output drives a headless terminal emulator: real frames. */
export interface ScreenRalph extends PtyRalph {
  /** The screen as a person sees it now: one string per row, trailing spaces trimmed. */
  screen(): Promise<string[]>;
  /** Resolves once the screen shows `pattern` (rejects with the screen after `timeoutMs`). */
  waitForScreen(pattern: RegExp, timeoutMs?: number): Promise<string[]>;
  resize(cols: number, rows: number): void;
  /** Number of output chunks the terminal received so far (a frame is one or a few). */
  writes(): number;
}

export async function startRalphScreen(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  size = { cols: 80, rows: 24 },
): Promise<ScreenRalph> {
  const term = new Terminal({ cols: size.cols, rows: size.rows, allowProposedApi: true });
  let writes = 0;
  // A person's terminal, not CI (the TUI is off in CI, as ink draws nothing there until the end).
  const pty = await startRalphPty(args, cwd, { CI: 'false', ...env }, size, (data) => {
    writes++;
    term.write(data);
  });
  const screen = () =>
    new Promise<string[]>((resolve) =>
      // An empty write is flushed after every earlier one: the screen is then up to date.
      term.write('', () => {
        const b = term.buffer.active;
        const rows: string[] = [];
        for (let i = 0; i < term.rows; i++)
          rows.push(b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
        resolve(rows);
      }),
    );
  return {
    ...pty,
    screen,
    writes: () => writes,
    resize(cols, rows) {
      term.resize(cols, rows);
      pty.resize(cols, rows);
    },
    async waitForScreen(pattern, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const rows = await screen();
        if (pattern.test(rows.join('\n'))) return rows;
        if (Date.now() > end)
          throw new Error(`timed out waiting for ${pattern} on the screen:\n${rows.join('\n')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
