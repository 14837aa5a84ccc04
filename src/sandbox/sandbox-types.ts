import type { SANDBOX_MODES } from '../config/schema/sandbox.ts';
import type { RalphConfig } from '../config/schema.ts';

/** `off`, `on` (Ralph's wrapper) or `native` (the backend's own sandbox). */
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** `sandbox:` as one shape, whichever form ralph.yml used (a bare mode or the object). */
export interface SandboxSettings {
  mode: SandboxMode;
  /** Absolute or `~/…` paths, as written. */
  allowRead: readonly string[];
  allowWrite: readonly string[];
  network: 'on' | 'off';
}

/** The settings of `config.sandbox` (a bare mode takes the object form's defaults). */
export function sandboxSettings(config: Pick<RalphConfig, 'sandbox'>): SandboxSettings {
  const s = config.sandbox;
  if (typeof s === 'string') return { mode: s, allowRead: [], allowWrite: [], network: 'on' };
  return { mode: s.mode, allowRead: s.allow_read, allowWrite: s.allow_write, network: s.network };
}

/** What the agent may do with one path: later rules win over earlier ones for the paths below them. */
export type SandboxAccess = 'read-write' | 'read-only' | 'hidden';

/** One line of the policy, as `ralph run --dry-run`, `ralph doctor` and `ralph explain` show it. */
export interface SandboxRule {
  /** Absolute path (a directory or a file). */
  path: string;
  access: SandboxAccess;
  /** Why, in a few words a user can act on: `git control file`, `protected (gates.protect: test/**)`, `claude config`, `sandbox.allow_read`. */
  reason: string;
  /** The path may not exist (a backend's config dir, an allow-list entry): then the rule is skipped, not an error. */
  optional?: boolean | undefined;
  /** When the path is missing, an empty read-only directory stands in for it, so nothing can be created there (git's `hooks/`). */
  placeholder?: boolean | undefined;
}

/** The policy of `sandbox: on` for one agent process (one definition, shown and enforced alike). */
export interface SandboxPolicy {
  /** The agent's working tree (the workspace, a worktree or a repository of `repos:`). */
  workspace: string;
  home: string;
  /** In order: a later rule for a path below an earlier one overrides it there. */
  rules: readonly SandboxRule[];
  network: 'on' | 'off';
}

/** What the policy is made from: every path absolute (globs already expanded to existing paths). */
export interface SandboxPolicyInput {
  workspace: string;
  /** `git rev-parse --absolute-git-dir` and `--git-common-dir` (they differ in a worktree); absent outside git. */
  gitDir?: string | undefined;
  gitCommonDir?: string | undefined;
  home: string;
  /** ralph.yml and every config layer it was read from. */
  configFiles: readonly string[];
  /** The prompt files (PROMPT.md, hat instruction files, `.ralph/prompts/…`). */
  promptFiles: readonly string[];
  /** Every protected path (gates.protect expanded, the built-in protections). */
  protectedPaths: readonly string[];
  /** The validate hook and the files the gate commands run. */
  gateFiles: readonly string[];
  /**
   * The backend's own config and credential locations (read-write; missing ones skipped). A file is
   * bound as a file: a CLI that replaces it by rename gets EBUSY, and one missing at start is created
   * in the throwaway home only; name the directory where there is one.
   */
  backendHome: readonly string[];
  /**
   * What the agent writes under `.ralph/` (scratchpad, tasks, memories, the events file, its
   * questions), each inside `.ralph/`. Files rewritten atomically (tasks, memories: a temp file
   * renamed over, beside a lock file) need their directory here (`.ralph/agent`); a file (the
   * events file, appended) must exist before the agent starts, or it is skipped.
   */
  agentWritable: readonly string[];
  /** Install locations the agent needs to run at all that may sit under home (node, Ralph, the agent CLI). */
  runtimeReadOnly: readonly string[];
  /** The directories of `skills.dirs` (`ralph tools skill load` reads them inside the sandbox); absent: none. */
  skillDirs?: readonly string[] | undefined;
  settings: SandboxSettings;
}

/** The command that runs one agent inside the sandbox (what the supervisor spawns). */
export interface WrappedCommand {
  command: string;
  args: string[];
  /** Every process it starts lives in a PID namespace the kernel empties when the wrapper exits (bwrap). */
  contained?: boolean | undefined;
}

/** Whether `sandbox: on` can work here, and if not, what to do. */
export type SandboxProbe =
  | { ok: true; tool: 'bwrap' | 'sandbox-exec'; path: string; version?: string | undefined }
  | {
      ok: false;
      /** `missing`: no bwrap/sandbox-exec; `userns`: the kernel refuses the namespaces; `platform`: no wrapper for this OS. */
      reason: 'missing' | 'userns' | 'platform' | 'failed';
      detail: string;
      /** The install line or kernel setting that makes it work. */
      fix: string;
    };

/** A write or read the sandbox refused, matched to the rule that refused it. */
export interface SandboxDenial {
  path: string;
  rule: SandboxRule;
  /** The line of the agent's output that showed it. */
  evidence: string;
}
