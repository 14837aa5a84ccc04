import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeGitWorkspace } from '../helpers/git-workspace.ts';
import { killLeftovers } from '../helpers/marked-processes.ts';
import {
  fakeConfig,
  type RalphProcess,
  readState,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

// While a gate runs, the protected files' content stands in for the agent's versions. A Ralph
// killed at that moment must not leave it there: the agent's work would be silently replaced.

const PROTECTED = 'echo $$ > gate.pid\ntouch gate-running\nwhile [ ! -f go ]; do sleep 0.05; done\n';
const AGENT = 'exit 0 # the agent version\n';
const used: string[] = [];

function workspace(): string {
  const dir = makeGitWorkspace({
    'PROMPT.md': 'make the check pass\n',
    'check.sh': PROTECTED,
    'ralph.yml': `${fakeConfig({ max_iterations: 1, kill_grace_seconds: 0.5 })}gates:\n  tests:\n    command: sh check.sh\n`,
    'fake-agent.yml': [
      'turns:',
      '  - do:',
      // What the agent finds when it starts: on a resume, its own version from before the kill.
      '      - run: "cat check.sh >> seen.txt; echo --- >> seen.txt"',
      `      - write: { path: check.sh, content: ${JSON.stringify(AGENT)} }`,
    ].join('\n'),
  });
  used.push(dir);
  return dir;
}

/** A run whose gate is running (from the protected content), and its workspace. */
async function atTheGate() {
  const dir = workspace();
  const loop = startRalph(['run'], dir);
  await waitFor(() => existsSync(join(dir, 'gate-running')), 20_000, 'the gate');
  return { dir, loop };
}

/** Signals `loop` once and waits until it says it is stopping gracefully. */
async function stopGracefully(loop: RalphProcess, signal: NodeJS.Signals) {
  loop.child.kill(signal);
  await waitFor(() => loop.stderr().includes('stopping'), 10_000, 'the graceful stop');
}

const gatePid = (dir: string) => Number(readFileSync(join(dir, 'gate.pid'), 'utf8').trim());

afterEach(() => {
  const dirs = used.splice(0);
  const pids = dirs.filter((d) => existsSync(join(d, 'gate.pid'))).map(gatePid);
  killLeftovers(dirs, pids);
});

describe('the protected content swapped in for a gate', () => {
  it('kill -9 of Ralph mid-gate: the next `ralph run --resume` puts the agent’s version back first', async () => {
    const { dir, loop } = await atTheGate();
    // The gate runs from the protected content, the agent's version is on record.
    expect(readFileSync(join(dir, 'check.sh'), 'utf8')).toBe(PROTECTED);
    loop.child.kill('SIGKILL');
    await loop.done;
    // The orphaned gate ends on its own once let go.
    writeFileSync(join(dir, 'go'), '');
    const r = await runRalph(['run', '--resume'], dir);
    expect(r.stdout + r.stderr).toContain("put back the agent's version of 1 protected file(s)");
    // The resumed agent found its own work, not the protected content.
    expect(readFileSync(join(dir, 'seen.txt'), 'utf8')).toBe(`${PROTECTED}---\n${AGENT}---\n`);
    expect(readFileSync(join(dir, 'check.sh'), 'utf8')).toBe(AGENT);
    expect(existsSync(join(dir, '.ralph', 'protected', 'swap.json'))).toBe(false);
  });

  it('a forced stop (a second SIGTERM) mid-gate puts the agent’s version back before Ralph exits', async () => {
    const { dir, loop } = await atTheGate();
    await stopGracefully(loop, 'SIGTERM');
    loop.child.kill('SIGTERM');
    const r = await loop.done;
    expect(r.code).toBe(130);
    expect(readFileSync(join(dir, 'check.sh'), 'utf8')).toBe(AGENT);
    expect(readState(dir).status).toBe('interrupted');
  });

  it('a graceful stop mid-gate lets the gate finish, then puts the agent’s version back', async () => {
    const { dir, loop } = await atTheGate();
    await stopGracefully(loop, 'SIGINT');
    writeFileSync(join(dir, 'go'), '');
    await loop.done;
    expect(readFileSync(join(dir, 'check.sh'), 'utf8')).toBe(AGENT);
    expect(existsSync(join(dir, '.ralph', 'protected', 'swap.json'))).toBe(false);
  });
});
