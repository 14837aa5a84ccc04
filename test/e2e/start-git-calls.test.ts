import { describe, expect, it } from 'vitest';
import { runWithGitLog } from '../helpers/git-workspace.ts';

// Issue 22, point 8: every git process Ralph starts forks its whole process first (a few ms each),
// so the ones that can wait run once the agent does. Counted, not timed.
describe('ralph run in a git repository, before its first agent', () => {
  it('asks git only where the repository is and its status; the watch is set up while the agent runs', async () => {
    const { log, result } = await runWithGitLog(['run', '-q', '--max-iterations', '2']);
    expect(result.code, result.stderr).toBe(2);
    const subcommand = (line: string) => line.split(' ')[3];
    const agentAt = log.indexOf('agent');
    expect(log.slice(0, agentAt).map(subcommand)).toEqual(['rev-parse', 'status']);
    // The ignored directories and the config, listed for the watch, once the agent ran.
    const after = log.slice(agentAt + 1).map(subcommand);
    expect(after).toContain('ls-files');
    expect(after).toContain('config');
    expect(log.filter((line) => line === 'agent')).toHaveLength(2);
  });

  it('outside any repository, starts no git process at all', async () => {
    const { log, result } = await runWithGitLog(['run', '-q', '--max-iterations', '1'], {
      repository: false,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(log.filter((line) => line !== '')).toEqual(['agent']);
  });
});
