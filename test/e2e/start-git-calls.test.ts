import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, RALPH, startProcess } from '../helpers/workspace.ts';

// Issue 22, point 8: every git process Ralph starts forks its whole process first (a few ms each),
// so the ones that can wait run once the agent does. Counted, not timed.
describe('ralph run in a git repository, before its first agent', () => {
  it('asks git only where the repository is and its status; the watch is set up while the agent runs', async () => {
    const dir = makeWorkspace({
      'agent.sh': '#!/bin/sh\necho agent >> git.log\n',
      'ralph.yml':
        'event_loop:\n  prompt: "no-op"\n  cooldown_delay_seconds: 0\ncli:\n  backend: custom\n  command: ./agent.sh\n  prompt_mode: stdin\n',
    });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(dir, '.gitignore'), '.ralph/\ngit.log\nshim/\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
    // A `git` first on PATH that logs each call to the file the agent writes to as well.
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    mkdirSync(join(dir, 'shim'));
    writeFileSync(join(dir, 'shim', 'git'), `#!/bin/sh\necho "git $*" >> git.log\nexec ${realGit} "$@"\n`);
    chmodSync(join(dir, 'shim', 'git'), 0o755);
    const r = await startProcess(process.execPath, [RALPH, 'run', '-q', '--max-iterations', '2'], dir, {
      PATH: `${join(dir, 'shim')}${delimiter}${process.env.PATH}`,
    }).done;
    expect(r.code, r.stderr).toBe(2);
    const log = readFileSync(join(dir, 'git.log'), 'utf8').trim().split('\n');
    const subcommand = (line: string) => line.split(' ')[3];
    const agentAt = log.indexOf('agent');
    expect(log.slice(0, agentAt).map(subcommand)).toEqual(['rev-parse', 'status']);
    // The ignored directories and the config, listed for the watch, once the agent ran.
    const after = log.slice(agentAt + 1).map(subcommand);
    expect(after).toContain('ls-files');
    expect(after).toContain('config');
    expect(log.filter((line) => line === 'agent')).toHaveLength(2);
  });
});
