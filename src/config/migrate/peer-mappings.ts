import { AGENT_CLI_NAMES, BACKEND_ALIASES } from '../schema/backend-names.ts';
import { parseRalphrc, parseTomlScalars } from './peer-files.ts';

// `ralph init --from <peer>` as pure functions: the peer project's files in, the equivalent
// ralph.yml settings and one line per file or setting (what maps, what does not and why) out.

/** The loops `ralph init --from` reads. */
export const PEERS = ['snarktank', 'ralph-tui', 'frankbria', 'ralph-orchestrator'] as const;
/** One of {@link PEERS}. */
export type Peer = (typeof PEERS)[number];

/** The files a peer's project may hold (relative to it), read if they exist. */
export const PEER_FILES: Record<Peer, readonly string[]> = {
  snarktank: ['prd.json', 'prompt.md', 'progress.txt', 'CLAUDE.md', 'ralph.sh'].flatMap((f) => [
    f,
    `scripts/ralph/${f}`,
  ]),
  'ralph-tui': ['.ralph-tui/config.toml', 'prd.json', 'tasks/prd.json', '.beads/config.yaml', 'progress.md'],
  frankbria: [
    '.ralphrc',
    '.ralph/PROMPT.md',
    '.ralph/fix_plan.md',
    '.ralph/@fix_plan.md',
    '.ralph/AGENT.md',
    '.ralph/@AGENT.md',
    'PROMPT.md',
    '@fix_plan.md',
    'fix_plan.md',
    '@AGENT.md',
  ],
  'ralph-orchestrator': ['ralph.yml', 'ralph.yaml', 'PROMPT.md'],
};

/** What `init --from` found: the peer's files that exist, by path, with their text. */
export type PeerFiles = ReadonlyMap<string, string>;

/** One line of the report: a file or setting of the peer and where it went, or why it went nowhere. */
export type MigrationLine = { from: string; to: string } | { from: string; none: string };

/** The ralph.yml settings (dotted keys, in order) and the report. */
export interface Migration {
  settings: Array<[key: string, value: unknown]>;
  lines: MigrationLine[];
}

/** One line of text for a report line. */
export function describeLine(line: MigrationLine): string {
  return 'to' in line
    ? `maps:         ${line.from} → ${line.to}`
    : `does not map: ${line.from} — ${line.none}`;
}

/** A migration under construction. */
function builder() {
  const m: Migration = { settings: [], lines: [] };
  return {
    m,
    set(from: string, key: string, value: unknown, shown = `${key}: ${JSON.stringify(value)}`) {
      m.settings.push([key, value]);
      m.lines.push({ from, to: shown });
    },
    none(from: string, why: string) {
      m.lines.push({ from, none: why });
    },
  };
}

const first = (files: PeerFiles, paths: readonly string[]) => paths.find((p) => files.has(p));
const isAgentCli = (name: string): boolean => (AGENT_CLI_NAMES as readonly string[]).includes(name);

/** snarktank/ralph: prompt.md, prd.json (userStories with passes), progress.txt, `<promise>COMPLETE</promise>`. */
export function fromSnarktank(files: PeerFiles): Migration {
  const b = builder();
  const dir = files.has('scripts/ralph/prd.json') && !files.has('prd.json') ? 'scripts/ralph/' : '';
  const prompt = first(files, [`${dir}prompt.md`, `${dir}CLAUDE.md`]);
  if (prompt) b.set(prompt, 'event_loop.prompt_file', prompt);
  if (files.has(`${dir}prd.json`)) {
    b.set(
      `${dir}prd.json`,
      'tasks.source',
      'prd.json',
      'tasks.source: prd.json (a story with passes: true is closed)',
    );
    if (dir) b.set(`${dir}prd.json`, 'tasks.prd', `${dir}prd.json`);
  }
  b.set('<promise>COMPLETE</promise>', 'event_loop.completion_promise', 'COMPLETE');
  if (files.has(`${dir}progress.txt`))
    b.none(`${dir}progress.txt`, 'kept as it is: the prompt tells the agent to read and append it');
  if (prompt === `${dir}prompt.md` && files.has(`${dir}CLAUDE.md`))
    b.none(`${dir}CLAUDE.md`, `ralph.sh --tool claude's prompt; Ralph gives every backend ${prompt}`);
  if (files.has(`${dir}ralph.sh`))
    b.none(
      `${dir}ralph.sh`,
      'not needed: `ralph run` is the loop (its --tool is cli.backend, its count --max-iterations)',
    );
  return b.m;
}

/** ralph-tui: `.ralph-tui/config.toml`, its json tracker (prd.json) or beads. */
export function fromRalphTui(files: PeerFiles): Migration {
  const b = builder();
  const toml = parseTomlScalars(files.get('.ralph-tui/config.toml') ?? '');
  const at = (key: string) => `.ralph-tui/config.toml ${key}`;
  const tracker = String(toml.get('tracker') ?? (first(files, ['prd.json', 'tasks/prd.json']) ? 'json' : ''));
  const prd = String(
    toml.get('trackerOptions.path') ?? first(files, ['prd.json', 'tasks/prd.json']) ?? 'prd.json',
  );
  if (tracker === 'json') {
    b.set(at('tracker = "json"'), 'tasks.source', 'prd.json', 'tasks.source: prd.json');
    if (prd !== 'prd.json') b.set(prd, 'tasks.prd', prd);
  } else if (tracker.startsWith('beads')) {
    b.set(
      at(`tracker = "${tracker}"`),
      'tasks.source',
      'beads',
      'tasks.source: beads (reads .beads/issues.jsonl)',
    );
    b.none(
      'ralph-tui run --epic ID',
      'its epic is a run flag there: set tasks.beads.epic to work on one epic',
    );
  } else if (tracker)
    b.none(
      at(`tracker = "${tracker}"`),
      'no such Ralph task source (Ralph has file, github, prd.json, beads)',
    );
  b.set('<promise>COMPLETE</promise>', 'event_loop.completion_promise', 'COMPLETE');
  const agent = toml.get('agent');
  if (typeof agent === 'string') {
    const name = BACKEND_ALIASES[agent] ?? agent;
    if (isAgentCli(name)) b.set(at(`agent = "${agent}"`), 'cli.backend', name);
    else b.none(at(`agent = "${agent}"`), 'not a Ralph backend: set cli.backend: custom and cli.command');
  }
  const model = toml.get('model');
  if (typeof model === 'string') b.set(at('model'), 'cli.model', model);
  const max = toml.get('maxIterations');
  if (typeof max === 'number' && max >= 1) b.set(at('maxIterations'), 'event_loop.max_iterations', max);
  const delay = toml.get('iterationDelay');
  if (typeof delay === 'number')
    b.set(at('iterationDelay'), 'event_loop.cooldown_delay_seconds', delay / 1000);
  const commit = toml.get('autoCommit');
  if (typeof commit === 'boolean') b.set(at('autoCommit'), 'git.commit', commit);
  const template = toml.get('prompt_template');
  if (typeof template === 'string')
    b.none(
      at('prompt_template'),
      'a Handlebars template; Ralph assembles its own prompt: put your instructions in PROMPT.md',
    );
  if (!first(files, ['PROMPT.md']))
    b.none(
      '(no prompt file)',
      'ralph-tui builds the prompt from each task; write PROMPT.md with the project instructions',
    );
  const progress = toml.get('progressFile');
  if (typeof progress === 'string') b.set(at('progressFile'), 'context.journal', progress);
  return b.m;
}

/** The `.ralphrc` keys Ralph has no place for, and why. */
const RALPHRC_UNMAPPED: Record<string, string> = {
  ALLOWED_TOOLS: 'Ralph runs the agent with permission prompts off; confine it with sandbox: on',
  SESSION_CONTINUITY: 'every Ralph iteration is a fresh agent process (state lives in files and git)',
  MAX_CALLS_PER_HOUR: 'Ralph caps a run by iterations, cost and time (event_loop.max_*), not calls per hour',
  CB_NO_PROGRESS_THRESHOLD: 'Ralph stops a loop that repeats itself without changing files (stale_loop)',
  CLAUDE_OUTPUT_FORMAT: 'Ralph reads each backend in its own structured output',
};

/** frankbria/ralph-claude-code: `.ralph/PROMPT.md`, `fix_plan.md` (a checklist), `.ralphrc`. */
export function fromFrankbria(files: PeerFiles): Migration {
  const b = builder();
  const rc = parseRalphrc(files.get('.ralphrc') ?? '');
  const inRalph = (name: string | undefined) => (name ? `.ralph/${name}` : undefined);
  const prompt = first(files, [inRalph(rc.get('PROMPT_FILE')) ?? '', '.ralph/PROMPT.md', 'PROMPT.md']);
  if (prompt) b.set(prompt, 'event_loop.prompt_file', prompt);
  const plan = first(files, [
    inRalph(rc.get('FIX_PLAN_FILE')) ?? '',
    '.ralph/fix_plan.md',
    '.ralph/@fix_plan.md',
    '@fix_plan.md',
    'fix_plan.md',
  ]);
  if (plan)
    b.set(
      plan,
      'completion.checklist',
      plan,
      `completion.checklist: ${plan} (done when every - [ ] is checked)`,
    );
  b.set('ralph_loop.sh (it runs Claude Code)', 'cli.backend', BACKEND_ALIASES['claude-code'] as string);
  const agent = first(files, ['.ralph/AGENT.md', '.ralph/@AGENT.md', '@AGENT.md']);
  if (agent)
    b.none(
      agent,
      'build and test notes the prompt should tell the agent to read; its test command fits gates.validate',
    );
  const timeout = Number(rc.get('CLAUDE_TIMEOUT_MINUTES'));
  if (Number.isFinite(timeout) && timeout > 0)
    b.set('.ralphrc CLAUDE_TIMEOUT_MINUTES', 'event_loop.iteration_timeout_seconds', timeout * 60);
  const sources = (rc.get('TASK_SOURCES') ?? '').split(',').map((s) => s.trim());
  if (sources.includes('github')) {
    b.set('.ralphrc TASK_SOURCES=github', 'tasks.source', 'github');
    const label = rc.get('GITHUB_TASK_LABEL');
    if (label) b.set('.ralphrc GITHUB_TASK_LABEL', 'tasks.github.label', label);
  }
  if (sources.includes('beads') && !sources.includes('github'))
    b.set(
      '.ralphrc TASK_SOURCES=beads',
      'tasks.source',
      'beads',
      'tasks.source: beads (reads .beads/issues.jsonl)',
    );
  else if (sources.includes('beads'))
    b.none('.ralphrc TASK_SOURCES=beads', 'Ralph reads one task source beside its own: github was taken');
  for (const [key, why] of Object.entries(RALPHRC_UNMAPPED)) if (rc.has(key)) b.none(`.ralphrc ${key}`, why);
  b.none(
    'RALPH_STATUS / EXIT_SIGNAL',
    'Ralph completes on the checklist being done (and its own promise), not a status block',
  );
  if (prompt?.startsWith('.ralph/') || plan?.startsWith('.ralph/'))
    b.none(
      '.ralph/',
      "is also Ralph's state directory: edits there do not count as the agent's work, a rollback leaves them and sandbox: on makes it read-only; move the files out and re-point ralph.yml for those",
    );
  return b.m;
}

/** ralph-orchestrator: its ralph.yml is Ralph's format already; nothing is written. */
export function fromRalphOrchestrator(files: PeerFiles): Migration {
  const b = builder();
  const config = first(files, ['ralph.yml', 'ralph.yaml']);
  if (config)
    b.m.lines.push({ from: config, to: 'read as it is (ralph config validate says what Ralph ignores)' });
  return b.m;
}

/** The migration of a peer's project (pure). */
export function migratePeer(peer: Peer, files: PeerFiles): Migration {
  if (peer === 'snarktank') return fromSnarktank(files);
  if (peer === 'ralph-tui') return fromRalphTui(files);
  if (peer === 'frankbria') return fromFrankbria(files);
  return fromRalphOrchestrator(files);
}

/** Which peer's files these are, if any (pure): their telltale files, most specific first. */
export function detectPeer(files: PeerFiles): Peer | undefined {
  if (files.has('.ralph-tui/config.toml')) return 'ralph-tui';
  if (files.has('.ralphrc') || files.has('.ralph/PROMPT.md') || files.has('@fix_plan.md')) return 'frankbria';
  if (['prd.json', 'scripts/ralph/prd.json'].some((p) => /"userStories"/.test(files.get(p) ?? '')))
    return 'snarktank';
  return undefined;
}
