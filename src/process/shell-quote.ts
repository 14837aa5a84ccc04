/** Quotes one argument as one POSIX shell word (`sh -c` sees exactly `arg`, whatever it holds). */
export function shellQuote(arg: string): string {
  if (arg === '') return "''";
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A command and its arguments as one line a POSIX shell runs as given (each word quoted as needed). */
export function shellCommand(command: string, args: readonly string[]): string {
  return [command, ...args].map(shellQuote).join(' ');
}
