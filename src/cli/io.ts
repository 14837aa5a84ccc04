/** What a CLI command may touch: injected so the CLI runs in-process in tests. */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Colours only on a TTY and when NO_COLOR is unset. */
  color: boolean;
  /** Asks the user a question when stdin and stdout are a terminal; undefined otherwise. */
  ask?: ((question: string) => Promise<string>) | undefined;
}

async function askOnTerminal(question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

export function processIO(): CliIO {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
    ask: process.stdin.isTTY && process.stdout.isTTY ? askOnTerminal : undefined,
  };
}
