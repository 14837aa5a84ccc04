import type { SandboxPolicyInput } from '../../src/sandbox/sandbox-types.ts';

/** A policy input for a workspace at `workspace` with its `.git` inside, a home at `home`, nothing else. */
export function sandboxInput(
  workspace = '/work/proj',
  home = '/home/dev',
  more: Partial<SandboxPolicyInput> = {},
): SandboxPolicyInput {
  return {
    workspace,
    gitDir: `${workspace}/.git`,
    gitCommonDir: `${workspace}/.git`,
    home,
    configFiles: [`${workspace}/ralph.yml`],
    promptFiles: [`${workspace}/PROMPT.md`],
    protectedPaths: [],
    gateFiles: [],
    backendHome: [`${home}/.claude`, `${home}/.claude.json`],
    agentWritable: [`${workspace}/.ralph/agent`],
    runtimeReadOnly: [],
    settings: { mode: 'on', allowRead: [], allowWrite: [], network: 'on' },
    ...more,
  };
}
