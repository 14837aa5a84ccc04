import { basename } from 'node:path';
import type { LoopEvent } from '../../observe/events.ts';
import type { Reporter } from '../../observe/reporter.ts';
import { thisHolder } from '../../state/io/lock.ts';
import { splitMessage, telegramText } from '../chat-text.ts';
import { notificationOf, notificationSummary } from '../notify.ts';
import { statusOf } from './apply-update.ts';
import { type BotApi, createBotApi } from './bot-api.ts';
import { readBotFile, recordSent, registerLoop, type ServedLoop } from './bot-state.ts';
import { runPoller } from './poller.ts';
import { buttonData } from './route-update.ts';
import { createSendQueue } from './send-queue.ts';
import type { TelegramSettings } from './settings.ts';

export interface TelegramReporterOptions {
  settings: TelegramSettings;
  workspace: string;
  /** A send given up on, a chat that cannot be read (never thrown: Telegram never stops the loop). */
  onProblem: (message: string) => void;
  fetchImpl?: typeof fetch;
  /** How long `close` waits for messages in flight, e.g. the `stopped` one (default 10 s). */
  closeWaitMs?: number;
}

/** The notifications that go to the chat as messages (questions and approvals go with buttons). */
const CHAT_NOTIFICATIONS = new Set(['stopped', 'parked', 'limit_warning']);

/**
 * The human on Telegram (`RObot`), as a sink of the run's (redacted) event stream: questions and
 * approvals go to the chat with buttons, notifications and check-ins as messages; and, while this
 * loop is the bot's poller, what the chat says is applied through the control channel
 * (poller.ts). Nothing here blocks the loop: sends are queued, bounded and retried in the background.
 */
export function createTelegramReporter(o: TelegramReporterOptions): Reporter & { close(): Promise<void> } {
  const { settings } = o;
  const dir = settings.stateDir;
  const api: BotApi = createBotApi({
    apiUrl: settings.apiUrl,
    token: settings.token,
    fetchImpl: o.fetchImpl,
  });
  const queue = createSendQueue({ api, chatId: () => readBotFile(dir).chat_id, onProblem: o.onProblem });
  const stopping = new AbortController();
  const name = basename(o.workspace);
  const questionMessages = new Map<string, number>();
  let loop: ServedLoop | undefined;
  let registration: { remove(): void } | undefined;
  let poller: Promise<void> | undefined;
  let checkins: NodeJS.Timeout | undefined;

  // A text over Telegram's limit goes as several messages (the buttons on the last); each part is
  // recorded as the question's, so a reply to any of them answers it.
  const send = (text: string, what: string, extra: object = {}, questionId?: string) => {
    const runId = loop?.run_id ?? '';
    const parts = splitMessage(text).filter((p) => p.trim() !== '');
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      queue.push({
        method: 'sendMessage',
        what: parts.length > 1 ? `${what} (part ${i + 1} of ${parts.length})` : what,
        mustDeliver: questionId !== undefined,
        // Plain text (no parse_mode), and no preview fetched for a link the agent wrote.
        params: (chat_id) => ({
          chat_id,
          text: part,
          link_preview_options: { is_disabled: true },
          ...(last ? extra : {}),
        }),
        onSent: (result) => {
          const id = (result as { message_id?: number } | undefined)?.message_id;
          if (typeof id !== 'number') return;
          if (questionId && last) questionMessages.set(questionId, id);
          recordSent(dir, { message_id: id, run_id: runId, workspace: o.workspace, question_id: questionId });
        },
      });
    });
  };

  const start = (runId: string) => {
    const me = thisHolder();
    loop = { run_id: runId, workspace: o.workspace, name, ...me };
    registration = registerLoop(dir, { run_id: runId, workspace: o.workspace, name });
    poller = runPoller({
      api,
      dir,
      me,
      signal: stopping.signal,
      onProblem: o.onProblem,
      respond: (applied, update, chatId) => {
        if (applied.callback)
          queue.push({
            method: 'answerCallbackQuery',
            what: 'a button acknowledgement',
            params: () => ({ callback_query_id: applied.callback?.id, text: applied.callback?.text }),
          });
        if (applied.clearButtons !== undefined)
          queue.push({
            method: 'editMessageReplyMarkup',
            what: 'a settled question',
            params: () => ({
              chat_id: chatId,
              message_id: applied.clearButtons,
              reply_markup: { inline_keyboard: [] },
            }),
          });
        const replyTo = update.message?.message_id;
        if (applied.text)
          send(
            applied.text,
            'a reply',
            replyTo === undefined ? {} : { reply_parameters: { message_id: replyTo } },
          );
      },
    });
    if (settings.checkinMs !== undefined) {
      const current = loop;
      checkins = setInterval(() => send(statusOf(current), 'a check-in'), settings.checkinMs);
      checkins.unref();
    }
  };

  const onEvent = (event: LoopEvent) => {
    if (event.type === 'loop.started') {
      if (!loop) start(event.runId);
      send(
        `@${name}: ${event.resumed ? 'resumed' : 'started'} run ${event.runId} (${event.backend}) in ${o.workspace}`,
        'the start message',
      );
      return;
    }
    if (event.type === 'human.question') {
      const approval = event.kind === 'approval';
      const head = approval
        ? `@${name} waits for your approval (${event.point ?? 'review'}, iteration ${event.iteration}):`
        : `@${name} asks (iteration ${event.iteration}):`;
      const how = approval
        ? 'Approve or reject with the buttons, or reply with the reason to reject.'
        : event.options?.length
          ? 'Press an option, or reply to this message.'
          : 'Reply to this message to answer.';
      const buttons = approval
        ? [
            [
              { text: 'Approve', callback_data: buttonData('approve', event.id) },
              { text: 'Reject', callback_data: buttonData('reject', event.id) },
            ],
          ]
        : (event.options ?? []).map((opt, i) => [
            { text: opt, callback_data: buttonData('option', event.id, i) },
          ]);
      const markup = buttons.length > 0 ? { reply_markup: { inline_keyboard: buttons } } : {};
      send(
        `${head}\n${telegramText(event.text)}\n\n${how} (${event.id})`,
        `the ${event.kind} ${event.id}`,
        markup,
        event.id,
      );
      return;
    }
    if (event.type === 'human.progress') {
      send(
        `@${name} progress (iteration ${event.iteration}):\n${telegramText(event.text)}`,
        `the progress note ${event.id}`,
      );
      return;
    }
    if (event.type === 'human.answered' && event.by !== 'telegram') {
      const messageId = questionMessages.get(event.id);
      if (messageId !== undefined)
        queue.push({
          method: 'editMessageReplyMarkup',
          what: 'a settled question',
          params: (chat_id) => ({ chat_id, message_id: messageId, reply_markup: { inline_keyboard: [] } }),
        });
      return;
    }
    const n = notificationOf(event, loop?.run_id ?? null, o.workspace, new Date());
    if (n && CHAT_NOTIFICATIONS.has(n.kind))
      send(notificationSummary(n, { bold: (t) => t, text: telegramText }), `the ${n.kind} notification`);
  };

  return {
    onEvent,
    async close() {
      if (checkins) clearInterval(checkins);
      stopping.abort();
      await poller;
      registration?.remove();
      await queue.close(o.closeWaitMs ?? 10_000);
    },
  };
}
