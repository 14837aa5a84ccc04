import { type Command, Option } from '@commander-js/extra-typings';
import { ExitCode, UsageError } from '../errors.ts';
import {
  addMemory,
  deleteMemory,
  MEMORY_TYPES,
  type MemoryEntry,
  primeMemories,
  readMemories,
  searchMemories,
} from '../state/memories.ts';
import { ralphPaths } from '../state/paths.ts';
import {
  addTask,
  closeTask,
  ensureTask,
  failTask,
  findTask,
  readTasks,
  readyTasks,
  reopenTask,
  startTask,
  TASK_STATUSES,
  type Task,
  type TaskOptions,
  unreadableTaskLines,
} from '../state/tasks.ts';
import type { CliIO } from './io.ts';

type Format = 'table' | 'json';

const formatOption = () =>
  new Option('--format <format>', 'output format')
    .choices(['table', 'json'] as const)
    .default('table' as const);
const splitList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** Pads every column but the last to a common width; cells are kept on one line. */
function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows].map((r) => r.map((c) => c.replace(/\s*\n\s*/g, ' ⏎ ')));
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]?.length ?? 0)));
  return all
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  '))
    .map((line) => line.trimEnd())
    .join('\n')
    .concat('\n');
}

const truncate = (text: string, max: number) => {
  const line = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function renderTasks(tasks: Task[], format: Format, empty: string): string {
  if (format === 'json') return json(tasks);
  if (tasks.length === 0) return `${empty}\n`;
  return table(
    ['ID', 'STATUS', 'PRI', 'TITLE', 'BLOCKED BY'],
    tasks.map((t) => [t.id, t.status, String(t.priority), truncate(t.title, 70), t.blocked_by.join(',')]),
  );
}

function renderTask(task: Task, format: Format): string {
  if (format === 'json') return json(task);
  const rows: [string, string | undefined][] = [
    ['id', task.id],
    ['title', task.title],
    ['status', task.status],
    ['priority', String(task.priority)],
    ['key', task.key],
    ['blocked_by', task.blocked_by.length > 0 ? task.blocked_by.join(', ') : undefined],
    ['loop_id', task.loop_id],
    ['created', task.created],
    ['started', task.started],
    ['closed', task.closed],
    ['reason', task.reason],
    ['description', task.description],
  ];
  const shown = rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== '');
  const width = Math.max(...shown.map(([k]) => k.length));
  return `${shown.map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${v}`).join('\n')}\n`;
}

function renderMemories(entries: MemoryEntry[], format: Format, empty: string): string {
  if (format === 'json') return json(entries);
  if (entries.length === 0) return `${empty}\n`;
  return table(
    ['ID', 'TYPE', 'TAGS', 'CREATED', 'CONTENT'],
    entries.map((e) => [e.id, e.type, e.tags.join(','), e.created.slice(0, 10), truncate(e.content, 70)]),
  );
}

function registerTaskCommands(tools: Command, io: CliIO, setCode: (code: number) => void): void {
  const paths = () => ralphPaths(io.env.RALPH_WORKSPACE_ROOT ?? io.cwd);
  const options = (): TaskOptions => ({ loopId: io.env.RALPH_RUN_ID || undefined });
  const done = (task: Task, format: Format, text: string) => {
    if (format === 'json') io.out(json(task));
    else io.out(`${text}\n`);
    setCode(ExitCode.ok);
  };
  const task = tools.command('task').description('runtime tasks in .ralph/agent/tasks.jsonl');

  task
    .command('add')
    .description('add an open task; prints its id')
    .argument('<title>')
    .option('-d, --description <text>', 'longer description')
    .option('-p, --priority <n>', '1 (most urgent) … 5', '3')
    .option('--key <key>', 'idempotency key (see `ensure`)')
    .option('--blocked-by <ids>', 'comma-separated ids of tasks that must be closed first')
    .addOption(formatOption())
    .action((title, opts) => {
      const input = { ...opts, title, blocked_by: splitList(opts.blockedBy) };
      const created = addTask(paths().tasks, input, options());
      done(created, opts.format, created.id);
    });

  task
    .command('ensure')
    .description('add the task with this key unless it exists (in any status); prints its id')
    .argument('<key>')
    .argument('<title>')
    .option('-d, --description <text>', 'longer description')
    .option('-p, --priority <n>', '1 (most urgent) … 5', '3')
    .option('--blocked-by <ids>', 'comma-separated ids of tasks that must be closed first')
    .addOption(formatOption())
    .action((key, title, opts) => {
      const input = { ...opts, title, blocked_by: splitList(opts.blockedBy) };
      const found = ensureTask(paths().tasks, key, input, options());
      done(found, opts.format, found.id);
    });

  task
    .command('list')
    .description('list tasks in creation order')
    .addOption(new Option('--status <status>', 'only tasks in this status').choices(TASK_STATUSES))
    .addOption(formatOption())
    .action((opts) => {
      const all = readTasks(paths().tasks);
      const tasks = opts.status ? all.filter((t) => t.status === opts.status) : all;
      io.out(renderTasks(tasks, opts.format, 'no tasks'));
      // A torn or hand-broken line is kept in the file; the list says it skipped it.
      const skipped = unreadableTaskLines(paths().tasks);
      if (skipped.length > 0)
        io.err(
          `ralph: skipped ${skipped.length} line(s) of ${paths().tasks} that are not tasks (line ${skipped.slice(0, 5).join(', ')}${skipped.length > 5 ? ', …' : ''}); they stay in the file — fix or delete them by hand\n`,
        );
      setCode(ExitCode.ok);
    });

  task
    .command('ready')
    .description('open tasks whose blockers are all closed, most urgent first')
    .addOption(formatOption())
    .action((opts) => {
      io.out(renderTasks(readyTasks(readTasks(paths().tasks)), opts.format, 'no ready tasks'));
      setCode(ExitCode.ok);
    });

  task
    .command('show')
    .description('show one task')
    .argument('<id>')
    .addOption(formatOption())
    .action((id, opts) => {
      const path = paths().tasks;
      io.out(renderTask(findTask(readTasks(path), id, path), opts.format));
      setCode(ExitCode.ok);
    });

  const transitions = [
    ['start', 'mark a task in progress', (p: string, id: string) => startTask(p, id)],
    ['close', 'mark a task done', (p: string, id: string) => closeTask(p, id)],
    ['reopen', 'make a closed or failed task open again', (p: string, id: string) => reopenTask(p, id)],
  ] as const;
  for (const [name, description, apply] of transitions) {
    task
      .command(name)
      .description(description)
      .argument('<id>')
      .addOption(formatOption())
      .action((id, opts) => {
        const changed = apply(paths().tasks, id);
        done(changed, opts.format, `${changed.id} ${changed.status}`);
      });
  }

  task
    .command('fail')
    .description('mark a task failed')
    .argument('<id>')
    .option('--reason <text>', 'why it failed')
    .addOption(formatOption())
    .action((id, opts) => {
      const failed = failTask(paths().tasks, id, opts.reason);
      done(failed, opts.format, `${failed.id} failed`);
    });
}

function registerMemoryCommands(tools: Command, io: CliIO, setCode: (code: number) => void): void {
  const path = () => ralphPaths(io.env.RALPH_WORKSPACE_ROOT ?? io.cwd).memories;
  const memory = tools
    .command('memory')
    .description('memories in .ralph/agent/memories.md (kept across runs)');

  memory
    .command('add')
    .description('record a learning; prints its id')
    .argument('<content>')
    .addOption(new Option('-t, --type <type>', 'kind of memory').choices(MEMORY_TYPES).default('pattern'))
    .option('--tags <tags>', 'comma-separated tags')
    .addOption(formatOption())
    .action((content, opts) => {
      const entry = addMemory(path(), { content, type: opts.type, tags: opts.tags });
      if (opts.format === 'json') io.out(json(entry));
      else io.out(`${entry.id}\n`);
      setCode(ExitCode.ok);
    });

  memory
    .command('list')
    .description('list memories, newest first')
    .addOption(new Option('-t, --type <type>', 'only this kind').choices(MEMORY_TYPES))
    .addOption(formatOption())
    .action((opts) => {
      const entries = searchMemories(readMemories(path()), '', { type: opts.type });
      io.out(renderMemories(entries, opts.format, 'no memories'));
      setCode(ExitCode.ok);
    });

  memory
    .command('search')
    .description('memories containing every word of the query, newest first')
    .argument('[query]', 'words to look for (case-insensitive)', '')
    .addOption(new Option('-t, --type <type>', 'only this kind').choices(MEMORY_TYPES))
    .option('--tags <tags>', 'only memories with any of these comma-separated tags')
    .addOption(formatOption())
    .action((query, opts) => {
      const entries = searchMemories(readMemories(path()), query, { type: opts.type, tags: opts.tags });
      io.out(renderMemories(entries, opts.format, 'no matching memories'));
      setCode(ExitCode.ok);
    });

  memory
    .command('delete')
    .description('delete one memory (Ralph itself never deletes memories)')
    .argument('<id>')
    .action((id) => {
      const removed = deleteMemory(path(), id);
      io.out(`deleted ${removed.id}\n`);
      setCode(ExitCode.ok);
    });

  memory
    .command('prime')
    .description('print the memories as they are injected into the prompt')
    .option('--budget <tokens>', 'keep the newest memories that fit in this many tokens (0 = all)', '0')
    .action((opts) => {
      const budget = Number(opts.budget);
      if (!Number.isInteger(budget) || budget < 0) {
        throw new UsageError(
          `--budget must be a whole number of tokens (0 = no limit), got "${opts.budget}"`,
        );
      }
      io.out(primeMemories(readMemories(path()), budget));
      setCode(ExitCode.ok);
    });
}

/** `ralph tools task …` and `ralph tools memory …`: the agent-facing task and memory tools. */
export function registerToolsCommand(program: Command, io: CliIO, setCode: (code: number) => void): void {
  const tools = program.command('tools').description('task and memory tools for agents inside a loop');
  registerTaskCommands(tools, io, setCode);
  registerMemoryCommands(tools, io, setCode);
}
