import { ConfigError, RalphError } from '../errors.ts';
import { depthOf, isWithin, isWithinOrEqual, normalPath, tildePath } from './sandbox-paths.ts';
import { policyRules, type SourcedRule } from './sandbox-rules.ts';
import { homeSecrets } from './sandbox-secrets.ts';
import type { SandboxAccess, SandboxPolicy, SandboxPolicyInput, SandboxRule } from './sandbox-types.ts';

/**
 * The policy of `sandbox: on` (docs/guide/sandbox.md): the system read-only, a private /tmp, the
 * home hidden but for git's identity, the runtime, the agent CLI's config and the allow lists; the
 * workspace writable except git's control files, `.ralph/` (but the agent's own files), the config,
 * prompt, protected and gate files. Pure. Throws a ConfigError naming the `sandbox.allow_*` entry
 * that would show a credential store (`~/.ssh` …) or open a read-only file for writing again.
 */
export function sandboxPolicy(input: SandboxPolicyInput): SandboxPolicy {
  const home = normalPath(input.home);
  if (home === '/')
    throw new RalphError('preflight', 'sandbox: HOME is /; set HOME to a directory of its own');
  const sourced = dropNarrowing(policyRules(input));
  refuseSecretOpenings(sourced, home, input.configFiles[0]);
  refuseGuardOpenings(sourced, normalPath(input.workspace), input.configFiles[0]);
  return {
    workspace: normalPath(input.workspace),
    home,
    rules: sourced.map((s) => s.rule),
    network: input.settings.network,
  };
}

/** A read-only widening inside a writable rule would narrow it: an allow_read entry in the workspace is readable already. */
function dropNarrowing(sourced: SourcedRule[]): SourcedRule[] {
  const roWidening = (s: SourcedRule) => s.widening === true && s.rule.access === 'read-only';
  const core = sourced.filter((s) => !roWidening(s)).map((s) => s.rule);
  return sourced.filter((s) => !roWidening(s) || bestRule(core, s.rule.path)?.access !== 'read-write');
}

/** The best rule for a path among `rules`: the deepest that holds it, the later of two at one depth. */
function bestRule(rules: readonly SandboxRule[], path: string): SandboxRule | undefined {
  let best: SandboxRule | undefined;
  for (const rule of rules)
    if (isWithinOrEqual(path, rule.path) && (best === undefined || depthOf(rule.path) >= depthOf(best.path)))
      best = rule;
  return best;
}

/**
 * What the sandbox lets the agent do with `absPath`, and the rule that decides it: the deepest rule
 * holding the path, the later of two for the same path (as the mounts are made). No rule: read-only.
 */
export function accessOf(
  policy: SandboxPolicy,
  absPath: string,
): { access: SandboxAccess; rule: SandboxRule | undefined } {
  const rule = bestRule(policy.rules, normalPath(absPath));
  return { access: rule?.access ?? 'read-only', rule };
}

function refusal(s: SourcedRule, why: string, configFile: string | undefined): RalphError {
  if (s.source.startsWith('sandbox.'))
    return new ConfigError([
      {
        file: configFile ?? 'ralph.yml',
        line: 0,
        col: 0,
        path: s.source,
        message: `"${s.written}" ${why}; name a narrower path, or use \`sandbox: off\` to run without the sandbox`,
      },
    ]);
  return new RalphError(
    'preflight',
    `sandbox: the ${s.source} ${s.rule.path} ${why}; use \`sandbox: off\` to run without the sandbox`,
  );
}

/** No rule may show a credential store again: not a parent of one at or below home, not a part of one. */
function refuseSecretOpenings(sourced: SourcedRule[], home: string, configFile: string | undefined): void {
  const rules = sourced.map((s) => s.rule);
  for (const secret of homeSecrets(home)) {
    const shown = tildePath(secret, home);
    const rule = bestRule(rules, secret);
    const inside = sourced.find((s) => s.rule.access !== 'hidden' && isWithin(s.rule.path, secret));
    const opener = rule?.access !== 'hidden' ? sourced.find((s) => s.rule === rule) : inside;
    if (opener)
      throw refusal(
        opener,
        `would show ${shown} to the agent (credentials stay hidden in the sandbox)`,
        configFile,
      );
  }
}

/**
 * No writable rule may sit below a read-only file Ralph guards (a git hook, `.ralph/`, a protected
 * test) but where it is meant to (the agent's files in `.ralph/`, a worktree's own git files): an
 * allow_write entry there is the user's to fix; a guard holding the workspace is Ralph's input.
 */
/** The guards that come from a list of the input (what the user protects), not from Ralph's layout. */
const LISTED_GUARDS = new Set(['config', 'prompt', 'protected', 'gate']);

function refuseGuardOpenings(
  sourced: SourcedRule[],
  workspace: string,
  configFile: string | undefined,
): void {
  const ralphDir = `${workspace}/.ralph`;
  const guards = sourced.filter((s) => s.guard);
  for (const w of sourced.filter((s) => s.rule.access === 'read-write')) {
    // In the workspace the agent's own files are under .ralph/ (outside it, e.g. doctor --probe's
    // events file in a temp dir, they open nothing of the work).
    if (
      w.source === 'agent file' &&
      !isWithin(w.rule.path, ralphDir) &&
      isWithinOrEqual(w.rule.path, workspace)
    )
      throw refusal(w, `is not inside ${ralphDir}, where the agent's own files are`, configFile);
    // The agent's files sit inside `.ralph/`'s own guard on purpose (a worktree's git files inside
    // worktrees/); a listed guard on the same path (a gates.protect entry naming `.ralph/`, say)
    // would be opened by them, so it is refused.
    const meant = (g: SourcedRule) => g.rule.path === w.within && !LISTED_GUARDS.has(g.source);
    const guard = guards.find((g) => isWithin(w.rule.path, g.rule.path) && !meant(g));
    if (guard === undefined) continue;
    if (w.widening)
      throw refusal(w, `would make ${guard.rule.path} (${guard.rule.reason}) writable`, configFile);
    throw refusal(
      guard,
      `holds the ${w.source} ${w.rule.path}, which the agent must write; name paths inside it`,
      configFile,
    );
  }
}

/** One line per rule (access, path with `~` for home, why), then the network and /tmp: `--dry-run` and `ralph doctor`. */
export function describePolicy(policy: SandboxPolicy): string[] {
  const lines = policy.rules.map((rule) => {
    const when = rule.optional ? ' (if present)' : '';
    return `${rule.access.padEnd(10)} ${tildePath(rule.path, policy.home)}  ${rule.reason}${when}`;
  });
  lines.push(
    policy.network === 'on'
      ? "network    the host's (sandbox.network: off for none)"
      : 'network    none (sandbox.network: off)',
  );
  lines.push('/dev, /proc fresh; processes in a PID namespace of their own, killed with the agent');
  return lines;
}
