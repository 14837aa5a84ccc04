import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import type { AgentCliDefinition, CredentialFile } from '../../backends/definition.ts';
import { knownBackends, resolveBackend } from '../../backends/registry.ts';
import { type AgentCliName, configSchema } from '../../config/schema.ts';
import { commandOutput } from '../../process/command-runner.ts';
import { findExecutable } from '../../process/find-executable.ts';

/** Whether a CLI has credentials, judged only by their presence (never read out, never printed). */
export type AuthState = 'configured' | 'missing' | 'unknown';

/** What `inspectBackend` learned about one agent CLI. */
export interface BackendInspection {
  name: AgentCliName;
  executable: string;
  installed: boolean;
  path?: string | undefined;
  /** First line of `<executable> --version`; undefined when it failed. */
  version?: string | undefined;
  auth: AuthState;
  /** Which variable or file holds the credentials (names and paths only), or what to do. */
  auth_detail: string;
  /** False while `resolveBackend` has no adapter for it. */
  implemented: boolean;
  install: string;
}

const VERSION_TIMEOUT_MS = 5000;

/** Shows paths under HOME as `~/…`. */
function tilde(text: string, home: string): string {
  return home.length > 1 ? text.split(`${home}/`).join('~/') : text;
}

function fileHolds(file: CredentialFile): boolean {
  if (!existsSync(file.path)) return false;
  if (!file.holds) return true;
  try {
    return file.holds(readFileSync(file.path, 'utf8'));
  } catch {
    return false;
  }
}

/** Where the credentials are (names and paths only), judged by presence. */
export function checkAuth(
  backend: AgentCliDefinition,
  env: NodeJS.ProcessEnv,
): { auth: AuthState; auth_detail: string } {
  const home = env.HOME || homedir();
  const { auth } = backend;
  const set = auth.env.filter((name) => (env[name] ?? '') !== '');
  if (set.length > 0) return { auth: 'configured', auth_detail: `${set.join(', ')} set` };
  const file = auth.files(env, home).find(fileHolds);
  if (file) return { auth: 'configured', auth_detail: tilde(file.path, home) };
  const hidden = auth.hidden?.(env, home);
  if (hidden) return { auth: 'unknown', auth_detail: tilde(hidden, home) };
  return { auth: 'missing', auth_detail: auth.login };
}

function firstLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
}

/** First line of `<path> --version`, in its own process group, killed with it on the deadline. */
async function readVersion(path: string, env: NodeJS.ProcessEnv, cwd: string): Promise<string | undefined> {
  const out = await commandOutput(path, ['--version'], { env, cwd, timeoutMs: VERSION_TIMEOUT_MS });
  return out === undefined ? undefined : firstLine(out);
}

function isImplemented(name: AgentCliName): boolean {
  try {
    resolveBackend(name, configSchema.parse({}));
    return true;
  } catch {
    return false;
  }
}

/** Everything but the version: PATH lookup, credentials, adapter. */
function locate(backend: AgentCliDefinition, env: NodeJS.ProcessEnv, cwd: string): BackendInspection {
  const found = findExecutable(backend.executable, env.PATH, cwd);
  return {
    name: backend.name,
    executable: backend.executable,
    installed: found.found,
    path: found.found ? found.path : undefined,
    version: undefined,
    ...checkAuth(backend, env),
    implemented: isImplemented(backend.name),
    install: backend.install,
  };
}

async function inspect(
  backend: AgentCliDefinition,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<BackendInspection> {
  const info = locate(backend, env, cwd);
  return info.path ? { ...info, version: await readVersion(info.path, env, cwd) } : info;
}

/** Is the CLI on PATH, which version, are credentials present, does Ralph have an adapter for it. */
export function inspectBackend(
  name: AgentCliName,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<BackendInspection> {
  return inspect(knownBackends().find((b) => b.name === name)!, env, cwd);
}

/** `inspectBackend` for every known CLI, their `--version` calls run in parallel. */
export function inspectBackends(env: NodeJS.ProcessEnv, cwd: string): Promise<BackendInspection[]> {
  return Promise.all(knownBackends().map((backend) => inspect(backend, env, cwd)));
}
