import { isAbsolute, join, relative } from 'node:path';
import type { SandboxAccess, SandboxPolicy, SandboxPolicyInput, SandboxRule } from './sandbox-types.ts';

/** `~/x` → `<home>/x`; other paths as given. */
function expandHome(path: string, home: string): string {
  return path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

/** The policy of `sandbox: on`: later rules override earlier ones below their path. */
export function sandboxPolicy(input: SandboxPolicyInput): SandboxPolicy {
  const rules: SandboxRule[] = [];
  const add = (path: string, access: SandboxAccess, reason: string, optional = true) =>
    rules.push({ path, access, reason, optional });
  add('/', 'read-only', 'system', false);
  add(input.home, 'hidden', 'home directory', false);
  add('/tmp', 'hidden', 'private /tmp', false);
  for (const p of input.runtimeReadOnly) add(p, 'read-only', 'runtime');
  for (const p of input.backendHome) add(p, 'read-write', 'backend config');
  for (const p of input.settings.allowRead) add(expandHome(p, input.home), 'read-only', 'sandbox.allow_read');
  for (const p of input.settings.allowWrite)
    add(expandHome(p, input.home), 'read-write', 'sandbox.allow_write');
  add(input.workspace, 'read-write', 'workspace', false);
  const gitDirs = [
    ...new Set([input.gitCommonDir, input.gitDir].filter((d): d is string => d !== undefined)),
  ];
  for (const dir of gitDirs) {
    add(dir, 'read-write', 'git directory');
    for (const f of ['hooks', 'config', 'info']) add(join(dir, f), 'read-only', 'git control file');
  }
  add(join(input.workspace, '.ralph'), 'read-only', 'ralph state');
  for (const p of input.configFiles) add(p, 'read-only', 'config file');
  for (const p of input.promptFiles) add(p, 'read-only', 'prompt file');
  for (const p of input.protectedPaths) add(p, 'read-only', 'protected');
  for (const p of input.gateFiles) add(p, 'read-only', 'gate file');
  for (const p of input.agentWritable) add(p, 'read-write', 'agent file');
  return { workspace: input.workspace, home: input.home, rules, network: input.settings.network };
}

function covers(parent: string, path: string): boolean {
  const rel = relative(parent, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The effective access of `absPath`: the last rule at or above it. */
export function accessOf(
  policy: SandboxPolicy,
  absPath: string,
): { access: SandboxAccess; rule: SandboxRule } {
  let found = policy.rules[0]!;
  for (const rule of policy.rules) if (covers(rule.path, absPath)) found = rule;
  return { access: found.access, rule: found };
}

/** The policy as lines for `--dry-run` and `ralph doctor`. */
export function describePolicy(policy: SandboxPolicy): string[] {
  return [
    ...policy.rules.map((r) => `${r.access.padEnd(10)} ${r.path} (${r.reason})`),
    `network    ${policy.network}`,
  ];
}
