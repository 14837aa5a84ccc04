import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { checkBackend, setBackend } from '../../config/preset-init.ts';
import { findTemplate, type ProjectTemplate, templateList, writeTemplate } from '../../config/templates.ts';
import { runGate } from '../../engine/gates/checks/run-gate.ts';
import { ExitCode, RalphError } from '../../errors.ts';
import { commitAll } from '../../git/commit.ts';
import { isGitRepo } from '../../git/repo-state.ts';
import { runGit } from '../../git/run-git.ts';
import { findExecutable } from '../../process/find-executable.ts';
import { formatDuration } from '../../state/io/time-format.ts';
import type { CliIO } from '../io.ts';
import { initSandbox, writeWorkspaceSupport } from './init-command.ts';

/** How long the project's check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 300_000;

/** `ralph new <template> DIR`: writes a starter project, commits it, runs its tests once. */
export async function newCommand(
  template: string | undefined,
  dir: string | undefined,
  opts: { list?: boolean; force?: boolean; check: boolean; backend?: string | undefined },
  io: CliIO,
): Promise<number> {
  if (opts.list || template === undefined) {
    io.out(templateList());
    return opts.list ? ExitCode.ok : usage('name a template and a directory: ralph new <template> DIR');
  }
  const chosen = findTemplate(template);
  if (dir === undefined) return usage(`name the directory to create: ralph new ${template} DIR`);
  if (opts.backend !== undefined) checkBackend(opts.backend);
  if (!findExecutable('git', io.env.PATH, io.cwd).found)
    throw new RalphError(
      'git_missing',
      'ralph new makes a git repository, and git is not on PATH; install git',
    );
  const target = resolve(io.cwd, dir);
  const shown = relative(io.cwd, target) || '.';

  const { written, kept } = writeTemplate(target, chosen.name, { force: Boolean(opts.force) });
  written.push(...writeWorkspaceSupport(target));
  if (opts.backend !== undefined) setBackend(join(target, 'ralph.yml'), checkBackend(opts.backend));
  // A ralph.yml that was there already is the user's: its sandbox line is left as it is.
  const sandbox = kept.includes('ralph.yml') ? '' : await initSandbox(target);
  io.out(`wrote ${chosen.name} in ${shown}: ${written.join(', ')}\n${sandbox ? `${sandbox}\n` : ''}`);
  if (kept.length > 0) io.out(`kept (already there, not overwritten): ${kept.join(', ')}\n`);

  io.out(`${await commitProject(target, chosen.name)}\n`);
  const code = opts.check ? await checkProject(chosen, target, shown, io) : ExitCode.ok;
  if (!opts.check) io.out('check: skipped (--no-check)\n');
  io.out(`next: cd ${shown}, then ${chosen.next}\n`);
  return code;
}

function usage(message: string): never {
  throw new RalphError('usage', message);
}

/** A new repository with the project as its first commit; inside an existing one, nothing is committed. */
async function commitProject(dir: string, template: string): Promise<string> {
  if (await isGitRepo(dir))
    return 'git: inside an existing repository, so no new one and no commit: review the files, then commit them';
  await runGit(dir, ['init', '-q']);
  const { commit } = await commitAll(dir, `New ${template} project (ralph new ${template})`, { exclude: [] });
  return `git: new repository, first commit ${commit?.slice(0, 7) ?? '(nothing to commit)'}`;
}

/**
 * Runs the project's own tests once (the `gates.tests.command` of its ralph.yml, as Ralph's loop
 * runs it). A missing tool or uninstalled dependencies are named with how to get them: exit 1.
 */
async function checkProject(
  template: ProjectTemplate,
  dir: string,
  shown: string,
  io: CliIO,
): Promise<number> {
  const missing = template.tools.filter((t) => !findExecutable(t.command, io.env.PATH, dir).found);
  for (const tool of missing) io.err(`check: not run, \`${tool.command}\` is not on PATH: ${tool.install}\n`);
  if (missing.length > 0) return ExitCode.failure;
  if (template.installed && !existsSync(join(dir, template.installed.path))) {
    io.err(`check: not run, ${shown}/${template.installed.path} is missing: ${template.installed.how}\n`);
    return ExitCode.failure;
  }
  const config = parse(readFileSync(join(dir, 'ralph.yml'), 'utf8')) as {
    gates: { tests: { command: string } };
  };
  const result = await runGate({
    gate: 'tests',
    command: config.gates.tests.command,
    workspace: dir,
    env: io.env,
    timeoutMs: CHECK_TIMEOUT_MS,
    killGraceMs: 2000,
  });
  const took = formatDuration(result.durationMs);
  if (result.passed) {
    io.out(`check: passed, ${result.command} (${took})\n`);
    return ExitCode.ok;
  }
  const why = result.timedOut
    ? `timed out after ${formatDuration(CHECK_TIMEOUT_MS)}`
    : `exit code ${result.exitCode}`;
  io.err(`${result.output.trimEnd()}\ncheck: failed, ${result.command} (${why}, ${took})\n`);
  return ExitCode.failure;
}
