import { expandPath } from './sandbox-paths.ts';
import { accessOf } from './sandbox-policy.ts';
import type { SandboxDenial, SandboxPolicy } from './sandbox-types.ts';

/** How many denials one output yields at most (the record and `ralph explain` show them all). */
export const MAX_DENIALS = 20;
const MAX_EVIDENCE = 300;

/** The words tools print for a write the OS refused (coreutils, bash, node, git, python). */
const REFUSED_WRITE =
  /read-only file system|EROFS|\[Errno 30\]|permission denied|EACCES|\[Errno 13\]|resource busy|EBUSY|Operation not permitted|EPERM/i;
/** …and for a path it cannot see (under a hidden directory). */
const NOT_FOUND = /no such file or directory|ENOENT|\[Errno 2\]/i;
/** Quoted paths: 'x', "x", ‘x’, `x`. */
const QUOTED = /'([^'\n]+)'|"([^"\n]+)"|‘([^’\n]+)’|`([^`\n]+)`/g;
/** An unquoted path right before the error: `cannot create .ralph/state.json: Read-only file system`. */
const BEFORE_ERROR =
  /(?:^|\s)([^\s'"‘’`]+):\s*(?:Read-only file system|Permission denied|No such file or directory|Device or resource busy|Operation not permitted)/gi;

function candidates(line: string): string[] {
  const found: string[] = [];
  for (const m of line.matchAll(QUOTED)) found.push((m[1] ?? m[2] ?? m[3] ?? m[4]) as string);
  for (const m of line.matchAll(BEFORE_ERROR)) found.push(m[1] as string);
  // A path looks like one: no spaces at its ends, not a bare word of a JSON stream.
  return found.map((c) => c.trim()).filter((c) => c.length > 0 && c.length < 4096 && /[/.~]/.test(c));
}

/**
 * The writes and reads the sandbox refused that the agent's output shows (a tool's error line:
 * `touch: cannot touch 'x': Read-only file system`, node's `EROFS: …, open 'x'`, git's `could not
 * lock config file .git/config`, python's `[Errno 30] …: 'x'`), each with the rule that refused
 * it: a refused write of a path the policy keeps read-only or hidden, a missing file under a
 * hidden directory. Relative paths are the workspace's. Pure; deduplicated by path; at most 20.
 */
export function explainDenials(output: string, policy: SandboxPolicy): SandboxDenial[] {
  const denials: SandboxDenial[] = [];
  const seen = new Set<string>();
  // A JSON stream carries a tool's lines as `\n` inside one line.
  for (const line of output.split(/\r?\n|\\n/)) {
    const write = REFUSED_WRITE.test(line);
    if (!write && !NOT_FOUND.test(line)) continue;
    for (const written of candidates(line)) {
      const path = expandPath(written, policy.home, policy.workspace);
      if (seen.has(path)) continue;
      const { access, rule } = accessOf(policy, path);
      const refused = write ? access !== 'read-write' : access === 'hidden';
      if (!refused || rule === undefined) continue;
      seen.add(path);
      denials.push({ path, rule, evidence: line.trim().slice(0, MAX_EVIDENCE) });
      if (denials.length >= MAX_DENIALS) return denials;
    }
  }
  return denials;
}
