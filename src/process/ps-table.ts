import { spawnSync } from 'node:child_process';
import { EPOCH_PREFIX, type MarkedEntry, type ProcessEntry, type ProcessTable } from './process-table.ts';

/** A ps that hangs (a stuck NFS mount in a process's cwd) must not hang the loop. */
const PS_TIMEOUT_MS = 10_000;
/** Whole environments of every process: a few MB on a busy machine; past this the read fails. */
const PS_MAX_BYTES = 64 * 1024 * 1024;
/** Shows each process's environment after its command: procps reads BSD's `e`; macOS's ps `-E`. */
const ENVIRONMENT_FLAG = process.platform === 'linux' ? 'e' : '-E';
const ENTRY_COLUMNS = 'pid=,ppid=,pgid=,stat=,lstart=';

/**
 * Runs ps (no shell) and returns its output, or undefined when it failed. LC_ALL=C and TZ=UTC fix
 * lstart's format (`Thu Nov 26 00:56:06 2026`) whatever the user's locale and zone; ps exits 1
 * when `-p` names no live process, which is an empty answer, not a failure.
 */
export function runPs(args: readonly string[]): string | undefined {
  const result = spawnSync('ps', args, {
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' },
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: PS_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxBuffer: PS_MAX_BYTES,
  });
  if (result.error !== undefined || (result.status !== 0 && result.status !== 1)) return undefined;
  return result.stdout;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LSTART = String.raw`[A-Z][a-z]{2} ([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})`;
const ENTRY_LINE = new RegExp(String.raw`^ *(\d+) +(\d+) +(\d+) +(\S+) +${LSTART} *$`);
const MARKED_LINE = new RegExp(String.raw`^ *(\d+) +(\S+) +${LSTART} (.*)$`);

/** lstart in UTC (`Thu Nov 26 00:56:06 2026`, from its regex groups) as `epoch:<seconds>`. */
function startToken(g: readonly string[]): string | undefined {
  const [month, day, h, m, s, year] = g;
  const index = MONTHS.indexOf(month ?? '');
  if (index === -1) return undefined;
  const ms = Date.UTC(Number(year), index, Number(day), Number(h), Number(m), Number(s));
  return `${EPOCH_PREFIX}${ms / 1000}`;
}

/** One `ps -o pid=,ppid=,pgid=,stat=,lstart=` line; undefined for anything else. */
export function parseEntryLine(line: string): ProcessEntry | undefined {
  const m = ENTRY_LINE.exec(line);
  const startTime = m ? startToken(m.slice(5)) : undefined;
  if (!m || startTime === undefined) return undefined;
  return { pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), state: m[4] as string, startTime };
}

function parseEntries(output: string | undefined): ProcessEntry[] | undefined {
  if (output === undefined) return undefined;
  const entries: ProcessEntry[] = [];
  for (const line of output.split('\n')) {
    const entry = parseEntryLine(line);
    if (entry) entries.push(entry);
  }
  return entries;
}

/**
 * The value of `name` in the environment ps printed after a command line: the text after the
 * command itself (printed alone by a second ps), so an argument that spells the variable is not
 * taken for it. Undefined when the variable is not there or the command changed (an exec) meanwhile.
 */
export function environmentValue(withEnvironment: string, command: string, name: string): string | undefined {
  if (!withEnvironment.startsWith(command)) return undefined;
  const environment = ` ${withEnvironment.slice(command.length)}`;
  const at = environment.indexOf(` ${name}=`);
  if (at === -1) return undefined;
  const value = environment.slice(at + name.length + 2);
  const end = value.indexOf(' ');
  return end === -1 ? value : value.slice(0, end);
}

function commandsOf(pids: readonly number[]): Map<number, string> {
  const commands = new Map<number, string>();
  const output = runPs(['-ww', '-o', 'pid=,command=', '-p', pids.join(',')]) ?? '';
  for (const line of output.split('\n')) {
    const m = /^ *(\d+) (.*)$/.exec(line);
    if (m) commands.set(Number(m[1]), m[2] as string);
  }
  return commands;
}

function psMarked(name: string): MarkedEntry[] | undefined {
  const output = runPs(['-A', '-ww', ENVIRONMENT_FLAG, '-o', 'pid=,stat=,lstart=,command=']);
  if (output === undefined) return undefined;
  const candidates: { pid: number; startTime: string; text: string }[] = [];
  for (const line of output.split('\n')) {
    // Most lines lack the name: the regex runs only on the few that have it.
    if (!line.includes(`${name}=`)) continue;
    const m = MARKED_LINE.exec(line);
    const startTime = m ? startToken(m.slice(3, 9)) : undefined;
    const pid = Number(m?.[1]);
    if (!m || startTime === undefined || pid === process.pid || m[2]?.startsWith('Z')) continue;
    candidates.push({ pid, startTime, text: m[9] as string });
  }
  if (candidates.length === 0) return [];
  const commands = commandsOf(candidates.map((c) => c.pid));
  const found: MarkedEntry[] = [];
  for (const c of candidates) {
    const command = commands.get(c.pid);
    const mark = command === undefined ? undefined : environmentValue(c.text, command, name);
    if (mark !== undefined) found.push({ pid: c.pid, startTime: c.startTime, mark });
  }
  return found;
}

function psEntry(pid: number): ProcessEntry | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return parseEntries(runPs(['-o', ENTRY_COLUMNS, '-p', String(pid)]))?.find((e) => e.pid === pid);
}

/**
 * The process table from ps (macOS, or forced): one ps call per question, start times to the
 * second, and every sweep reads every process's environment (ps cannot list only new ones).
 */
export const psTable: ProcessTable = {
  kind: 'ps',
  entry: psEntry,
  entries: () => parseEntries(runPs(['-A', '-o', ENTRY_COLUMNS])),
  command: (pid) => (Number.isInteger(pid) && pid > 0 ? commandsOf([pid]).get(pid) : undefined),
  startedAtMs: (pid) => {
    const token = psEntry(pid)?.startTime;
    return token === undefined ? undefined : Number(token.slice(EPOCH_PREFIX.length)) * 1000;
  },
  // /proc's clock ticks cannot be converted without /proc: a start recorded there is not judged.
  sameStart: (recorded, pid) => {
    if (!recorded.startsWith(EPOCH_PREFIX)) return undefined;
    const now = psEntry(pid)?.startTime;
    return now === undefined ? undefined : now === recorded;
  },
  scanPoint: () => ({ count: undefined, pid: undefined }),
  marked: (name) => psMarked(name),
};
