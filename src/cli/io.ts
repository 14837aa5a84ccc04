/** What a CLI command may touch: injected so the CLI runs in-process in tests. */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Colours only on a TTY and when NO_COLOR is unset. */
  color: boolean;
}

export function processIO(): CliIO {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
  };
}
