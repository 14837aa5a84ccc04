import { join } from 'node:path';
import type { AgentCliName, BackendName, RalphConfig } from '../config/schema.ts';
import type { Backend } from './types.ts';

/** Every backend that has a definition: all `cli.backend` values but `auto`, which picks one of them. */
export type DefinedBackendName = Exclude<BackendName, 'auto'>;

/** A place a CLI keeps its login; `holds` looks inside without returning anything of it. */
export interface CredentialFile {
  path: string;
  holds?: (text: string) => boolean;
}

/** How to tell whether a CLI has credentials, judged only by their presence (never read out). */
export interface AuthProbe {
  /** How to log in when no credentials are found. */
  login: string;
  /** Any of these set (non-empty) means credentials are configured. */
  env: readonly string[];
  /** The files that hold a login, for this environment and home directory. */
  files(env: NodeJS.ProcessEnv, home: string): CredentialFile[];
  /** Why credentials may exist where Ralph cannot see them (a keychain, another CLI's login). */
  hidden?(env: NodeJS.ProcessEnv, home: string): string | undefined;
}

/** The command of an interactive agent session: it owns the terminal, so the prompt is an argument. */
export interface InteractiveInvocation {
  command: string;
  args: string[];
  /** The backend's own additions to the agent environment, as its headless invocation has them. */
  env?: Record<string, string> | undefined;
}

export interface InteractiveOptions {
  /** Resolves a relative `cli.fake_script`; the session runs here. */
  workspace?: string | undefined;
  /** Arguments after `--` on the ralph command line, placed before the prompt. */
  extraArgs?: readonly string[] | undefined;
}

/**
 * Everything Ralph knows about one backend, in one object: adding a backend is its definition file
 * plus one line in the registry's list (and its name in config/schema.ts, which validates it).
 */
export interface BackendDefinition {
  readonly name: DefinedBackendName;
  /** The adapter (invocation, parser, exit classifier), configured from `config` as this backend sees it. */
  adapter(config: RalphConfig): Backend;
  /**
   * `ralph plan`: the command that opens the backend interactively with `prompt` as its first
   * message. Absent: it has no interactive mode Ralph knows.
   */
  interactive?(config: RalphConfig, prompt: string, opts: InteractiveOptions): InteractiveInvocation;
  /** Variables that make the CLI refuse to start inside one of its own sessions (removed for every agent). */
  readonly nestingGuards?: readonly string[];
  /**
   * It has no executable of its own (`custom`): only `cli.command` (as the loop's backend) or a
   * hat's `command` gives it one, so a fallback or reviewer on it has nothing to run.
   */
  readonly needsCommand?: boolean;
  /**
   * The flag its CLI takes a model with (`--model`, `-m`; Amp's `--mode`): `cli.model` and each
   * rung of `cli.models` reach it there. Absent: the CLI takes no model, and `models` is refused.
   */
  readonly modelFlag?: string;
  /** What Ralph does differently on this host for this backend, for `ralph doctor`. */
  hostNotes?(): string[];
  /**
   * Its config, credential and session locations (absolute), which `sandbox: on` leaves readable and
   * writable; a missing directory among them is made at run start (else the CLI's writes there would
   * land in the sandbox's throwaway home), a missing file is skipped.
   */
  sandboxHome?(env: NodeJS.ProcessEnv, home: string): string[];
  /** Which entries of sandboxHome are files (never made); the rest are directories. */
  sandboxHomeFiles?(env: NodeJS.ProcessEnv, home: string): string[];
  /** Its own sandbox (`sandbox: native`): what it covers and what it does not. Absent: `native` is refused for it. */
  nativeSandbox?: { covers: string; misses: string };
}

/** An agent CLI Ralph finds on PATH: a definition with the facts to find, install and log in to it. */
export interface AgentCliDefinition extends BackendDefinition {
  readonly name: AgentCliName;
  /** The executable `cli.backend: auto` and the doctor look for (`cli.command` replaces it). */
  readonly executable: string;
  /** How to install it. */
  readonly install: string;
  readonly auth: AuthProbe;
  /** Required of an agent CLI: without its own files readable and writable it cannot run under `sandbox: on`. */
  sandboxHome(env: NodeJS.ProcessEnv, home: string): string[];
}

/** True for the definitions of agent CLIs (not `custom` or `fake`). */
export function isAgentCli(definition: BackendDefinition): definition is AgentCliDefinition {
  return 'executable' in definition;
}

/** A `.env` file that assigns one of `names` a value (the value itself is never kept). */
export const envFileSets =
  (names: readonly string[]) =>
  (text: string): boolean =>
    names.some((n) => new RegExp(`^[ \\t]*(?:export[ \\t]+)?${n}[ \\t]*=[ \\t]*[^\\s#]`, 'm').test(text));

/** An environment directory variable, or its default when unset or empty. */
export const dirOr = (value: string | undefined, fallback: string): string => value || fallback;

/** The XDG base directories, by kind, with their defaults under home (specifications.freedesktop.org/basedir-spec). */
const XDG_DEFAULTS = {
  config: ['XDG_CONFIG_HOME', '.config'],
  data: ['XDG_DATA_HOME', '.local/share'],
  state: ['XDG_STATE_HOME', '.local/state'],
  cache: ['XDG_CACHE_HOME', '.cache'],
} as const;

/** `$XDG_<KIND>_HOME`, or its default under home when unset or empty. */
export const xdgDir = (kind: keyof typeof XDG_DEFAULTS, env: NodeJS.ProcessEnv, home: string): string =>
  dirOr(env[XDG_DEFAULTS[kind][0]], join(home, XDG_DEFAULTS[kind][1]));

/** True when Ralph runs as root (where Claude Code refuses --dangerously-skip-permissions). */
export const runningAsRoot = (): boolean => process.getuid?.() === 0;

/** Why credentials may exist unseen on macOS: the Keychain. */
export const macKeychain = (): string | undefined =>
  process.platform === 'darwin' ? 'the macOS Keychain may hold the login' : undefined;
