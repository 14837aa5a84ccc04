import { type Command, Option } from '@commander-js/extra-typings';
import { ExitCode, RalphError, UsageError } from '../../errors.ts';
import { createRedactor } from '../../observe/redact.ts';
import { ralphPaths } from '../../state/paths.ts';
import { findTask, readyTasks, TASK_STATUSES, type Task, type TaskOptions } from '../../state/tasks/task.ts';
import { openTaskStore } from '../../state/tasks/task-store.ts';
import type { CliIO, SetCode } from '../io.ts';
import { registerTaskImport } from './task-import-command.ts';
import { type Format, formatOption, json, jsonFormatOption, splitList } from './tool-options.ts';

/** The renderers, loaded when a command prints a table. */
const render = () => import('./tool-render.ts');

const TASK_ID = 'the task id (see `ralph tools task list`)';

/** The task file's reads and changes: loaded when a task command runs, not to define one. */
const taskStore = openTaskStore;

/**
 * `task ensure`'s two signatures: Ralph's `ensure KEY TITLE` and ralph-orchestrator's
 * `ensure TITLE --key KEY`. Both at once cannot say which argument is the key: refused.
 */
export function ensureArguments(
  first: string,
  second: string | undefined,
  keyOption: string | undefined,
): { key: string; title: string } {
  if (keyOption !== undefined) {
    if (second !== undefined)
      throw new UsageError(
        `task ensure got a key twice ("${first}" and --key ${keyOption}): use \`ensure KEY TITLE\` or \`ensure TITLE --key KEY\``,
      );
    return { key: keyOption, title: first };
  }
  if (second === undefined)
    throw new UsageError(
      'task ensure needs a key and a title: `ralph tools task ensure KEY TITLE` or `ralph tools task ensure TITLE --key KEY`',
    );
  return { key: first, title: second };
}

/** `ralph tools task …`: the runtime tasks agents add, claim and close. */
export function registerTaskTools(tools: Command, io: CliIO, setCode: SetCode): void {
  const paths = () => ralphPaths(io.env.RALPH_WORKSPACE_ROOT ?? io.cwd);
  const options = (): TaskOptions => ({ loopId: io.env.RALPH_RUN_ID || undefined });
  // A task's text reaches commit messages, pull requests and the chat: written redacted, as every
  // text an agent hands Ralph (emit-command.ts says why).
  const redacted = <T extends string | undefined>(text: T): T =>
    (text === undefined ? text : createRedactor(io.env)(text)) as T;
  const done = (task: Task, format: Format, text: string) => {
    if (format === 'json') io.out(json(task));
    else io.out(`${format === 'quiet' ? task.id : text}\n`);
    setCode(ExitCode.ok);
  };
  type Store = Awaited<ReturnType<typeof taskStore>>;
  const task = tools
    .command('task')
    .description(
      'runtime tasks in .ralph/agent/tasks.jsonl (and the stories of prd.json with tasks.source: prd.json, the issues of a beads tracker with tasks.source: beads)',
    );
  // Where the tasks are read: the tasks file, and the prd.json or beads export of `tasks.source`, from
  // the config found as `ralph run` finds it (loaded by the action, so defining the commands loads
  // none). A config that cannot be read leaves the tasks file: the agent's own list keeps working.
  const files = async (store: Store, configPath?: string) => {
    const root = io.env.RALPH_WORKSPACE_ROOT ?? io.cwd;
    const { resolveRunConfig } = await import('../../engine/run/resolve-run.ts');
    try {
      const { config } = resolveRunConfig({ cwd: root, configPath, env: io.env });
      return store.taskFilesOf(config.tasks, root, paths().tasks);
    } catch (error) {
      if (!(error instanceof RalphError) || configPath !== undefined) throw error;
      io.err(
        `ralph: only ${paths().tasks} is read: the config could not be (${error.message.split('\n')[0]}); fix it to see its task source too\n`,
      );
      return { tasks: paths().tasks };
    }
  };
  const configOption = () =>
    new Option('-c, --config <file>', 'the ralph.yml that says where the tasks are (default: discovered)');

  task
    .command('add')
    .description('add an open task; prints its id')
    .argument('<title>', 'what the task is, in a line')
    .option('-d, --description <text>', 'longer description')
    .option('-p, --priority <n>', '1 (most urgent) … 5', '3')
    .option('--key <key>', 'idempotency key (see `ensure`)')
    .option('--blocked-by <ids>', 'comma-separated ids of tasks that must be closed first')
    .addOption(formatOption())
    .addOption(jsonFormatOption())
    .action(async (title, opts) => {
      const text = { title: redacted(title), description: redacted(opts.description) };
      const input = { ...opts, ...text, blocked_by: splitList(opts.blockedBy) };
      const created = (await taskStore()).addTask(paths().tasks, input, options());
      done(created, opts.format, created.id);
    });

  task
    .command('ensure')
    .description(
      "add the task with this key unless it exists (in any status); prints its id. `ensure KEY TITLE`, or ralph-orchestrator's `ensure TITLE --key KEY`",
    )
    .argument('<key-or-title>', 'the idempotency key, then the title; with --key: the title')
    .argument('[title]', 'what the task is, in a line (without --key)')
    .option('--key <key>', 'idempotency key: a second ensure with the same key adds nothing')
    .option('-d, --description <text>', 'longer description')
    .option('-p, --priority <n>', '1 (most urgent) … 5', '3')
    .option('--blocked-by <ids>', 'comma-separated ids of tasks that must be closed first')
    .addOption(formatOption())
    .addOption(jsonFormatOption())
    .action(async (first, second, opts) => {
      const { key, title } = ensureArguments(first, second, opts.key);
      const text = { title: redacted(title), description: redacted(opts.description) };
      const input = { ...opts, ...text, blocked_by: splitList(opts.blockedBy) };
      const found = (await taskStore()).ensureTask(paths().tasks, key, input, options());
      done(found, opts.format, found.id);
    });

  // A torn or hand-broken line is kept in the file; the listings say they skipped it.
  const sayUnreadable = (skipped: number[]) => {
    if (skipped.length > 0)
      io.err(
        `ralph: skipped ${skipped.length} line(s) of ${paths().tasks} that are not tasks (line ${skipped.slice(0, 5).join(', ')}${skipped.length > 5 ? ', …' : ''}); they stay in the file — fix or delete them by hand\n`,
      );
  };

  task
    .command('list')
    .description('list tasks in creation order')
    .addOption(new Option('--status <status>', 'only tasks in this status').choices(TASK_STATUSES))
    .addOption(configOption())
    .addOption(formatOption())
    .addOption(jsonFormatOption())
    .action(async (opts) => {
      const store = await taskStore();
      const { readAllTasks, unreadableTaskLines } = store;
      const all = readAllTasks(await files(store, opts.config));
      const tasks = opts.status ? all.filter((t) => t.status === opts.status) : all;
      io.out((await render()).renderTasks(tasks, opts.format, 'no tasks'));
      sayUnreadable(unreadableTaskLines(paths().tasks));
      setCode(ExitCode.ok);
    });

  task
    .command('ready')
    .description('open tasks whose blockers are all closed, most urgent first')
    .addOption(configOption())
    .addOption(formatOption())
    .addOption(jsonFormatOption())
    .action(async (opts) => {
      const store = await taskStore();
      const all = store.readAllTasks(await files(store, opts.config));
      io.out((await render()).renderTasks(readyTasks(all), opts.format, 'no ready tasks'));
      const { unreadableTaskLines } = store;
      sayUnreadable(unreadableTaskLines(paths().tasks));
      setCode(ExitCode.ok);
    });

  task
    .command('show')
    .description('show one task')
    .argument('<id>', TASK_ID)
    .addOption(configOption())
    .addOption(formatOption())
    .addOption(jsonFormatOption())
    .action(async (id, opts) => {
      const store = await taskStore();
      const where = await files(store, opts.config);
      const found = findTask(store.readAllTasks(where), id, store.sourceFileOf(where) ?? where.tasks);
      io.out((await render()).renderTask(found, opts.format));
      setCode(ExitCode.ok);
    });

  // A prd.json story is open or passes: close and reopen set `passes`, start and fail have no place.
  // A beads issue is open, in progress or closed: start, close and reopen set it, fail has no place.
  const external = async (
    store: Store,
    id: string,
    configPath: string | undefined,
    to: (typeof TASK_STATUSES)[number],
  ) => {
    const where = await files(store, configPath);
    if (store.isStory(where, id)) {
      if (to === 'closed' || to === 'open') return store.setStoryPasses(where.prd, id, to === 'closed');
      throw new RalphError(
        'task_invalid',
        `${id} is a story of ${where.prd}: it either passes or not; work on it, then \`ralph tools task close ${id}\``,
      );
    }
    if (store.isBeadsIssue(where, id)) {
      if (to !== 'failed') return store.setBeadsStatus(where.beads, id, to);
      throw new RalphError(
        'task_invalid',
        `${id} is an issue of ${where.beads.file}, and beads has no failed status: say why with \`bd comments add ${id} …\` and leave it open, or \`bd update ${id} --status blocked\``,
      );
    }
    return undefined;
  };
  const transitions = [
    ['start', 'mark a task in progress', (s: Store, p: string, id: string) => s.startTask(p, id)],
    ['close', 'mark a task done', (s: Store, p: string, id: string) => s.closeTask(p, id)],
    [
      'reopen',
      'make a closed or failed task open again',
      (s: Store, p: string, id: string) => s.reopenTask(p, id),
    ],
  ] as const;
  for (const [name, description, apply] of transitions) {
    task
      .command(name)
      .description(description)
      .argument('<id>', TASK_ID)
      .addOption(configOption())
      .addOption(formatOption())
      .addOption(jsonFormatOption())
      .action(async (id, opts) => {
        const store = await taskStore();
        const to = name === 'close' ? 'closed' : name === 'reopen' ? 'open' : 'in_progress';
        const changed = (await external(store, id, opts.config, to)) ?? apply(store, paths().tasks, id);
        done(changed, opts.format, `${changed.id} ${changed.status}`);
      });
  }

  registerTaskImport(task, io, setCode);

  task
    .command('fail')
    .description('mark a task failed')
    .argument('<id>', TASK_ID)
    .option('--reason <text>', 'why it failed')
    .addOption(configOption())
    .addOption(formatOption())
    .addOption(jsonFormatOption())
    .action(async (id, opts) => {
      const store = await taskStore();
      await external(store, id, opts.config, 'failed');
      const failed = store.failTask(paths().tasks, id, redacted(opts.reason));
      done(failed, opts.format, `${failed.id} failed`);
    });
}
