import { createRequire } from 'node:module';
import type { IBufferCell } from '@xterm/headless';
import { type PtyRalph, startRalphPty } from './pty.ts';
import { waitForValue } from './wait.ts';

// @xterm/headless ships CommonJS only.
const { Terminal } = createRequire(import.meta.url)('@xterm/headless') as typeof import('@xterm/headless');

/** One cell of the screen: its character and how it is drawn (colours: palette index 0–255, or an 0xRRGGBB). */
export interface ScreenCell {
  char: string;
  fg: number | `#${string}` | 'default';
  bg: number | `#${string}` | 'default';
  bold: boolean;
  dim: boolean;
  inverse: boolean;
}

/** `ralph` in a pseudo-terminal whose output drives a headless terminal emulator: real frames. */
export interface ScreenRalph extends PtyRalph {
  /** The screen as a person sees it now: one string per row, trailing spaces trimmed. */
  screen(): Promise<string[]>;
  /** The screen now, cell by cell with colours and weight (a wide character's second cell left out). */
  cells(): Promise<ScreenCell[][]>;
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
  // An empty write is flushed after every earlier one: the screen is then up to date.
  const settled = () => new Promise<void>((resolve) => term.write('', resolve));
  const lines = () => {
    const b = term.buffer.active;
    return Array.from({ length: term.rows }, (_, i) => b.getLine(b.viewportY + i));
  };
  const screen = async () => {
    await settled();
    return lines().map((l) => l?.translateToString(true) ?? '');
  };
  const colour = (mode: 'Fg' | 'Bg', c: IBufferCell): ScreenCell['fg'] => {
    if (c[`is${mode}Default`]()) return 'default';
    const v = c[`get${mode}Color`]();
    return c[`is${mode}RGB`]() ? `#${v.toString(16).padStart(6, '0')}` : v;
  };
  const cells = async () => {
    await settled();
    return lines().map((l) => {
      const row: ScreenCell[] = [];
      for (let x = 0; x < term.cols; x++) {
        const c = l?.getCell(x);
        if (!c || c.getWidth() === 0) continue;
        row.push({
          char: c.getChars() || ' ',
          fg: colour('Fg', c),
          bg: colour('Bg', c),
          bold: c.isBold() !== 0,
          dim: c.isDim() !== 0,
          inverse: c.isInverse() !== 0,
        });
      }
      return row;
    });
  };
  return {
    ...pty,
    screen,
    cells,
    writes: () => writes,
    resize(cols, rows) {
      term.resize(cols, rows);
      pty.resize(cols, rows);
    },
    async waitForScreen(pattern, timeoutMs = 15_000) {
      let rows: string[] = [];
      return waitForValue(
        async () => {
          rows = await screen();
          return pattern.test(rows.join('\n')) && rows;
        },
        timeoutMs,
        () => `${pattern} on the screen:\n${rows.join('\n')}`,
      );
    },
  };
}
