import { isAbsolute, resolve } from 'node:path';
import { accessOf } from './sandbox-policy.ts';
import type { SandboxDenial, SandboxPolicy } from './sandbox-types.ts';

const REFUSED = /(Read-only file system|Permission denied|No such file or directory)/;
const PATH = /(?:^|[\s:'"`])((?:\/|\.{0,2}\/?)[\w.@~+-][\w./@~+-]*)/g;

/** The writes and reads in `output` that the sandbox refused, each with the rule that refused it. */
export function explainDenials(output: string, policy: SandboxPolicy): SandboxDenial[] {
  const seen = new Set<string>();
  const out: SandboxDenial[] = [];
  for (const line of output.split('\n')) {
    if (!REFUSED.test(line)) continue;
    for (const match of line.matchAll(PATH)) {
      const raw = match[1]!;
      if (!raw.includes('/') && !raw.includes('.')) continue;
      const path = isAbsolute(raw) ? raw : resolve(policy.workspace, raw);
      const { access, rule } = accessOf(policy, path);
      if (access === 'read-write' || seen.has(path)) continue;
      seen.add(path);
      out.push({ path, rule, evidence: line.trim() });
    }
  }
  return out;
}
