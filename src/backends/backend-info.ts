import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AGENT_CLI_NAMES, type AgentCliName, configSchema } from '../config/schema.ts';
import { findExecutable } from '../process/find-executable.ts';
import { resolveBackend } from './registry.ts';

/** Whether a CLI has credentials, judged only by their presence (never read out, never printed). */
export type AuthState = 'configured' | 'missing' | 'unknown';

/** A place a CLI keeps its login; `holds` looks inside without returning anything of it. */
interface CredentialFile {
  path: string;
  holds?: (text: string) => boolean;
}

/** One agent CLI Ralph knows: how it is found, installed, and where its credentials live. */
export interface KnownBackend {
  name: AgentCliName;
  executable: string;
  /** How to install it. */
  install: string;
  /** How to log in when no credentials are found. */
  login: string;
  /** Any of these set (non-empty) means credentials are configured. */
  authEnv: readonly string[];
  credentialFiles(env: NodeJS.ProcessEnv, home: string): CredentialFile[];
  /** Why credentials may exist where Ralph cannot see them (a keychain, another CLI's login). */
  hiddenAuth?: (env: NodeJS.ProcessEnv, home: string) => string | undefined;
}

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
  authDetail: string;
  /** False while `resolveBackend` has no adapter for it. */
  implemented: boolean;
  install: string;
}

const VERSION_TIMEOUT_MS = 5000;
const macKeychain = () =>
  process.platform === 'darwin' ? 'the macOS Keychain may hold the login' : undefined;
const dir = (value: string | undefined, fallback: string) => value || fallback;
/** A `.env` file that assigns one of `names` a value (the value itself is never kept). */
const envFileSets =
  (names: readonly string[]) =>
  (text: string): boolean =>
    names.some((n) => new RegExp(`^[ \\t]*(?:export[ \\t]+)?${n}[ \\t]*=[ \\t]*[^\\s#]`, 'm').test(text));

const BACKENDS: readonly KnownBackend[] = [
  {
    // Claude Code keeps its login in $CLAUDE_CONFIG_DIR (default ~/.claude)/.credentials.json on Linux
    // and in the Keychain on macOS (code.claude.com/docs/en/authentication; CLI 2.1.329's bundle).
    name: 'claude',
    executable: 'claude',
    install: 'npm install -g @anthropic-ai/claude-code',
    login: 'run `claude`, then /login, or set ANTHROPIC_API_KEY',
    authEnv: [
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'CLAUDE_CODE_OAUTH_TOKEN',
      'CLAUDE_CODE_USE_BEDROCK',
      'CLAUDE_CODE_USE_VERTEX',
    ],
    credentialFiles: (env, home) => [
      { path: join(dir(env.CLAUDE_CONFIG_DIR, join(home, '.claude')), '.credentials.json') },
    ],
    hiddenAuth: macKeychain,
  },
  {
    // Codex: $CODEX_HOME (default ~/.codex)/auth.json after `codex login` (developers.openai.com/codex/auth).
    name: 'codex',
    executable: 'codex',
    install: 'npm install -g @openai/codex',
    login: 'run `codex login`, or set CODEX_API_KEY',
    authEnv: ['CODEX_API_KEY', 'OPENAI_API_KEY'],
    credentialFiles: (env, home) => [{ path: join(dir(env.CODEX_HOME, join(home, '.codex')), 'auth.json') }],
  },
  {
    // Gemini CLI: OAuth in ~/.gemini/oauth_creds.json, or gemini-credentials.json (its encrypted file
    // store); $GEMINI_CLI_HOME replaces the home directory; ~/.gemini/.env is loaded
    // (geminicli.com/docs/get-started/authentication; @google/gemini-cli 0.61.0's bundle).
    name: 'gemini',
    executable: 'gemini',
    install: 'npm install -g @google/gemini-cli',
    login: 'run `gemini` and sign in with Google, or set GEMINI_API_KEY',
    authEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI'],
    credentialFiles: (env, home) => {
      const base = join(dir(env.GEMINI_CLI_HOME, home), '.gemini');
      return [
        { path: join(base, 'oauth_creds.json') },
        { path: join(base, 'gemini-credentials.json') },
        { path: join(base, '.env'), holds: envFileSets(['GEMINI_API_KEY', 'GOOGLE_API_KEY']) },
      ];
    },
  },
  {
    // OpenCode: $XDG_DATA_HOME (default ~/.local/share)/opencode/auth.json after `opencode auth login`,
    // or OPENCODE_AUTH_CONTENT (opencode.ai/docs; opencode-ai 1.18.33's binary), or a provider's key.
    name: 'opencode',
    executable: 'opencode',
    install: 'npm install -g opencode-ai',
    login: 'run `opencode auth login`, or set a provider key such as ANTHROPIC_API_KEY',
    authEnv: [
      'OPENCODE_AUTH_CONTENT',
      'ANTHROPIC_API_KEY',
      'OPENAI_API_KEY',
      'GEMINI_API_KEY',
      'GOOGLE_GENERATIVE_AI_API_KEY',
      'OPENROUTER_API_KEY',
    ],
    credentialFiles: (env, home) => [
      { path: join(dir(env.XDG_DATA_HOME, join(home, '.local', 'share')), 'opencode', 'auth.json') },
    ],
    hiddenAuth: (env, home) => {
      if (env.OPENCODE_CONFIG_CONTENT) return 'OPENCODE_CONFIG_CONTENT may carry a provider key';
      const config = join(dir(env.XDG_CONFIG_HOME, join(home, '.config')), 'opencode');
      const file = ['opencode.json', 'opencode.jsonc'].map((f) => join(config, f)).find(existsSync);
      return file ? `${file} may carry a provider key` : undefined;
    },
  },
  {
    // Copilot CLI: COPILOT_GITHUB_TOKEN / GH_TOKEN / GITHUB_TOKEN, else the /login recorded in
    // $COPILOT_HOME (default ~/.copilot)/config.json, else gh's login
    // (docs.github.com/copilot/how-tos/copilot-cli/set-up-copilot-cli/authenticate-copilot-cli).
    name: 'copilot',
    executable: 'copilot',
    install: 'npm install -g @github/copilot',
    login: 'run `copilot`, then /login, or set COPILOT_GITHUB_TOKEN',
    authEnv: ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'],
    credentialFiles: (env, home) => [
      {
        path: join(dir(env.COPILOT_HOME, join(home, '.copilot')), 'config.json'),
        holds: (text) => /"logged_in_users"\s*:\s*\[\s*\{/.test(text),
      },
    ],
    hiddenAuth: (env, home) => {
      const hosts = join(dir(env.XDG_CONFIG_HOME, join(home, '.config')), 'gh', 'hosts.yml');
      return existsSync(hosts) ? 'Copilot falls back to the gh CLI login' : undefined;
    },
  },
  {
    // Cline CLI: `cline auth` writes $CLINE_DIR (default ~/.cline)/data/settings/providers.json;
    // $CLINE_DATA_DIR replaces data/ (docs.cline.bot/cli/configuration). Older CLIs: data/secrets.json.
    name: 'cline',
    executable: 'cline',
    install: 'npm install -g cline',
    login: 'run `cline auth`',
    authEnv: [],
    credentialFiles: (env, home) => {
      const data = dir(env.CLINE_DATA_DIR, join(dir(env.CLINE_DIR, join(home, '.cline')), 'data'));
      return [{ path: join(data, 'settings', 'providers.json') }, { path: join(data, 'secrets.json') }];
    },
  },
  {
    // Amp: AMP_API_KEY, or `amp login` into $XDG_DATA_HOME (default ~/.local/share)/amp/secrets.json
    // (ampcode.com manual). @sourcegraph/amp is deprecated in favour of @ampcode/cli (npm view).
    name: 'amp',
    executable: 'amp',
    install: 'npm install -g @ampcode/cli',
    login: 'run `amp login`, or set AMP_API_KEY',
    authEnv: ['AMP_API_KEY'],
    credentialFiles: (env, home) => [
      { path: join(dir(env.XDG_DATA_HOME, join(home, '.local', 'share')), 'amp', 'secrets.json') },
    ],
  },
  {
    // Cursor CLI: CURSOR_API_KEY, or `cursor-agent login` into ~/.config/cursor/auth.json (Linux),
    // ~/.cursor/auth.json, or the macOS Keychain (cursor.com/docs/cli/reference/authentication).
    name: 'cursor',
    executable: 'cursor-agent',
    install: 'curl https://cursor.com/install -fsS | bash',
    login: 'run `cursor-agent login`, or set CURSOR_API_KEY',
    authEnv: ['CURSOR_API_KEY'],
    credentialFiles: (env, home) => [
      { path: join(dir(env.XDG_CONFIG_HOME, join(home, '.config')), 'cursor', 'auth.json') },
      { path: join(home, '.cursor', 'auth.json') },
    ],
    hiddenAuth: macKeychain,
  },
  {
    // Qwen Code: OPENAI_API_KEY (OpenAI-compatible), ~/.qwen/.env, or the Qwen OAuth cache
    // ~/.qwen/oauth_creds.json; ~/.qwen/settings.json may configure other providers
    // (qwenlm.github.io/qwen-code-docs/en/cli/authentication).
    name: 'qwen',
    executable: 'qwen',
    install: 'npm install -g @qwen-code/qwen-code',
    login: 'run `qwen auth`, or set OPENAI_API_KEY',
    authEnv: ['OPENAI_API_KEY'],
    credentialFiles: (_env, home) => [
      { path: join(home, '.qwen', 'oauth_creds.json') },
      { path: join(home, '.qwen', '.env'), holds: envFileSets(['OPENAI_API_KEY']) },
    ],
    hiddenAuth: (_env, home) => {
      const settings = join(home, '.qwen', 'settings.json');
      return existsSync(settings) ? `${settings} may configure a provider key` : undefined;
    },
  },
];

/** The agent CLIs Ralph knows, in the order of AGENT_CLI_NAMES. */
export function knownBackends(): readonly KnownBackend[] {
  return AGENT_CLI_NAMES.flatMap((name) => BACKENDS.filter((b) => b.name === name));
}

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
  backend: KnownBackend,
  env: NodeJS.ProcessEnv,
): { auth: AuthState; authDetail: string } {
  const home = env.HOME || homedir();
  const set = backend.authEnv.filter((name) => (env[name] ?? '') !== '');
  if (set.length > 0) return { auth: 'configured', authDetail: `${set.join(', ')} set` };
  const file = backend.credentialFiles(env, home).find(fileHolds);
  if (file) return { auth: 'configured', authDetail: tilde(file.path, home) };
  const hidden = backend.hiddenAuth?.(env, home);
  if (hidden) return { auth: 'unknown', authDetail: tilde(hidden, home) };
  return { auth: 'missing', authDetail: backend.login };
}

function firstLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
}

function readVersion(path: string, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  try {
    const out = execFileSync(path, ['--version'], {
      timeout: VERSION_TIMEOUT_MS,
      env,
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return firstLine(out);
  } catch {
    return undefined;
  }
}

/** `readVersion` without blocking, so `ralph doctor` asks every CLI at once. */
function readVersionAsync(path: string, env: NodeJS.ProcessEnv, cwd: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(path, ['--version'], { env, cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    // A grandchild holding stdout open must not hold up the doctor.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(undefined);
    }, VERSION_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text;
    });
    child.on('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? firstLine(out) : undefined);
    });
  });
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
function locate(backend: KnownBackend, env: NodeJS.ProcessEnv, cwd: string): BackendInspection {
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

/** Is the CLI on PATH, which version, are credentials present, does Ralph have an adapter for it. */
export function inspectBackend(name: AgentCliName, env: NodeJS.ProcessEnv, cwd: string): BackendInspection {
  const info = locate(BACKENDS.find((b) => b.name === name)!, env, cwd);
  return info.path ? { ...info, version: readVersion(info.path, env, cwd) } : info;
}

/** `inspectBackend` for every known CLI, their `--version` calls run in parallel. */
export function inspectBackends(env: NodeJS.ProcessEnv, cwd: string): Promise<BackendInspection[]> {
  return Promise.all(
    knownBackends().map(async (backend) => {
      const info = locate(backend, env, cwd);
      return info.path ? { ...info, version: await readVersionAsync(info.path, env, cwd) } : info;
    }),
  );
}
