import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentStub, ranLog, stubBin } from '../helpers/agent-stubs.ts';
import { makeWorkspace, readRecords, runRalph } from '../helpers/workspace.ts';

/**
 * What every stub agent does: the planner asks for a build, then completes once it is built; the
 * builder builds. Which executable ran for which hat is in ran.log.
 */
const WORK = [
  'case "$RALPH_HAT" in',
  '  builder) echo built > built.txt; ralph emit build.done ;;',
  '  *) if [ -f built.txt ]; then ralph emit LOOP_COMPLETE; else ralph emit build.task; fi ;;',
  'esac',
].join('\n');

/** ralph.yml: `cli` lines, a planner on the loop's backend and a builder with `builder` lines. */
function config(cli: string[], builder: string[]): string {
  return [
    'event_loop:',
    '  prompt_file: PROMPT.md',
    '  max_iterations: 4',
    'cli:',
    ...cli.map((l) => `  ${l}`),
    'hats:',
    '  planner:',
    '    triggers: [task.start, build.done]',
    '    publishes: [build.task, LOOP_COMPLETE]',
    '    instructions: Plan.',
    '  builder:',
    '    triggers: [build.task]',
    '    publishes: [build.done]',
    '    instructions: Build.',
    ...builder.map((l) => `    ${l}`),
    '',
  ].join('\n');
}

/** A workspace with ralph.yml and executable `scripts` (custom agents), and a PATH with stub CLIs first. */
function setup(yml: string, scripts: Record<string, string> = {}) {
  const dir = makeWorkspace({ 'PROMPT.md': 'build it\n', 'ralph.yml': yml });
  for (const [name, script] of Object.entries(scripts)) {
    writeFileSync(join(dir, name), script);
    chmodSync(join(dir, name), 0o755);
  }
  const bin = stubBin({ claude: agentStub('claude', WORK), codex: agentStub('codex', WORK) });
  return { dir, env: { PATH: `${bin}:${process.env.PATH}` } };
}

const CLAUDE_ARGS = 'claude -p --output-format stream-json --verbose --dangerously-skip-permissions';
const CODEX_ARGS =
  'codex exec --json --skip-git-repo-check -c allow_login_shell=false --dangerously-bypass-approvals-and-sandbox';

describe('a hat on another backend runs that backend, not the loop’s command', () => {
  it('custom loop (cli.command ./agent.sh), builder on claude: claude runs, and every report says so', async () => {
    const { dir, env } = setup(
      config(['backend: custom', 'command: ./agent.sh', 'args: [--loop-arg]'], ['backend: claude']),
      { 'agent.sh': agentStub('custom', WORK) },
    );
    const r = await runRalph(['run', '--', '--after-dashdash'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // cli.command, cli.args and the arguments after -- are the custom loop's own.
    expect(ranLog(dir)).toEqual([
      'agent.sh --loop-arg --after-dashdash',
      CLAUDE_ARGS,
      'agent.sh --loop-arg --after-dashdash',
    ]);
    expect(readRecords(dir).map((x) => [x.hat, x.backend, x.command])).toEqual([
      ['planner', 'custom', './agent.sh'],
      ['builder', 'claude', 'claude'],
      ['planner', 'custom', './agent.sh'],
    ]);
    expect(r.stdout).toContain('── iteration 2/4 · builder · claude ·');
    const explain = await runRalph(['explain'], dir);
    expect(explain.stdout).toMatch(
      /^iteration 1 · hat planner \(triggered by task\.start\) · custom \(\.\/agent\.sh\) · /m,
    );
    expect(explain.stdout).toMatch(/^iteration 2 · hat builder \(triggered by build\.task\) · claude · /m);
  });

  it('claude loop (cli.model, cli.args), builder on codex: codex gets its own flags and the hat’s args', async () => {
    const { dir, env } = setup(
      config(
        ['backend: claude', 'model: loop-model', 'args: [--loop-arg]'],
        ['backend: codex', 'args: [--hat-arg]'],
      ),
    );
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(ranLog(dir)).toEqual([
      `${CLAUDE_ARGS} --model loop-model --loop-arg`,
      `${CODEX_ARGS} --hat-arg`,
      `${CLAUDE_ARGS} --model loop-model --loop-arg`,
    ]);
    expect(readRecords(dir).map((x) => x.backend)).toEqual(['claude', 'codex', 'claude']);
  });

  it('codex loop, builder on custom with its own command (hats.<id>.command)', async () => {
    const { dir, env } = setup(
      config(
        ['backend: codex', 'args: [--loop-arg]'],
        ['backend: custom', 'command: ./builder.sh', 'args: [--hat-arg]'],
      ),
      { 'builder.sh': agentStub('custom', WORK) },
    );
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(ranLog(dir)).toEqual([
      `${CODEX_ARGS} --loop-arg`,
      'builder.sh --hat-arg',
      `${CODEX_ARGS} --loop-arg`,
    ]);
    const explain = await runRalph(['explain', '--iteration', '2'], dir);
    expect(explain.stdout).toContain('· hat builder (triggered by build.task) · custom (./builder.sh) ·');
  });

  it('a hat whose CLI is not installed is found before the run starts, naming the hat’s keys', async () => {
    const { dir } = setup(config(['backend: custom', 'command: ./agent.sh'], ['backend: claude']), {
      'agent.sh': agentStub('custom', WORK),
    });
    // No claude anywhere on PATH: node (for `ralph emit`) and the system tools only.
    const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
    const missing =
      'hat builder runs claude, which is not there (not on PATH): install it (npm install -g @anthropic-ai/claude-code) or fix hats.builder.command / hats.builder.backend';
    const r = await runRalph(['run'], dir, env);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(missing);
    expect(existsSync(join(dir, 'ran.log'))).toBe(false);
    const validate = await runRalph(['config', 'validate'], dir, env);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(missing);
  });

  it('a hat on custom without a command of its own is a config error, before any agent runs', async () => {
    const { dir, env } = setup(config(['backend: claude', 'command: ./agent.sh'], ['backend: custom']));
    const r = await runRalph(['run'], dir, env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /ralph\.yml:\d+:\d+: hats\.builder\.backend: hat "builder" runs on custom but has no command \(cli\.command is the executable of cli\.backend \(claude\) only\); set hats\.builder\.command/,
    );
    expect(r.stdout).not.toContain('iteration 1');
  });

  it('-b claude (or RALPH_AGENT) over a custom ralph.yml: claude runs, not the file’s ./agent.sh', async () => {
    const { dir, env } = setup(
      config(['backend: custom', 'command: ./agent.sh', 'args: [--loop-arg]', 'model: local'], []),
      { 'agent.sh': agentStub('custom', WORK) },
    );
    const flag = await runRalph(['run', '-b', 'claude'], dir, env);
    expect(flag.code, flag.stdout + flag.stderr).toBe(0);
    expect(ranLog(dir).every((l) => l === CLAUDE_ARGS)).toBe(true);
    const fresh = await runRalph(['run', '--fresh'], dir, { ...env, RALPH_AGENT: 'codex' });
    expect(fresh.code, fresh.stdout + fresh.stderr).toBe(0);
    expect(
      ranLog(dir)
        .filter((l) => l.startsWith('codex'))
        .every((l) => l === CODEX_ARGS),
    ).toBe(true);
    expect(ranLog(dir).some((l) => l.startsWith('agent.sh'))).toBe(false);
  });
});
