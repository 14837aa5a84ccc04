import { type Command, Option } from '@commander-js/extra-typings';
import { ExitCode } from '../../errors.ts';
import { createRedactor } from '../../observe/redact.ts';
import { MEMORY_TYPES } from '../../state/memories/memory.ts';
import { openMemoryStore } from '../../state/memories/memory-store.ts';
import { ralphPaths } from '../../state/paths.ts';
import type { CliIO, SetCode } from '../io.ts';
import { numberOption, WHOLE } from '../options.ts';
import { formatOption, json, jsonFormatOption } from './tool-options.ts';

/** The renderers, loaded when a command prints a table. */
const render = () => import('./tool-render.ts');

const SCOPES = ['project', 'user'] as const;
type Scope = (typeof SCOPES)[number];

function scopeOption() {
  return new Option('--scope <scope>', "the project's memories or the user's (every project)")
    .choices(SCOPES)
    .default('project' as Scope);
}

/** The memory files' reads and changes: loaded when a memory command runs, not to define one. */
const memoryStore = openMemoryStore;

/** `ralph tools memory …`: learnings kept across runs. */
export function registerMemoryTools(tools: Command, io: CliIO, setCode: SetCode): void {
  const projectPath = () => ralphPaths(io.env.RALPH_WORKSPACE_ROOT ?? io.cwd).memories;
  type Store = Awaited<ReturnType<typeof memoryStore>>;
  const userPath = (s: Store) => s.userMemoriesFile(io.env);
  const path = (s: Store, scope: Scope | undefined) => (scope === 'user' ? userPath(s) : projectPath());
  const memory = tools
    .command('memory')
    .description(
      'memories in .ralph/agent/memories.md (kept across runs) and, with --scope user, $XDG_DATA_HOME/ralph/memories.md (every project)',
    );

  memory
    .command('add')
    .description('record a learning; prints its id')
    .argument('<content>', 'the learning, in a sentence or two')
    .addOption(new Option('-t, --type <type>', 'kind of memory').choices(MEMORY_TYPES).default('pattern'))
    .option('--tags <tags>', 'comma-separated tags')
    .addOption(scopeOption())
    .addOption(formatOption())
    .addOption(jsonFormatOption())
    .action(async (content, opts) => {
      const s = await memoryStore();
      // Written redacted, as every text an agent hands Ralph (emit-command.ts says why).
      const redact = createRedactor(io.env);
      const entry = s.addMemory(path(s, opts.scope), {
        content: redact(content),
        type: opts.type,
        tags: opts.tags === undefined ? undefined : redact(opts.tags),
      });
      if (opts.format === 'json') io.out(json(entry));
      else io.out(`${entry.id}\n`);
      setCode(ExitCode.ok);
    });

  memory
    .command('list')
    .description('list memories, newest first')
    .addOption(new Option('-t, --type <type>', 'only this kind').choices(MEMORY_TYPES))
    .addOption(scopeOption())
    .addOption(formatOption())
    .addOption(jsonFormatOption())
    .action(async (opts) => {
      const s = await memoryStore();
      const entries = s.searchMemories(s.readMemories(path(s, opts.scope)), '', { type: opts.type });
      io.out((await render()).renderMemories(entries, opts.format, 'no memories'));
      setCode(ExitCode.ok);
    });

  memory
    .command('search')
    .description('memories containing every word of the query, newest first')
    .argument('[query]', 'words to look for (case-insensitive)', '')
    .addOption(new Option('-t, --type <type>', 'only this kind').choices(MEMORY_TYPES))
    .option('--tags <tags>', 'only memories with any of these comma-separated tags')
    .addOption(scopeOption())
    .addOption(formatOption())
    .addOption(jsonFormatOption())
    .action(async (query, opts) => {
      const s = await memoryStore();
      const entries = s.searchMemories(s.readMemories(path(s, opts.scope)), query, {
        type: opts.type,
        tags: opts.tags,
      });
      io.out((await render()).renderMemories(entries, opts.format, 'no matching memories'));
      setCode(ExitCode.ok);
    });

  memory
    .command('delete')
    .description('delete one memory (Ralph itself never deletes memories)')
    .argument('<id>', 'the memory id (see `ralph tools memory list`)')
    .addOption(scopeOption())
    .action(async (id, opts) => {
      const s = await memoryStore();
      const removed = s.deleteMemory(path(s, opts.scope), id);
      io.out(`deleted ${removed.id}\n`);
      setCode(ExitCode.ok);
    });

  memory
    .command('promote')
    .description(
      "move a project memory to the user's memories ($XDG_DATA_HOME/ralph/memories.md), which every project's prompt gets",
    )
    .argument('<id>', 'the project memory id (see `ralph tools memory list`)')
    .action(async (id) => {
      const s = await memoryStore();
      const { entry } = s.promoteMemory(projectPath(), userPath(s), id);
      io.out(`promoted ${entry.id} to ${userPath(s)}\n`);
      setCode(ExitCode.ok);
    });

  memory
    .command('prime')
    .description('print the memories as they are injected into the prompt')
    .addOption(
      numberOption(
        '--budget <tokens>',
        'keep the newest memories that fit in this many tokens (0 = all)',
        WHOLE,
      ).default(0),
    )
    .action(async (opts) => {
      const s = await memoryStore();
      io.out(s.primeMemories(s.readMemories(projectPath()), opts.budget, s.readMemories(userPath(s))));
      setCode(ExitCode.ok);
    });
}
