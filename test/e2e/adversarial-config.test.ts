import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { makeGitWorkspace } from '../helpers/git-workspace.ts';
import { markedProcesses } from '../helpers/marked-processes.ts';
import { addTasks, makeParallelWorkspace, parallelState } from '../helpers/parallel-workspace.ts';
import {
  fakeConfig,
  makeWorkspace,
  type RunResult,
  readRecords,
  readState,
  runRalph,
} from '../helpers/workspace.ts';

// Issue 32, item 2: the config cache cannot change a run, and config output masks secrets. Each
// test drives the built CLI (`npm run build` first) with the scripted agent.

/** Every file under `dir` (recursively). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The files of the user's config cache (`$XDG_CACHE_HOME/ralph/config/`). */
const cacheFiles = (cacheHome: string) => filesUnder(join(cacheHome, 'ralph', 'config'));

/** The user directories of one test: config, cache and state, each a temp dir of its own. */
function userDirs(): { env: NodeJS.ProcessEnv; config: string; cache: string; state: string } {
  const home = makeWorkspace();
  const dirs = { config: join(home, 'config'), cache: join(home, 'cache'), state: join(home, 'state') };
  for (const d of Object.values(dirs)) mkdirSync(d);
  const env = { XDG_CONFIG_HOME: dirs.config, XDG_CACHE_HOME: dirs.cache, XDG_STATE_HOME: dirs.state };
  return { env, ...dirs };
}

/** No stack frame in anything Ralph printed, and nothing left running in `dir`. */
function cleanEnd(r: RunResult, dir: string): void {
  expect(`${r.stdout}${r.stderr}`).not.toMatch(/^ {4}at /m);
  expect(markedProcesses(dir)).toEqual([]);
}

// The attack: every cache file the agent can find (under the workspace and the user's cache
// directory, from its own environment) gets a value with no rules, max_iterations 999 and a
// tests command of `true`; a leftover `.ralph/cache/config.json` of the old place gets one too.
const FORGE = `
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const forged = (c) => ({ ...c, event_loop: { ...c.event_loop, max_iterations: 999 },
  rules: { allow: [], deny: [], approve: [] },
  gates: { ...c.gates, tests: { ...c.gates?.tests, command: 'true' } } });
const found = [];
const walk = (d) => { for (const e of readdirSync(d, { withFileTypes: true })) {
  const p = join(d, e.name);
  if (e.isDirectory() && e.name !== '.git') walk(p);
  else if (e.isFile() && p.includes('cache')) found.push(p);
} };
walk('.');
if (process.env.XDG_CACHE_HOME) walk(process.env.XDG_CACHE_HOME);
let base = { event_loop: {}, gates: {} };
for (const f of found) {
  const lines = readFileSync(f, 'utf8').split('\\n');
  try {
    if (lines.length >= 2 && lines[1]) { base = JSON.parse(lines[1]); lines[1] = JSON.stringify(forged(base)); }
    else { const e = JSON.parse(lines[0]); e.value = forged(e.value); lines[0] = JSON.stringify(e); }
    writeFileSync(f, lines.join('\\n'));
  } catch {}
}
mkdirSync('.ralph/cache', { recursive: true });
writeFileSync('.ralph/cache/config.json', JSON.stringify({ key: 'forged', value: forged(base) }));
writeFileSync('.ralph/forged', found.join('\\n') + '\\n');
`;

describe('the config cache cannot change a run (issue 32, item 2)', () => {
  it('an agent rewriting every cache file it finds does not lift the rules, the limits or the tests of ralph.yml', async () => {
    const user = userDirs();
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
      // The second run's mark: ignored, so the rollback of a denied write leaves it in place.
      '.gitignore': 'second-run\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 2 })}rules:\n  deny: ["secrets/**"]\ngates:\n  tests:\n    command: "exit 3"\n`,
      'forge.mjs': FORGE,
      'fake-agent.yml': [
        'turns:',
        // First run: the attack, in every iteration.
        '  - when: { file_missing: second-run }',
        '    do:',
        '      - run: "node forge.mjs"',
        // Second run: a denied write, then a claim of completion (the tests of ralph.yml fail).
        '  - when: { iteration: 1 }',
        '    do:',
        '      - write: { path: secrets/key, content: "hunter2\\n" }',
        '  - do:',
        '      - write: { path: ok.txt, content: "fine\\n" }',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    const first = await runRalph(['run', '--fresh', '-q'], dir, user.env);
    cleanEnd(first, dir);
    // The attack happened: it found the real cache entry and edited it, and planted the leftover.
    const [entry] = cacheFiles(user.cache);
    expect(readFileSync(join(dir, '.ralph', 'forged'), 'utf8')).toContain(entry);
    expect(readFileSync(entry!, 'utf8')).toContain('"max_iterations":999');
    expect(readFileSync(join(dir, '.ralph', 'cache', 'config.json'), 'utf8')).toContain(
      '"max_iterations":999',
    );

    writeFileSync(join(dir, 'second-run'), '');
    const second = await runRalph(['run', '--fresh', '-q'], dir, user.env);
    cleanEnd(second, dir);
    const records = readRecords(dir).filter((r) => r.run_id === readState(dir).run_id);
    // ralph.yml's limit (2), not the forged 999; its deny rule refused the write; its tests ran.
    expect(second.code, second.stdout + second.stderr).toBe(2);
    expect(readState(dir).stop_reason).toBe('max_iterations');
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ verdict: 'rule_violation' });
    expect(records[0]!.reason).toContain('secrets/key (inside rules.deny)');
    expect(existsSync(join(dir, 'secrets', 'key'))).toBe(false);
    expect(records[1]!.gates.tests).toMatchObject({ command: 'exit 3', passed: false });
    // The edited entry was not taken: it was rewritten from ralph.yml.
    const [rewritten] = cacheFiles(user.cache);
    expect(readFileSync(rewritten!, 'utf8')).not.toContain('999');
    expect(readFileSync(rewritten!, 'utf8')).toContain('"exit 3"');
  }, 60_000);

  it('a bad cache entry at its real place ({}, garbage, truncated, wrong types) is ignored and rewritten, never a stack trace', async () => {
    const user = userDirs();
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do:\n      - print: working\n',
    });
    const good = await runRalph(['run', '--fresh', '-q'], dir, user.env);
    expect(good.code, good.stderr).toBe(2);
    const files = cacheFiles(user.cache);
    expect(files).toHaveLength(1);
    const file = files[0]!;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    const [header, value] = text.split('\n');
    const wrongTypes = JSON.stringify({ ...JSON.parse(value!), event_loop: 'nope', cli: 7 });
    for (const bad of [
      '{}',
      `${header}\n{}\n`,
      `${header}\n${wrongTypes}\n`,
      text.slice(0, text.length / 2),
      'garbage\u0000\u00ff',
    ]) {
      writeFileSync(file, bad);
      const r = await runRalph(['run', '--fresh', '-q'], dir, user.env);
      expect(r.code, `${JSON.stringify(bad)}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toBe('');
      cleanEnd(r, dir);
      expect(readState(dir).stop_reason).toBe('max_iterations');
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  }, 60_000);
});

const TOKEN = '123456789:AAE_token_that_must_stay_home';
const ENV_SECRET = 'cli-env-secret-value-7f3a';

describe('config output masks secrets, and no secret is written (issue 32, item 3)', () => {
  it('dry run, config show and explain (and --json) print *** with where it came from; a run writes neither secret anywhere', async () => {
    const user = userDirs();
    mkdirSync(join(user.config, 'ralph'));
    const userConfig = join(user.config, 'ralph', 'config.yml');
    writeFileSync(userConfig, `RObot:\n  enabled: false\n  telegram:\n    bot_token: "${TOKEN}"\n`);
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}  env:\n    MY_SERVICE_KEY: "${ENV_SECRET}"\n`,
      'fake-agent.yml': 'turns:\n  - do:\n      - print: working\n',
    });
    for (const args of [
      ['run', '--dry-run'],
      ['config', 'show'],
      ['config', 'explain'],
      ['config', 'explain', '--json'],
      ['config', 'explain', 'RObot.telegram.bot_token'],
      ['config', 'explain', 'cli.env', '--json'],
    ]) {
      const r = await runRalph(args, dir, user.env);
      const out = `${r.stdout}${r.stderr}`;
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(out, args.join(' ')).not.toContain(TOKEN);
      expect(out, args.join(' ')).not.toContain(ENV_SECRET);
      if (!args.includes('cli.env')) expect(out).toContain(`*** (from user ${userConfig}:4)`);
      if (!args.includes('RObot.telegram.bot_token')) expect(out).toContain('*** (from project ralph.yml:8)');
    }

    const run = await runRalph(['run', '--fresh', '-q'], dir, user.env);
    expect(run.code, run.stderr).toBe(2);
    cleanEnd(run, dir);
    for (const f of [...filesUnder(dir), ...filesUnder(user.cache), ...filesUnder(user.state)]) {
      const text = readFileSync(f, 'latin1');
      expect(text.includes(TOKEN), f).toBe(false);
      if (f !== join(dir, 'ralph.yml')) expect(text.includes(ENV_SECRET), f).toBe(false);
    }
    // The run did write its files there (the search looked at something).
    expect(filesUnder(join(dir, '.ralph', 'runs')).length).toBeGreaterThan(0);
  }, 60_000);

  it('a parallel run hands the secrets to its workers without writing them: the worker spec holds ***, the agent gets cli.env', async () => {
    const user = userDirs();
    mkdirSync(join(user.config, 'ralph'));
    writeFileSync(
      join(user.config, 'ralph', 'config.yml'),
      `RObot:\n  telegram:\n    bot_token: "${TOKEN}"\ncli:\n  env:\n    MY_SERVICE_KEY: "${ENV_SECRET}"\n`,
    );
    const digest = createHash('sha256').update(ENV_SECRET).digest('hex');
    // The agent proves it got the value without the script (or anything it writes) holding it.
    const script = [
      'turns:',
      '  - do:',
      `      - run: "[ $(printf %s \\"$MY_SERVICE_KEY\\" | sha256sum | cut -c1-64) = ${digest} ] && echo got > env-ok.txt"`,
      '      - print: LOOP_COMPLETE',
    ].join('\n');
    const dir = makeParallelWorkspace(script);
    const [id] = await addTasks(dir, ['Alpha']);
    const r = await runRalph(['run', '--parallel', '1', '--no-tui'], dir, user.env);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    cleanEnd(r, dir);
    expect(parallelState(dir).tasks[id!].state).toBe('merged');
    expect(readFileSync(join(dir, 'env-ok.txt'), 'utf8')).toBe('got\n');
    const [spec] = filesUnder(join(dir, '.ralph', 'parallel', 'workers')).filter((f) => f.endsWith('.json'));
    expect(readFileSync(spec!, 'utf8')).toContain('"MY_SERVICE_KEY": "***"');
    for (const f of [...filesUnder(dir), ...filesUnder(user.cache), ...filesUnder(user.state)]) {
      const text = readFileSync(f, 'latin1');
      expect(text.includes(TOKEN), f).toBe(false);
      expect(text.includes(ENV_SECRET), f).toBe(false);
    }
  }, 120_000);
});
