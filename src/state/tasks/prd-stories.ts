import { RalphError } from '../../errors.ts';
import { writeFileAtomicSync } from '../io/atomic-write.ts';
import { withFileLock } from '../io/file-lock.ts';
import { readOptional } from '../io/read-optional.ts';
import { readTextCached } from '../io/stat-cache.ts';
import { DEFAULT_PRIORITY, findTask, type Task } from './task.ts';

// `tasks.source: prd.json`: snarktank/ralph's and ralph-tui's PRD, `userStories[]` with a `passes`
// flag, read as Ralph's tasks. The file stays theirs: the agent may flip `passes` itself.

/** One user story of a prd.json, as Ralph reads it. */
export interface PrdStory {
  id: string;
  title: string;
  description: string;
  acceptanceCriteria: string[];
  priority: number;
  passes: boolean;
  /** ralph-tui's `dependsOn`: ids of stories that must pass first. */
  dependsOn: string[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(file: string, why: string): RalphError {
  return new RalphError(
    'tasks_unreadable',
    `${file}: ${why}; a prd.json holds {"userStories": [{"id", "title", "passes", …}]} (or set tasks.source: file)`,
  );
}

/** The document of a prd.json text, or a RalphError naming the file and what is wrong. */
function parseDocument(text: string, file: string): Json & { userStories: unknown[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `not JSON (${(error as Error).message})`);
  }
  if (!isObject(doc) || !Array.isArray(doc.userStories)) throw invalid(file, 'no "userStories" list');
  return doc as Json & { userStories: unknown[] };
}

/** One story of the list, checked: an id and a title are needed, the rest has defaults. */
function storyOf(raw: unknown, n: number, file: string): PrdStory {
  if (!isObject(raw)) throw invalid(file, `userStories[${n}] is not an object`);
  const { id, title } = raw;
  if (typeof id !== 'string' || id.trim() === '') throw invalid(file, `userStories[${n}] has no "id"`);
  if (typeof title !== 'string') throw invalid(file, `story ${id} has no "title"`);
  const criteria = Array.isArray(raw.acceptanceCriteria)
    ? raw.acceptanceCriteria.filter((c): c is string => typeof c === 'string')
    : [];
  const priority =
    typeof raw.priority === 'number' && Number.isFinite(raw.priority) ? raw.priority : undefined;
  return {
    id,
    title,
    description: typeof raw.description === 'string' ? raw.description : '',
    acceptanceCriteria: criteria,
    priority: priority ?? DEFAULT_PRIORITY,
    passes: raw.passes === true,
    dependsOn: Array.isArray(raw.dependsOn)
      ? raw.dependsOn.filter((d): d is string => typeof d === 'string')
      : [],
  };
}

/** The stories of a prd.json text (pure); a RalphError naming `file` when it is not one. */
export function parsePrd(text: string, file: string): PrdStory[] {
  const stories = parseDocument(text, file).userStories.map((s, n) => storyOf(s, n, file));
  const seen = new Set<string>();
  for (const s of stories) {
    if (seen.has(s.id)) throw invalid(file, `two stories have the id ${s.id}`);
    seen.add(s.id);
  }
  return stories;
}

/** A story as a task (pure): `passes` is closed, anything else open; the criteria in its description. */
export function storyTask(story: PrdStory): Task {
  const criteria = story.acceptanceCriteria.map((c) => `- ${c}`).join('\n');
  const description = [story.description, criteria ? `Acceptance criteria:\n${criteria}` : '']
    .filter((p) => p !== '')
    .join('\n\n');
  return {
    id: story.id,
    title: story.title,
    ...(description ? { description } : {}),
    status: story.passes ? 'closed' : 'open',
    priority: story.priority,
    blocked_by: story.dependsOn,
    // No creation time in a PRD: the stories keep their priority order, then their ids.
    created: '',
  };
}

const missing = (path: string) =>
  new RalphError(
    'tasks_unreadable',
    `${path} is missing: tasks.source is prd.json; create it (snarktank/ralph's layout) or set tasks.prd to where it is`,
  );

/** The stories of the prd.json at `path` as tasks, read fresh when it changed; missing is an error. */
export function readPrdTasks(path: string): Task[] {
  let read: ReturnType<typeof readTextCached>;
  try {
    read = readTextCached(path);
  } catch (error) {
    throw new RalphError('tasks_unreadable', `cannot read ${path}: ${(error as Error).message}`);
  }
  if (!('text' in read)) throw missing(path);
  return parsePrd(read.text, path).map(storyTask);
}

/**
 * Sets a story's `passes` in the prd.json (`ralph tools task close` / `reopen`), under the file's
 * lock, the rest of the document kept as it was. Returns the story as a task after the change.
 */
export function setStoryPasses(path: string, id: string, passes: boolean): Task {
  return withFileLock(path, () => {
    // Read again under the lock, not from the cache: the agent may have written it a moment ago.
    const text = readOptional(path, 'throw');
    if (text === undefined) throw missing(path);
    findTask(parsePrd(text, path).map(storyTask), id, path);
    const doc = parseDocument(text, path);
    const raw = doc.userStories.find((s) => isObject(s) && s.id === id) as Json;
    if (raw.passes !== passes) {
      raw.passes = passes;
      const indent = /^\{\n([ \t]+)/.exec(text)?.[1] ?? '  ';
      writeFileAtomicSync(path, `${JSON.stringify(doc, null, indent)}\n`);
    }
    return storyTask(storyOf(raw, 0, path));
  });
}
