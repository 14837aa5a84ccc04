import { resolve } from 'node:path';
import { type Command, Option } from '@commander-js/extra-typings';
import { ExitCode } from '../../errors.ts';
import type { Skill } from '../../skills/skill-registry.ts';
import type { CliIO, SetCode } from '../io.ts';
import { json, jsonFormatOption } from './tool-options.ts';

/** The renderers, loaded when a command prints a table. */
const render = () => import('./tool-render.ts');

const configOption = () =>
  new Option('-c, --config <file>', 'the ralph.yml whose skills.dirs to read (default: discovered)');
const rootOption = () =>
  new Option(
    '--root <dir>',
    'the workspace (default: $RALPH_WORKSPACE_ROOT inside a loop, else the current directory)',
  );

/** The workspace's skills as the loop reads them: its config's `skills:`, found from the workspace. */
async function workspaceSkills(io: CliIO, opts: { config?: string | undefined; root?: string | undefined }) {
  // Loaded by the action: the config schema stays off every other command's start.
  const { resolveRunConfig } = await import('../../engine/run/resolve-run.ts');
  const { loadSkills } = await import('../../skills/skill-registry.ts');
  const { skillDirs } = await import('../../skills/skill-dirs.ts');
  const workspace = resolve(io.cwd, opts.root ?? io.env.RALPH_WORKSPACE_ROOT ?? '.');
  const { config } = resolveRunConfig({ cwd: workspace, configPath: opts.config, env: io.env });
  return { skills: await loadSkills(config.skills, workspace), dirs: skillDirs(config.skills, workspace) };
}

/** `ralph tools skill load|list`: the skills of `skills.dirs`, as ralph-orchestrator's commands of that name. */
export function registerSkillTools(tools: Command, io: CliIO, setCode: SetCode): void {
  const skill = tools
    .command('skill')
    .description('the skills of skills.dirs in ralph.yml: list them, print one for the agent');

  skill
    .command('load')
    .description("print a skill's text in <NAME-skill> tags, for the agent to follow")
    .argument('<name>', 'the skill (see `ralph tools skill list`)')
    .addOption(configOption())
    .addOption(rootOption())
    .action(async (name, opts) => {
      const { skills, dirs } = await workspaceSkills(io, opts);
      const { findSkill, skillText } = await import('../../skills/skill-registry.ts');
      io.out(skillText(findSkill(skills, name, dirs)));
      setCode(ExitCode.ok);
    });

  skill
    .command('list')
    .description('list the skills: name, file and description')
    .addOption(
      new Option('--format <format>', 'output format (quiet: the names only)')
        .choices(['table', 'json', 'quiet'] as const)
        .default('table' as const),
    )
    .addOption(jsonFormatOption())
    .addOption(configOption())
    .addOption(rootOption())
    .action(async (opts) => {
      const { skills, dirs } = await workspaceSkills(io, opts);
      if (opts.format === 'json') io.out(json(skills.map(skillJson)));
      else if (opts.format === 'quiet') io.out(skills.map((s) => `${s.name}\n`).join(''));
      else io.out((await render()).renderSkills(skills, dirs));
      setCode(ExitCode.ok);
    });
}

/** One skill of `--json`: ralph-orchestrator's keys, snake_case. */
function skillJson(s: Skill) {
  return {
    name: s.name,
    description: s.description,
    source: 'file',
    path: s.path,
    hats: s.hats,
    backends: s.backends,
    tags: s.tags,
    auto_inject: s.autoInject,
  };
}
