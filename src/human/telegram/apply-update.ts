import { basename } from 'node:path';
import { RalphError } from '../../errors.ts';
import { ralphPaths } from '../../state/paths.ts';
import { telegramText } from '../chat-text.ts';
import { answer, approve, pause, reject, resume, stop, tell } from '../control.ts';
import { readQuestions } from '../control-files.ts';
import { logTail, readStatus } from '../read-status.ts';
import { humanStatus } from '../status-lines.ts';
import type { ServedLoop } from './bot-state.ts';
import { type ChatCommand, HELP, type Routed } from './route-update.ts';

/** Telegram's limit for one message is 4096 characters; status and tails are cut well below it. */
const MAX_TEXT = 3500;

/** What an update asks of the bot after it was applied: a message for the chat, and the button fix-ups. */
export interface Applied {
  /** Say this in the chat (a reply to the human's message when `replyTo` is set). */
  text?: string | undefined;
  /** Acknowledge a pressed button with this short toast. */
  callback?: { id: string; text: string } | undefined;
  /** Take the buttons off this message (its question is settled). */
  clearButtons?: number | undefined;
}

/**
 * Applies a routed update through the control channel (src/human/control.ts): the same functions
 * `ralph answer|approve|reject|tell|stop|pause|resume` call, with `source: telegram`; `/status` and
 * `/tail` read what `ralph status` and the dashboard's log tail read. A refusal (nothing to answer,
 * no loop) becomes the chat's reply, never an exception.
 */
export function applyUpdate(routed: Routed): Applied {
  try {
    return applyOrThrow(routed);
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    const text = error.message;
    return routed.kind === 'button'
      ? {
          callback: { id: routed.callbackId, text: text.slice(0, 190) },
          text,
          clearButtons: routed.messageId,
        }
      : { text };
  }
}

function applyOrThrow(routed: Routed): Applied {
  switch (routed.kind) {
    case 'ignore':
      return {};
    case 'say':
      return { text: routed.text };
    case 'button': {
      const settled = settle(routed.sent.workspace, routed.sent.question_id as string, routed.choice);
      return {
        callback: { id: routed.callbackId, text: settled.text },
        clearButtons: routed.messageId,
        text: settled.text,
      };
    }
    case 'answer': {
      // A reply settles the question as a press would: its buttons (if it had any) go too.
      const settled = settle(routed.sent.workspace, routed.sent.question_id as string, routed.text);
      return { text: settled.text, clearButtons: settled.hadButtons ? routed.sent.message_id : undefined };
    }
    case 'guidance': {
      const target = { workspace: routed.loop.workspace, source: 'telegram' as const };
      tell(target, routed.text);
      return { text: `noted for the next iteration of @${routed.loop.name}` };
    }
    case 'command':
      return { text: runCommand(routed.command, routed.loops) };
  }
}

/**
 * Answers question `id` (or approves/rejects approval `id`) of a workspace: what happened, in words,
 * and whether its message had buttons (an approval's, or a question's options).
 */
function settle(workspace: string, id: string, text: string): { text: string; hadButtons: boolean } {
  const q = readQuestions(ralphPaths(workspace).questions).get(id);
  const target = { workspace, source: 'telegram' as const };
  if (q?.kind === 'approval') {
    const yes = /^(approve|approved|yes|y|ok|👍)$/i.test(text.trim());
    if (yes) {
      approve(target, { id });
      return { text: `approved ${id}`, hadButtons: true };
    }
    const reason = text.trim() === 'reject' ? 'rejected on Telegram' : text;
    reject(target, reason, { id });
    return { text: `rejected ${id}: ${reason}`, hadButtons: true };
  }
  const done = answer(target, text, { id });
  // The answer may be an option the agent wrote: echoed, it mentions nobody.
  const said = telegramText(String(done.question.answer ?? ''));
  return { text: `answered ${id}: ${said}`, hadButtons: (q?.options?.length ?? 0) > 0 };
}

function runCommand(command: ChatCommand, loops: ServedLoop[]): string {
  if (command === 'help') return HELP;
  if (command === 'start') return `Ralph is listening here. ${HELP}`;
  if (loops.length === 0) return 'no Ralph loop is running for this bot.';
  if (command === 'status') return clip(loops.map(statusOf).join('\n\n'));
  if (loops.length > 1)
    return `${loops.length} loops are running: say which, e.g. "@${loops[0]?.name} /${command}".`;
  const loop = loops[0] as ServedLoop;
  const target = { workspace: loop.workspace, source: 'telegram' as const };
  switch (command) {
    case 'stop':
      stop(target);
      return `@${loop.name} stops after the current iteration`;
    case 'pause':
      pause(target);
      return `@${loop.name} pauses after the current iteration (/resume goes on)`;
    case 'resume':
      resume(target);
      return `@${loop.name} goes on`;
    case 'tail': {
      const tail = logTail(loop.workspace, readStatus(loop.workspace).state, 15).trim();
      return clip(`@${loop.name}, the end of its log:\n${telegramText(tail) || '(nothing yet)'}`, true);
    }
  }
}

/** `ralph status`'s lines for one served loop. */
export function statusOf(loop: ServedLoop): string {
  const s = readStatus(loop.workspace);
  const name = `@${loop.name || basename(loop.workspace)}`;
  if (!s.state) return `${name}: no run yet`;
  const lines = humanStatus(s.state, {
    running: s.running,
    crashed: s.crashed,
    stopRequested: s.stopRequested,
    pid: s.holder?.pid,
    now: Date.now(),
    lastEventAt: s.lastEventAt,
  });
  // The status quotes the agent (an open question, a stop message): its @names mention nobody.
  return `${name} ${telegramText(lines.join('\n'))}`;
}

/** At most {@link MAX_TEXT} characters; a tail keeps its end. */
function clip(text: string, keepEnd = false): string {
  if (text.length <= MAX_TEXT) return text;
  return keepEnd ? `…${text.slice(-MAX_TEXT)}` : `${text.slice(0, MAX_TEXT)}…`;
}
