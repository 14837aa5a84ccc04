import type { SentMessage, ServedLoop } from './bot-state.ts';

/** The parts of a Bot API `Update` Ralph reads. */
export interface TelegramUpdate {
  update_id: number;
  message?: {
    message_id: number;
    chat: { id: number; type: string };
    text?: string;
    reply_to_message?: { message_id: number };
  };
  callback_query?: {
    id: string;
    data?: string;
    message?: { message_id: number; chat: { id: number } };
  };
}

/** The commands the chat understands, as `/name` (`/status@my_bot` works too). */
export const CHAT_COMMANDS = ['status', 'stop', 'pause', 'resume', 'tail', 'help', 'start'] as const;
export type ChatCommand = (typeof CHAT_COMMANDS)[number];

/** What to do with one update. */
export type Routed =
  | { kind: 'ignore'; why: string }
  /** A button on a question or approval: `choice` is an option, `approve` or `reject`. */
  | { kind: 'button'; callbackId: string; messageId: number; sent: SentMessage; choice: string }
  /** A reply to a question's message: its answer. */
  | { kind: 'answer'; sent: SentMessage; text: string }
  | { kind: 'guidance'; loop: ServedLoop; text: string }
  | { kind: 'command'; command: ChatCommand; loops: ServedLoop[] }
  /** Say this in the chat (nothing else happens): no loop, or an unclear target. */
  | { kind: 'say'; text: string };

/** Button data: `o:<question id>:<option index>`, `y:<approval id>`, `n:<approval id>` (≤ 64 bytes). */
export function buttonData(kind: 'option' | 'approve' | 'reject', id: string, index = 0): string {
  return kind === 'option' ? `o:${id}:${index}` : `${kind === 'approve' ? 'y' : 'n'}:${id}`;
}

/**
 * Routes one update of the bot's chat (pure). A button or a reply goes to the loop that sent the
 * message; otherwise `@name` (a loop's name or run id prefix) picks the loop, else the only loop
 * served; with several and none named, the chat is asked to name one.
 */
export function routeUpdate(
  update: TelegramUpdate,
  loops: readonly ServedLoop[],
  sent: (messageId: number) => SentMessage | undefined,
  options: (workspace: string, questionId: string) => string[] | undefined,
): Routed {
  const cb = update.callback_query;
  if (cb) {
    const onMessage = cb.message ? sent(cb.message.message_id) : undefined;
    const m = /^(o|y|n):([^:]+)(?::(\d+))?$/.exec(cb.data ?? '');
    if (!onMessage || !m || !cb.message) return { kind: 'ignore', why: 'a button Ralph did not make' };
    const [, tag, id, index] = m as unknown as [string, string, string, string | undefined];
    const choice =
      tag === 'y' ? 'approve' : tag === 'n' ? 'reject' : options(onMessage.workspace, id)?.[Number(index)];
    if (choice === undefined) return { kind: 'ignore', why: 'an option that is gone' };
    return {
      kind: 'button',
      callbackId: cb.id,
      messageId: cb.message.message_id,
      sent: { ...onMessage, question_id: id },
      choice,
    };
  }
  const text = update.message?.text?.trim();
  if (!update.message || !text) return { kind: 'ignore', why: 'not a text message' };
  const replyTo = update.message.reply_to_message
    ? sent(update.message.reply_to_message.message_id)
    : undefined;
  if (replyTo?.question_id) return { kind: 'answer', sent: replyTo, text };

  let rest = text;
  let named: ServedLoop[] | undefined;
  const at = /^@(\S+)\s*([\s\S]*)$/.exec(text);
  if (at) {
    const name = at[1] as string;
    named = loops.filter((l) => l.name === name || l.run_id.startsWith(name));
    rest = (at[2] as string).trim();
    if (named.length === 0)
      return { kind: 'say', text: `no loop called @${name} is running here.${loopList(loops)}` };
    if (named.length > 1)
      return { kind: 'say', text: `@${name} names ${named.length} loops.${loopList(loops)}` };
  }
  const replyLoop = replyTo ? loops.filter((l) => l.run_id === replyTo.run_id) : undefined;
  const targets = named ?? (replyLoop && replyLoop.length > 0 ? replyLoop : [...loops]);

  const cmd = /^\/([a-z_]+)(?:@\S+)?\s*$/i.exec(rest);
  if (cmd) {
    const command = (cmd[1] as string).toLowerCase();
    if (!(CHAT_COMMANDS as readonly string[]).includes(command))
      return { kind: 'say', text: `unknown command /${command}. ${HELP}` };
    return { kind: 'command', command: command as ChatCommand, loops: targets };
  }
  if (rest === '') return { kind: 'say', text: 'say what the agent should do after the @name' };
  if (targets.length === 0)
    return { kind: 'say', text: 'no Ralph loop is running for this bot: nothing to tell.' };
  if (targets.length > 1)
    return {
      kind: 'say',
      text: `${targets.length} loops are running: start the message with @name, or reply to one of their messages.${loopList(loops)}`,
    };
  return { kind: 'guidance', loop: targets[0] as ServedLoop, text: rest };
}

/** The help text (`/help`). */
export const HELP =
  'Commands: /status, /stop, /pause, /resume, /tail, /help. Reply to a question (or press a button) to answer it; any other message is guidance for the next iteration. With several loops: "@name message" or "@name /stop".';

function loopList(loops: readonly ServedLoop[]): string {
  return loops.length === 0 ? '' : ` Running: ${loops.map((l) => `@${l.name} (${l.run_id})`).join(', ')}`;
}
