import { type SpawnOptions, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { explainDenials } from '../../src/sandbox/denials.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { sandboxPolicy } from '../../src/sandbox/sandbox-policy.ts';
import type { SandboxPolicy, SandboxPolicyInput } from '../../src/sandbox/sandbox-types.ts';
import { wrapCommand } from '../../src/sandbox/wrap-command.ts';
import { git, makeGitWorkspace, subjects } from '../helpers/git-workspace.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { sandboxInput } from '../helpers/sandbox-input.ts';
import { waitFor } from '../helpers/wait.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// The policy of `sandbox: on` at the OS, through the real bubblewrap (CI installs it: .ci/run).
const EVENTS = '.ralph/events-20260101-000000.jsonl';

function project(): { ws: string; home: string; input: SandboxPolicyInput } {
  const ws = realpathSync(
    makeGitWorkspace({
      'ralph.yml': 'cli:\n  backend: claude\n',
      'PROMPT.md': 'work\n',
      'src/a.txt': 'a\n',
      'test/a.test.ts': 'expect(1).toBe(1)\n',
      '.ralph/state.json': '{}\n',
      '.ralph/loop.lock': '1\n',
      '.ralph/agent/tasks.jsonl': '',
      [EVENTS]: '',
    }),
  );
  // No hooks/ at all: the sandbox must still keep the agent from planting one.
  rmSync(join(ws, '.git', 'hooks'), { recursive: true, force: true });
  const home = realpathSync(
    makeWorkspace({
      '.ssh/id_rsa': 'PRIVATE KEY\n',
      '.aws/credentials': '[default]\naws_secret_access_key = x\n',
      '.claude/settings.json': '{}\n',
      '.gitconfig': '[user]\n\tname = Sandboxed Agent\n\temail = agent@example.invalid\n',
    }),
  );
  git(ws, 'config', '--unset', 'user.name');
  git(ws, 'config', '--unset', 'user.email');
  const input = sandboxInput(ws, home, {
    protectedPaths: [join(ws, 'test/a.test.ts')],
    backendHome: [join(home, '.claude'), join(home, '.claude.json')],
    agentWritable: [join(ws, '.ralph/agent'), join(ws, EVENTS)],
  });
  return { ws, home, input };
}

interface Ran {
  code: number | null;
  out: string;
}

/** `sh -c script` inside the sandbox of `policy` (its own process group, as the supervisor runs agents). */
function sandboxed(policy: SandboxPolicy, script: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const wrapped = wrapCommand(policy, { command: 'sh', args: ['-c', `exec 2>&1\n${script}`] }, 'linux');
  const options: SpawnOptions = {
    env: { ...process.env, HOME: policy.home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  };
  const child = spawn(wrapped.command, wrapped.args, options);
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

describe('sandbox: on, through bubblewrap', () => {
  beforeAll(async () => {
    const probe = await probeSandbox();
    expect(probe, 'bwrap must be installed and usable here (CI: .ci/run installs bubblewrap)').toMatchObject({
      ok: true,
      tool: 'bwrap',
    });
  });

  it('lets the agent work: edit, commit with your identity, its tasks and events, its CLI config; /tmp stays private', async () => {
    const { ws, home, input } = project();
    const tmpMark = `ralph-sbx-${process.pid}-${Date.now()}`;
    const ran = await sandboxed(
      sandboxPolicy(input),
      `set -e
echo new > src/new.txt
git add -A && git commit -qm "from the sandbox"
echo '{"id":"t1"}' >> .ralph/agent/tasks.jsonl
echo '{"topic":"build.done"}' >> ${EVENTS}
cat "$HOME/.claude/settings.json" && echo '{"theme":"dark"}' > "$HOME/.claude/settings.json"
echo private > /tmp/${tmpMark} && cat /tmp/${tmpMark}
echo DONE`,
    );
    expect(ran).toEqual({ code: 0, out: '{}\nprivate\nDONE\n' });
    expect(subjects(ws)[0]).toBe('from the sandbox');
    expect(git(ws, 'log', '-1', '--format=%an <%ae>').trim()).toBe('Sandboxed Agent <agent@example.invalid>');
    expect(readFileSync(join(ws, '.ralph/agent/tasks.jsonl'), 'utf8')).toBe('{"id":"t1"}\n');
    expect(readFileSync(join(ws, EVENTS), 'utf8')).toBe('{"topic":"build.done"}\n');
    expect(readFileSync(join(home, '.claude/settings.json'), 'utf8')).toBe('{"theme":"dark"}\n');
    expect(existsSync(`/tmp/${tmpMark}`)).toBe(false);
  });

  it('refuses at the OS every write into git control, .ralph/, config and protected files, and hides the secrets', async () => {
    const { ws, home, input } = project();
    const policy = sandboxPolicy(input);
    const targets = [
      '.git/hooks/pre-commit',
      '.git/config',
      '.ralph/state.json',
      '.ralph/loop.lock',
      'ralph.yml',
      'test/a.test.ts',
      'PROMPT.md',
    ];
    const ran = await sandboxed(
      policy,
      `${targets.map((t) => `(echo x >> ${t}) || echo "REFUSED ${t}"`).join('\n')}
git config core.hooksPath /tmp/evil || echo "REFUSED git config"
mv .ralph .ralph-old || echo "REFUSED mv .ralph"
(mount -o remount,bind,rw test/a.test.ts && echo x >> test/a.test.ts) || echo "REFUSED remount"
rm -f .ralph/state.json || echo "REFUSED rm state"
cat "$HOME/.ssh/id_rsa" || echo "REFUSED id_rsa"
ls "$HOME/.aws" || echo "REFUSED .aws"
true`,
    );
    for (const t of targets) {
      expect(ran.out).toContain(`REFUSED ${t}`);
      expect(ran.out).toContain(`cannot create ${t}: Read-only file system`);
    }
    // Run as root (a container, CI), the agent keeps no capability to remount a read-only bind.
    for (const r of ['git config', 'mv .ralph', 'rm state', 'id_rsa', '.aws', 'remount'])
      expect(ran.out).toContain(`REFUSED ${r}`);
    // git writes config.lock beside it and renames it over: a mount point cannot be replaced.
    expect(ran.out).toContain('could not write config file .git/config: Device or resource busy');
    expect(ran.out).not.toContain('PRIVATE KEY');
    // Nothing reached the host, and the missing hooks/ became an empty directory.
    expect(readdirSync(join(ws, '.git/hooks'))).toEqual([]);
    expect(readFileSync(join(ws, '.git/config'), 'utf8')).not.toContain('hooksPath');
    expect(readFileSync(join(ws, '.ralph/state.json'), 'utf8')).toBe('{}\n');
    expect(readFileSync(join(home, '.ssh/id_rsa'), 'utf8')).toBe('PRIVATE KEY\n');
    // What the agent saw is read back as the rules that refused it.
    const denied = new Map(explainDenials(ran.out, policy).map((d) => [d.path, d.rule.reason]));
    expect(denied.get(join(ws, '.git/hooks/pre-commit'))).toBe('git control file');
    expect(denied.get(join(ws, '.git/config'))).toBe('git control file');
    expect(denied.get(join(ws, '.ralph/loop.lock'))).toBe("Ralph's state");
    expect(denied.get(join(ws, '.ralph'))).toBe("Ralph's state");
    expect(denied.get(join(ws, 'test/a.test.ts'))).toBe('protected (gates.protect)');
    expect(denied.get(join(home, '.ssh/id_rsa'))).toBe('your home directory (hidden)');
  });

  it('in a worktree: commits through the shared git dir, whose control files stay read-only', async () => {
    const { ws, input } = project();
    const wt = join(ws, '.ralph/worktrees/w1');
    git(ws, 'worktree', 'add', '-q', '-b', 'ralph/w1', wt);
    const gitDir = git(wt, 'rev-parse', '--absolute-git-dir').trim();
    const policy = sandboxPolicy({
      ...sandboxInput(wt, input.home),
      gitDir,
      gitCommonDir: join(ws, '.git'),
      agentWritable: [join(wt, '.ralph/agent')],
    });
    const common = join(ws, '.git');
    const ran = await sandboxed(
      policy,
      `git -c user.name=A -c user.email=a@example.invalid commit -q --allow-empty -m "in the worktree" && echo COMMITTED
(echo x > ${common}/hooks/post-commit) || echo "REFUSED hooks"
(echo x >> ${common}/config) || echo "REFUSED config"
(echo x >> ${gitDir}/commondir) || echo "REFUSED commondir"
(echo x > .git) || echo "REFUSED .git file"`,
    );
    expect(ran.out).toContain('COMMITTED');
    for (const r of ['hooks', 'config', 'commondir', '.git file']) expect(ran.out).toContain(`REFUSED ${r}`);
    expect(subjects(wt)[0]).toBe('in the worktree');
  });

  it('cuts the network when sandbox.network is off (and only then)', async () => {
    const server: Server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as { port: number };
    const { input } = project();
    const connect = `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('CONNECTED'); process.exit(0) }).on('error', (e) => { console.log('FAILED', e.code); process.exit(3) })"`;
    const on = await sandboxed(sandboxPolicy(input), connect);
    expect(on).toEqual({ code: 0, out: 'CONNECTED\n' });
    const off = await sandboxed(
      sandboxPolicy({ ...input, settings: { ...input.settings, network: 'off' } }),
      connect,
    );
    expect(off.code).toBe(3);
    expect(off.out).toMatch(/^FAILED E(CONNREFUSED|NETUNREACH)/);
  });

  describe('a daemon the agent starts', () => {
    let leftover: string | undefined;
    afterAll(() => {
      if (leftover) killLeftovers([leftover]);
    });

    it('dies with the agent when the supervisor kills its process group, though it left the group', async () => {
      const { ws, input } = project();
      leftover = ws;
      const mark = { RALPH_ITERATION_MARK: 'sbx-daemon', RALPH_WORKSPACE_ROOT: ws };
      const policy = sandboxPolicy(input);
      const wrapped = wrapCommand(
        policy,
        { command: 'sh', args: ['-c', "setsid sh -c 'sleep 300; true' & echo started; sleep 300"] },
        'linux',
      );
      const child = spawn(wrapped.command, wrapped.args, {
        env: { ...process.env, HOME: policy.home, ...mark },
        stdio: 'ignore',
        detached: true,
      });
      const pgid = child.pid as number;
      const exited = new Promise((resolve) => child.on('exit', resolve));
      const pgrp = (pid: number) => {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      };
      // The daemon's own session: a group kill alone would miss it.
      const escaped = () => markedProcesses(ws).filter((p) => pgrp(p.pid) !== pgid);
      await waitFor(() => escaped().length > 0, 5_000, 'the daemon to start in a session of its own');
      process.kill(-pgid, 'SIGKILL');
      await exited;
      await waitFor(() => markedProcesses(ws).length === 0, 5_000, 'every sandboxed process to be gone');
    });
  });
});
