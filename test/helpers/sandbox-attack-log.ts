import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/**
 * A shell agent's prelude: `attempt NAME 'command'` runs the command, appends
 * "NAME<TAB>status<TAB>stderr" to attack-log.txt in its working directory (`log` to name another)
 * and repeats the stderr (Ralph reads the sandbox's refusals there).
 */
export function attemptPrelude(log = 'attack-log.txt'): string {
  return [
    'attempt() {',
    '  sh -c "$2" > /dev/null 2> attack-err.tmp; st=$?',
    `  printf "%s\\t%s\\t%s\\n" "$1" "$st" "$(tr "\\n" " " < attack-err.tmp)" >> ${log}`,
    '  cat attack-err.tmp >&2; rm -f attack-err.tmp',
    '}',
  ].join('\n');
}

/** `attempt NAME 'cmd'` lines, each command quoted for sh. */
export function attemptLines(attacks: readonly [string, string][]): string {
  return attacks.map(([name, cmd]) => `attempt ${name} '${cmd.replaceAll("'", "'\\''")}'`).join('\n');
}

/** An attack log as name → [status, stderr]. */
export function attackLog(file: string): Record<string, [number, string]> {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return Object.fromEntries(
    lines.map((l) => {
      const [name, status, err] = l.split('\t');
      return [name, [Number(status), err ?? '']];
    }),
  );
}

/** What the OS says when the sandbox refuses a write or hides a path (dash says ENOENT as "Directory nonexistent"). */
export const OS_REFUSAL =
  /Read-only file system|Permission denied|No such file or directory|Directory nonexistent|Device or resource busy/;

/** Every attack of `names` in `dir`'s attack-log.txt failed, with the operating system's error. */
export function expectRefused(dir: string, names: readonly string[], log = 'attack-log.txt'): void {
  const found = attackLog(join(dir, log));
  for (const name of names) {
    expect(found[name], `attack ${name} ran`).toBeDefined();
    const [status, err] = found[name]!;
    expect(status, `${name}: ${err}`).not.toBe(0);
    expect(err, name).toMatch(OS_REFUSAL);
  }
}
