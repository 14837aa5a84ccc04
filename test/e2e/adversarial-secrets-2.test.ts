import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';
import { fakeConfig, makeWorkspace, readState, runRalph } from '../helpers/workspace.ts';

// Issue 32, the red team's H7, H11 and H14: a line the agent appends that nests 200,000 deep, a
// webhook URL with a token, a cli.env value of no secret-looking name, and secrets the agent writes
// straight into its scratchpad, tasks and memories.

/** A secret-named variable of the run's environment (the agent has it). */
const ENV_SECRET = 'acme-Zq8vR2pL9xW4tY7u-adv2';
/** A Telegram bot token only in ralph.yml: the agent's environment never has it, the loop knows it. */
const BOT = '654321:AAE-yml-only-bot-token-h14';
const STACK_FRAME = /\n\s+at .+[(:]\d+/;

/** Every file under `dir` as [path, text]. */
function allFiles(dir: string): [string, string][] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile())
    .map((p) => [p, readFileSync(p, 'utf8')] as [string, string]);
}

/** Where any of `secrets` (or its first 10 characters: a subject is cut) shows. */
function leaks(secrets: string[], where: string, text: string): string[] {
  return secrets.filter((s) => text.includes(s.slice(0, 10))).map((s) => `${where}: ${s}`);
}

/** The user directories of one test, each a temp dir of its own. */
function userDirs(): NodeJS.ProcessEnv {
  const home = makeWorkspace();
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_STATE_HOME: join(home, 'state'),
  };
}

describe('an event line nested 200,000 deep (H7)', () => {
  it('is a damaged line: skipped with the notice, no stack trace from ralph run or ralph events, the run goes on', async () => {
    const deep = `{"topic":"a.b","payload":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 2 }),
      'deep.js': `require('fs').appendFileSync(process.env.RALPH_EVENTS_FILE, ${JSON.stringify(`${deep}\n`)});\n`,
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - run: node deep.js',
        '      - run: ralph emit after.deep fine',
        '      - print: step one',
        '  - do:',
        '      - save_prompt: prompt-2.md',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    const env = userDirs();
    const r = await runRalph(['run'], dir, env);
    expect(r.stdout + r.stderr).not.toMatch(/RangeError|unexpected error/);
    expect(r.stdout + r.stderr).not.toMatch(STACK_FRAME);
    expect(r.code, r.stderr).toBe(0);
    expect(readState(dir)).toMatchObject({ status: 'completed', iterations: 2 });
    expect(readFileSync(join(dir, 'prompt-2.md'), 'utf8')).toContain('after.deep');
    for (const args of [['events'], ['events', '--format', 'json'], ['status'], ['explain']]) {
      const out = await runRalph(args, dir, env);
      expect(out.stdout + out.stderr, args.join(' ')).not.toMatch(/RangeError|unexpected error/);
      expect(out.stdout + out.stderr, args.join(' ')).not.toMatch(STACK_FRAME);
      expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
    }
    const events = await runRalph(['events'], dir, env);
    // The event after the deep line counts; the loop recorded what it refused, and the reader says what it skipped.
    expect(events.stdout).toContain('after.deep');
    expect(events.stdout).toMatch(/event\.malformed +#1 loop +nested deeper than 64 levels/);
    expect(events.stderr).toMatch(
      /events-[^:]*\.jsonl: skipped 1 line\(s\) that are not events \(first: nested deeper than 64 levels\)/,
    );
  }, 60_000);
});

describe('config values secret by their place are one list for config output, the cache and the run redaction (H11)', () => {
  it('notify.webhook with a token: config show and explain mask it, the config cache never holds it', async () => {
    const hook = await webhookReceiver();
    onTestFinished(() => hook.close());
    const token = 'WebHookTok3n9876';
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}notify:\n  webhook: ${hook.url}?token=${token}\n  on: [stopped]\n`,
      'fake-agent.yml': ['turns:', '  - do:', '      - print: LOOP_COMPLETE'].join('\n'),
    });
    const env = userDirs();
    const show = await runRalph(['config', 'show'], dir, env);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/webhook: "?\*\*\* \(from /);
    const explain = await runRalph(['config', 'explain', '--json'], dir, env);
    const dry = await runRalph(['run', '--dry-run'], dir, env);
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stderr).toBe(0);
    // A second run reads the cache, if one was written.
    const again = await runRalph(['run', '--fresh'], dir, env);
    expect(again.code, again.stderr).toBe(0);
    // Not vacuous: the webhook (its URL is the user's, token and all) was posted to.
    expect(hook.got.length).toBeGreaterThan(0);
    expect([
      ...leaks([token], 'config show', show.stdout + show.stderr),
      ...leaks([token], 'config explain --json', explain.stdout + explain.stderr),
      ...leaks([token], 'run --dry-run', dry.stdout + dry.stderr),
      ...leaks([token], 'run', r.stdout + r.stderr + again.stdout + again.stderr),
      ...allFiles(env.XDG_CACHE_HOME as string).flatMap(([f, t]) => leaks([token], f, t)),
      ...allFiles(join(dir, '.ralph')).flatMap(([f, t]) => leaks([token], f, t)),
    ]).toEqual([]);
  }, 60_000);

  it('a cli.env value of no secret-looking name that the agent prints: redacted in the commit, the run log and stream.jsonl', async () => {
    const dbUrl = 'postgres://app:Pg5ecretPassH11@db.internal/app';
    const dir = makeGitWorkspace({
      '.gitignore': '.ralph/\n',
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}  env:\n    DB_URL: "${dbUrl}"\ngit:\n  commit: true\n`,
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - write: { path: feature.txt, content: "done\\n" }',
        '      - print: "connecting to {{env.DB_URL}}"',
        '      - result: { text: "migrated {{env.DB_URL}}\\n\\nLOOP_COMPLETE" }',
      ].join('\n'),
    });
    const env = userDirs();
    const show = await runRalph(['config', 'show'], dir, env);
    expect(show.stdout).toContain('DB_URL: "*** (from');
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stderr).toBe(0);
    const log = git(dir, 'log', '--all', '--format=%B');
    // Not vacuous: the iteration's commit took its subject from the agent's summary.
    expect(log).toContain('ralph: migrated [redacted]');
    const ralphFiles = allFiles(join(dir, '.ralph'));
    expect(ralphFiles.some(([f]) => f.endsWith('stream.jsonl'))).toBe(true);
    expect([
      ...leaks([dbUrl], 'git log', log),
      ...leaks([dbUrl], 'console', r.stdout + r.stderr),
      ...ralphFiles.flatMap(([f, t]) => leaks([dbUrl], f, t)),
    ]).toEqual([]);
  }, 60_000);
});

describe('secrets the agent writes straight into its scratchpad, tasks and memories (H14)', () => {
  it('are gone from the next prompt, ralph tools task list and every commit', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
      'ralph.yml': [
        `${fakeConfig({ max_iterations: 2 })}git:\n  commit: true`,
        'RObot:',
        '  telegram:',
        `    bot_token: "${BOT}"`,
      ].join('\n'),
      // Through the tools first (they know the agent's environment, not ralph.yml), then by hand.
      'bypass.sh': [
        `ralph tools task add "ping the bot ${BOT}"`,
        'ralph tools task add "rotate PLACEHOLDER"',
        `sed -i "s/PLACEHOLDER/$ACME_CLOUD_API_KEY/" .ralph/agent/tasks.jsonl`,
        `ralph tools memory add "the bot is ${BOT}"`,
        'ralph tools memory add "deploys use PLACEHOLDER"',
        `sed -i "s/PLACEHOLDER/$ACME_CLOUD_API_KEY/" .ralph/agent/memories.md`,
        `echo "note: key $ACME_CLOUD_API_KEY, bot ${BOT}" >> .ralph/agent/scratchpad.md`,
      ].join('\n'),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - run: sh bypass.sh',
        '      - write: { path: one.txt, content: "1\\n" }',
        '      - print: step one',
        '  - do:',
        '      - save_prompt: prompt-2.md',
        '      - write: { path: two.txt, content: "2\\n" }',
        '      - print: step two',
      ].join('\n'),
    });
    const env = { ...userDirs(), ACME_CLOUD_API_KEY: ENV_SECRET };
    // ralph.yml and the agent's script hold the secrets as the user and the test wrote them: Ralph's commits are after it.
    const start = git(dir, 'rev-parse', 'HEAD').trim();
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stderr).toBe(2);
    const prompt = readFileSync(join(dir, 'prompt-2.md'), 'utf8');
    // Not vacuous: the prompt carries the tasks, the memories and the scratchpad, redacted.
    expect(prompt).toContain('rotate [redacted]');
    expect(prompt).toContain('the bot is [redacted]');
    expect(prompt).toContain('deploys use [redacted]');
    expect(prompt).toContain('note: key [redacted], bot [redacted]');
    const list = await runRalph(['tools', 'task', 'list'], dir, env);
    expect(list.stdout).toContain('rotate [redacted]');
    const memories = await runRalph(['tools', 'memory', 'list'], dir, env);
    const history = git(dir, 'log', '-p', '--all', `^${start}`);
    // Not vacuous: Ralph committed the memories file.
    expect(history).toContain('deploys use [redacted]');
    const secrets = [ENV_SECRET, BOT];
    expect([
      ...leaks(secrets, 'prompt 2', prompt),
      ...leaks(secrets, 'ralph tools task list', list.stdout + list.stderr),
      ...leaks(secrets, 'ralph tools memory list', memories.stdout + memories.stderr),
      ...leaks(secrets, 'git history', history),
      ...leaks(secrets, 'console', r.stdout + r.stderr),
      ...allFiles(join(dir, '.ralph')).flatMap(([f, t]) => leaks(secrets, f, t)),
    ]).toEqual([]);
  }, 60_000);
});

describe('a secret written into memories at the size and mtime of a version found clean (issue 33, item 8)', () => {
  it('is cleaned before the commit: an unchanged file is not scanned again, a changed one always is', async () => {
    const file = '.ralph/agent/memories.md';
    // In place (same inode), the same size, the times put back; then it waits out the racy window
    // (2 s after the change time), so only the change time tells the loop the file changed.
    const write = (secret: boolean) =>
      [
        "const fs = require('fs');",
        `fs.mkdirSync('.ralph/agent', { recursive: true });`,
        'const key = process.env.ACME_CLOUD_API_KEY;',
        `const note = ${secret} ? key : 'x'.repeat(key.length);`,
        `fs.writeFileSync('${file}', '# Memories\\n- deploy key ' + note + '\\n');`,
        `fs.utimesSync('${file}', 1700000000, 1700000000);`,
        'const settled = () => {',
        `  const age = Date.now() - fs.statSync('${file}').ctimeMs;`,
        '  if (age < 2500) setTimeout(settled, 2600 - age);',
        '};',
        'settled();',
      ].join('\n');
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
      'ralph.yml': `${fakeConfig({ max_iterations: 2 })}git:\n  commit: true\n`,
      'clean.js': write(false),
      'secret.js': write(true),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - run: node clean.js',
        '      - write: { path: one.txt, content: "1\\n" }',
        '  - do:',
        '      - run: node secret.js',
        '      - write: { path: two.txt, content: "2\\n" }',
      ].join('\n'),
    });
    const env = { ...userDirs(), ACME_CLOUD_API_KEY: ENV_SECRET };
    const start = git(dir, 'rev-parse', 'HEAD').trim();
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stderr).toBe(2);
    expect(readFileSync(join(dir, file), 'utf8')).toBe('# Memories\n- deploy key [redacted]\n');
    const history = git(dir, 'log', '-p', '--all', `^${start}`);
    // Not vacuous: Ralph committed both versions of the memories file.
    expect(history).toContain(`deploy key ${'x'.repeat(ENV_SECRET.length)}`);
    expect(history).toContain('deploy key [redacted]');
    expect(leaks([ENV_SECRET], 'git history', history)).toEqual([]);
    expect(r.stdout + r.stderr).toContain('redacted a secret the agent wrote into .ralph/agent/memories.md');
  }, 60_000);
});
