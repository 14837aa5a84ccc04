import { posix } from 'node:path';
import { expandPath, isWithin, isWithinOrEqual, normalPath } from './sandbox-paths.ts';
import type { SandboxPolicyInput, SandboxRule } from './sandbox-types.ts';

/** A rule with where it came from, so a refusal can name the entry (`sandbox.allow_read[0]`). */
export interface SourcedRule {
  rule: SandboxRule;
  /** `sandbox.allow_read[0]` for a user's entry; otherwise what Ralph gave (`backend home`, `workspace`). */
  source: string;
  /** What the user wrote, for an allow-list entry. */
  written?: string | undefined;
  /** A Ralph-owned read-only rule (git control, `.ralph/`, config, prompt, protected, gate). */
  guard?: boolean | undefined;
  /** A rule that opens more than the policy's core (backend home, runtime, allow lists, agent files). */
  widening?: boolean | undefined;
  /** The guard this writable rule is meant to sit in (the agent's files in `.ralph/`). */
  within?: string | undefined;
}

const GIT_REASON = 'git control file';

/** hooks/, info/ and modules/ stand as an empty read-only directory when missing, so none can be planted. */
function controlRules(gitDir: string, common: boolean): SourcedRule[] {
  const at = (name: string, rule: Partial<SandboxRule>): SourcedRule => ({
    rule: { path: posix.join(gitDir, name), access: 'read-only', reason: GIT_REASON, ...rule },
    source: 'git directory',
    guard: true,
  });
  const rules = [
    at('hooks', { placeholder: true }),
    // The repository's config must be there to be guarded; a worktree's own dir has none.
    at('config', common ? {} : { optional: true }),
    at('config.worktree', { optional: true }),
    at('info', { placeholder: true }),
  ];
  if (common) rules.push(at('modules', { placeholder: true }), at('worktrees', { placeholder: true }));
  else rules.push(at('commondir', { optional: true }), at('gitdir', { optional: true }));
  return rules;
}

/** The git directories' rules: their control files read-only, a worktree's common dir writable. */
export function gitRules(input: SandboxPolicyInput, workspace: string, home: string): SourcedRule[] {
  if (input.gitDir === undefined) return [];
  const gitDir = normalPath(input.gitDir);
  const common = normalPath(input.gitCommonDir ?? gitDir);
  const rules: SourcedRule[] = [];
  // A worktree's main working tree (its other worktrees inside) read-only: under the hidden home or
  // the private /tmp it would be the sandbox's throwaway directory, where a write seems to work.
  const main = posix.dirname(common);
  if (
    gitDir !== common &&
    posix.basename(common) === '.git' &&
    !isWithinOrEqual(workspace, common) &&
    !isWithinOrEqual(home, main)
  )
    rules.push({
      rule: { path: main, access: 'read-only', reason: 'the main working tree (and its other worktrees)' },
      source: 'main working tree',
    });
  if (!isWithinOrEqual(common, workspace))
    rules.push({
      rule: { path: common, access: 'read-write', reason: 'git objects and refs (shared by worktrees)' },
      source: 'git common directory',
    });
  rules.push(...controlRules(common, true));
  if (gitDir !== common) {
    // A linked worktree's own git files (index, HEAD) sit under the common dir's read-only worktrees/.
    if (isWithin(gitDir, common))
      rules.push({
        rule: { path: gitDir, access: 'read-write', reason: "this worktree's git files" },
        source: 'git directory',
        within: posix.join(common, 'worktrees'),
      });
    rules.push(...controlRules(gitDir, false).filter((r) => !r.rule.path.endsWith('/hooks')));
  }
  // A `.git` file (a worktree's) names the git directory git uses: rewritten, it could point anywhere.
  const dotGit = posix.join(workspace, '.git');
  if (gitDir !== dotGit)
    rules.push({
      rule: { path: dotGit, access: 'read-only', reason: GIT_REASON, optional: true },
      source: 'git directory',
      guard: true,
    });
  return rules;
}

/** Rules for one list of the input, each entry made absolute. */
export function listRules(
  paths: readonly string[],
  rule: Omit<SandboxRule, 'path'>,
  source: string,
  expand: (p: string) => string,
  flags: Pick<SourcedRule, 'guard' | 'widening' | 'within'> = {},
): SourcedRule[] {
  return paths.map((written, i) => ({
    rule: { path: expand(written), ...rule },
    source: source.startsWith('sandbox.') ? `${source}[${i}]` : source,
    written,
    ...flags,
  }));
}

/** Every rule of `sandbox: on` in order (later, deeper rules win); checks come after, in the policy. */
export function policyRules(input: SandboxPolicyInput): SourcedRule[] {
  const home = normalPath(input.home);
  const workspace = normalPath(input.workspace);
  const abs = (p: string) => expandPath(p, home, workspace);
  const ralphDir = posix.join(workspace, '.ralph');
  const ro = { access: 'read-only' as const, optional: true };
  const rw = { access: 'read-write' as const, optional: true };
  return [
    { rule: { path: '/', access: 'read-only', reason: 'system, read-only' }, source: 'system' },
    {
      rule: { path: '/tmp', access: 'hidden', reason: 'private /tmp (empty, discarded after)' },
      source: 'system',
    },
    { rule: { path: home, access: 'hidden', reason: 'your home directory (hidden)' }, source: 'home' },
    ...listRules(
      ['~/.gitconfig', '~/.config/git'],
      { ...ro, reason: 'your git identity' },
      'git identity',
      abs,
    ),
    ...listRules(
      input.runtimeReadOnly,
      { ...ro, reason: 'runtime (node, ralph, the agent CLI)' },
      'runtime',
      abs,
      {
        widening: true,
      },
    ),
    ...listRules(input.backendHome, { ...rw, reason: 'agent CLI config' }, 'backend home', abs, {
      widening: true,
    }),
    // Read-only where home hides them (a parent's .claude/skills); in the workspace they stay as it is.
    ...listRules(input.skillDirs ?? [], { ...ro, reason: 'skills.dirs' }, 'skills.dirs', abs, {
      widening: true,
    }),
    ...listRules(
      input.settings.allowRead,
      { ...ro, reason: 'sandbox.allow_read' },
      'sandbox.allow_read',
      abs,
      {
        widening: true,
      },
    ),
    ...listRules(
      input.settings.allowWrite,
      { ...rw, reason: 'sandbox.allow_write' },
      'sandbox.allow_write',
      abs,
      {
        widening: true,
      },
    ),
    { rule: { path: workspace, access: 'read-write', reason: 'your work' }, source: 'workspace' },
    ...gitRules(input, workspace, home),
    {
      rule: { path: ralphDir, access: 'read-only', reason: "Ralph's state", placeholder: true },
      source: '.ralph',
      guard: true,
    },
    ...listRules(
      input.agentWritable,
      { access: 'read-write', reason: 'agent file (tasks, memories, scratchpad, events)', optional: true },
      'agent file',
      abs,
      { widening: true, within: ralphDir },
    ),
    ...listRules(input.configFiles, { ...ro, reason: 'config' }, 'config', abs, { guard: true }),
    ...listRules(input.promptFiles, { ...ro, reason: 'prompt' }, 'prompt', abs, { guard: true }),
    ...listRules(input.protectedPaths, { ...ro, reason: 'protected (gates.protect)' }, 'protected', abs, {
      guard: true,
    }),
    ...listRules(input.gateFiles, { ...ro, reason: 'gate command' }, 'gate', abs, { guard: true }),
  ];
}
