import { type PromptSkill, skillsSection } from './skills-section.ts';

/** `events.<topic>` of ralph.yml (ralph-orchestrator's event metadata). */
export interface EventMeta {
  description: string;
  on_trigger: string;
  on_publish: string;
}

/** A task shown to the agent. */
export interface PromptTask {
  id: string;
  title: string;
  priority: number;
}

/** Everything the prompt of one iteration is built from (pure data). */
export interface PromptInput {
  /** Ralph's context block (iteration N of M, checklist progress, recent journal), put first; null for none. */
  context?: string | null | undefined;
  /** The user's prompt (PROMPT.md, -p text). */
  base: string;
  completionPromise: string;
  /** The active hat, or null (solo mode, or no hat matched: the DONE section is included). */
  hat: {
    id: string;
    name: string;
    /** `hats.<id>.description`, shown above the instructions when set. */
    description?: string | undefined;
    instructions: string;
    publishes: readonly string[];
  } | null;
  /** `core.guardrails`: rules every iteration sees, as a numbered list. */
  guardrails?: readonly string[] | undefined;
  /** The skills this iteration lists (`skills:`); none adds nothing to the prompt. */
  skills?: readonly PromptSkill[] | undefined;
  /** `events.<topic>`: what a topic means, what to do when it arrives, when to publish it. */
  eventMeta?: Readonly<Record<string, EventMeta>> | undefined;
  /** The config has hats: tell the agent how to publish events. */
  hatsMode: boolean;
  /** Pending events routed to this iteration. */
  events: readonly { topic: string; payload: unknown }[];
  /** Scratchpad text as read from disk (null when the file does not exist). */
  scratchpad: string | null;
  /** Where the scratchpad lives, relative to the workspace (default `.ralph/agent/scratchpad.md`). */
  scratchpadLabel?: string | undefined;
  /** Characters of the scratchpad kept (its newest part). */
  scratchpadBudget: number;
  /** Memories already rendered within their budget ('' for none). */
  memories: string;
  readyTasks: readonly PromptTask[];
}

/** The newest part of `text` within `budget` characters, cut at a line start. */
export function tailWithin(text: string, budget: number): { text: string; omitted: boolean } {
  if (text.length <= budget) return { text, omitted: false };
  const cut = text.slice(text.length - budget);
  const nl = cut.indexOf('\n');
  return { text: nl >= 0 && nl < cut.length - 1 ? cut.slice(nl + 1) : cut, omitted: true };
}

function payloadText(payload: unknown): string {
  if (payload === null || payload === undefined || payload === '') return '';
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/**
 * Assembles the prompt of one iteration (pure). Ralph's own text is kept to a few short lines:
 * every byte is paid for on every iteration.
 */
export function assemblePrompt(input: PromptInput): string {
  const parts = input.context ? [input.context.trimEnd(), input.base.trimEnd()] : [input.base.trimEnd()];
  if (input.hat?.description?.trim())
    parts.push(`## Hat: ${input.hat.name}\n${input.hat.description.trim()}`);
  if (input.hat) parts.push(input.hat.instructions.trimEnd());
  const guardrails = (input.guardrails ?? []).filter((g) => g.trim() !== '');
  if (guardrails.length > 0)
    parts.push(`## Guardrails\n${guardrails.map((g, i) => `${i + 1}. ${g.trim()}`).join('\n')}`);
  const skills = skillsSection(input.skills ?? []);
  if (skills) parts.push(skills);
  const meta = input.eventMeta ?? {};
  if (input.events.length > 0) {
    const lines = input.events.map((e) => {
      const p = payloadText(e.payload);
      const line = p.includes('\n')
        ? `- ${e.topic}:\n${p.replace(/^/gm, '  ')}`
        : `- ${e.topic}${p ? `: ${p}` : ''}`;
      const m = meta[e.topic];
      const note = [m?.description, m?.on_trigger].filter((t) => t?.trim()).join(' ');
      return note ? `${line}\n  ${note.trim()}` : line;
    });
    parts.push(`## Events\n${lines.join('\n')}`);
  }
  if (input.scratchpad !== null && input.scratchpad.trim() !== '') {
    const { text, omitted } = tailWithin(input.scratchpad.trimEnd(), input.scratchpadBudget);
    const label = input.scratchpadLabel ?? '.ralph/agent/scratchpad.md';
    parts.push(`## Scratchpad (${label}${omitted ? ', newest part' : ''})\n${text}`);
  }
  if (input.memories.trim() !== '') {
    // Rendered memories carry their own `# Memories` heading (the memories.md format).
    const text = input.memories.trimEnd();
    parts.push(text.startsWith('# Memories') ? text : `## Memories\n${text}`);
  }
  if (input.readyTasks.length > 0) {
    parts.push(
      `## Ready tasks\n${input.readyTasks.map((t) => `- ${t.id} [P${t.priority}] ${t.title}`).join('\n')}`,
    );
  }
  if (input.hatsMode) {
    const allowed =
      input.hat && input.hat.publishes.length > 0
        ? ` This hat publishes: ${input.hat.publishes.join(', ')}.`
        : '';
    const when = (input.hat?.publishes ?? []).flatMap((topic) => {
      const m = meta[topic];
      const note = [m?.description, m?.on_publish].filter((t) => t?.trim()).join(' ');
      return note ? [`- ${topic}: ${note.trim()}`] : [];
    });
    parts.push(
      `## Publishing\nPublish events with \`ralph emit <topic> [payload]\`.${allowed}${when.length > 0 ? `\n${when.join('\n')}` : ''}`,
    );
  }
  if (!input.hat) {
    parts.push(
      [
        '## DONE',
        'You run in a loop; each iteration is a fresh session. Do one piece of work, leave progress in files.',
        `When the whole task is complete and verified, end your final message with a line containing only ${input.completionPromise}`,
      ].join('\n'),
    );
  }
  return `${parts.join('\n\n')}\n`;
}
