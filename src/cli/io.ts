import { isatty } from 'node:tty';
import { RalphError } from '../errors.ts';

/** What a CLI command may touch: injected so the CLI runs in-process in tests. */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Colours: see {@link wantsColor}. */
  color: boolean;
  /** Asks the user a question when stdin and stdout are a terminal; undefined otherwise. */
  ask?: ((question: string) => Promise<string>) | undefined;
  /** Both ends of the terminal, when stdin and stdout are one (the TUI needs both). */
  terminal?: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream } | undefined;
  /** `--debug` / RALPH_DEBUG: the trace writes to stderr, so the terminal UI steps aside for plain lines. */
  debug?: boolean | undefined;
  /** Ends the process at once (a second Ctrl-C): bin.ts gives it; in-process callers may not. */
  exit?: ((code: number) => void) | undefined;
}

/**
 * A CI environment, as ink itself detects it (it then draws only the last frame, at exit): plain
 * lines are the better console there. CI=0 or CI=false says it is not one.
 */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  if (env.CI === '0' || env.CI === 'false') return false;
  return 'CI' in env || 'CONTINUOUS_INTEGRATION' in env || Object.keys(env).some((k) => k.startsWith('CI_'));
}

/**
 * Output may use Unicode graphics (block elements): a colour terminal (a TTY, NO_COLOR unset), not
 * CI, not TERM=dumb, and a UTF-8 locale. Everything else gets plain ASCII.
 */
export function unicodeOutput(io: Pick<CliIO, 'color' | 'env'>): boolean {
  const locale = io.env.LC_ALL || io.env.LC_CTYPE || io.env.LANG || '';
  return io.color && !io.env.NO_COLOR && io.env.TERM !== 'dumb' && !inCi(io.env) && /utf-?8/i.test(locale);
}

/**
 * Whether output is coloured: never with NO_COLOR set (no-color.org); with FORCE_COLOR set to
 * anything but `0` or `false`, also into a pipe or file (`FORCE_COLOR=1 ralph doctor | less -R`);
 * otherwise only on a terminal.
 */
export function wantsColor(env: NodeJS.ProcessEnv, toTerminal: boolean): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return toTerminal;
}

/** How a command's action hands its exit code to `runCli`. */
export type SetCode = (code: number) => void;

/**
 * Asks on the terminal. Ctrl-C (or Ctrl-D) at the prompt is an answer too: "stop here" — exit 130
 * with one line, nothing changed, never a stack trace.
 */
async function askOnTerminal(question: string): Promise<string> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await new Promise<string>((resolve, reject) => {
      const interrupted = () => {
        process.stdout.write('\n');
        reject(
          new RalphError('interrupted', 'interrupted at the prompt; nothing was changed', { exitCode: 130 }),
        );
      };
      rl.on('SIGINT', interrupted);
      rl.on('close', interrupted);
      rl.question(question, (answer) => {
        rl.off('close', interrupted);
        resolve(answer);
      });
    });
  } finally {
    rl.close();
  }
}

/**
 * A console stream that may go away: `ralph run | head` closes the pipe after a few lines. Writing
 * then fails with EPIPE; the loop must not die of it mid-iteration. From the first error on, output
 * to that stream is dropped — the run goes on, and its log file keeps everything.
 */
function closableWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', () => {
    closed = true;
  });
  return (text) => {
    if (!closed && !stream.destroyed) stream.write(text);
  };
}

/**
 * The process's own console. Whether stdin and stdout are terminals is asked of their descriptors:
 * `process.stdin` is made only when something reads it (the prompt, the TUI), since making it
 * costs several milliseconds of every start (a stream over a pipe, a file or /dev/null).
 */
export function processIO(): CliIO {
  const toTerminal = isatty(1);
  const onTerminal = toTerminal && isatty(0);
  return {
    out: closableWriter(process.stdout),
    err: closableWriter(process.stderr),
    cwd: process.cwd(),
    env: process.env,
    color: wantsColor(process.env, toTerminal),
    ask: onTerminal ? askOnTerminal : undefined,
    terminal: onTerminal ? { stdin: process.stdin, stdout: process.stdout } : undefined,
  };
}
