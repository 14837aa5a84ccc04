import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { isAbsolute, resolve } from 'node:path';
import { pickReply, type RequestView, type ScriptedReply, type ScriptedToolCall, stepOf } from './script.ts';
import type { Protocol } from './server.ts';

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/** Text of a message's content: a string, or its `text` blocks joined by newlines. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is Json => isObj(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

const hasToolResult = (m: Json): boolean =>
  Array.isArray(m.content) && (m.content as unknown[]).some((b) => isObj(b) && b.type === 'tool_result');

const onlyToolResults = (m: Json): boolean =>
  Array.isArray(m.content) &&
  (m.content as unknown[]).length > 0 &&
  (m.content as unknown[]).every((b) => isObj(b) && b.type === 'tool_result');

/**
 * The script's view of a Messages request: the whole text of the latest user message that is not
 * only tool results (Claude Code puts `<system-reminder>` blocks before the prompt in that same
 * message), and how many tool-result messages follow it.
 */
export function anthropicView(body: Json): RequestView {
  const messages = (Array.isArray(body.messages) ? body.messages : []).filter(isObj);
  let last = -1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'user' && !onlyToolResults(m)) last = i;
  }
  const prompt = last >= 0 ? contentText(messages[last]!.content) : '';
  const toolRounds = messages.slice(last + 1).filter((m) => m.role === 'user' && hasToolResult(m)).length;
  return { prompt, toolRounds };
}

/**
 * The agent's working directory, from the environment section Claude Code sends
 * (`Primary working directory: /path`, in the system prompt or a `system` message).
 */
export function requestCwd(body: Json): string | undefined {
  const m = /Primary working directory: ([^\n"\\]+)/.exec(JSON.stringify([body.system, body.messages]));
  return m?.[1]?.trim();
}

/** Single-quotes a string for a POSIX shell. */
const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** A file write as one shell command (a quoted heredoc, or printf when there is no final newline). */
export function heredocWrite(path: string, content: string): string {
  const slash = path.lastIndexOf('/');
  const dir = slash > 0 ? `mkdir -p ${shq(path.slice(0, slash))} && ` : '';
  let marker = 'RALPH_EOF';
  while (content.includes(marker)) marker += '_';
  if (content.endsWith('\n')) return `${dir}cat > ${shq(path)} <<'${marker}'\n${content}${marker}`;
  return `${dir}printf '%s' ${shq(content)} > ${shq(path)}`;
}

/**
 * Claude Code's own tool for a scripted call: `shell` → `Bash`; `write_file` → `Write` with an
 * absolute path (resolved against the request's working directory) for a new file, or a Bash
 * heredoc when the file exists (Write refuses to overwrite a file not Read in the same session) or
 * the directory is unknown.
 */
export function claudeTool(call: ScriptedToolCall, cwd: string | undefined): { name: string; input: Json } {
  if (call.kind === 'shell')
    return { name: 'Bash', input: { command: call.command, description: 'Run the scripted command' } };
  const absolute = isAbsolute(call.path) ? call.path : cwd ? resolve(cwd, call.path) : undefined;
  if (absolute && !existsSync(absolute))
    return { name: 'Write', input: { file_path: absolute, content: call.content } };
  return {
    name: 'Bash',
    input: {
      command: heredocWrite(absolute ?? call.path, call.content),
      description: 'Write the scripted file',
    },
  };
}

let counter = 0;
const nextId = (prefix: string): string => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36)}`;

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Json };

/** The SSE events of one streamed Messages response (text deltas, tool input as input_json_delta). */
export function messageEvents(
  model: string,
  blocks: Block[],
  usage: { input: number; output: number },
): { event: string; data: unknown }[] {
  const events: { event: string; data: unknown }[] = [];
  const push = (type: string, data: Json) => events.push({ event: type, data: { type, ...data } });
  push('message_start', {
    message: {
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      push('content_block_start', { index, content_block: { type: 'text', text: '' } });
      push('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      push('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      // Split the input JSON in two, as the real API streams it in pieces.
      const json = JSON.stringify(block.input);
      const cut = Math.floor(json.length / 2);
      push('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: json.slice(0, cut) },
      });
      push('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: json.slice(cut) },
      });
    }
    push('content_block_stop', { index });
  });
  const toolUse = blocks.some((b) => b.type === 'tool_use');
  push('message_delta', {
    delta: { stop_reason: toolUse ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  push('message_stop', {});
  return events;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function sendStatus(res: ServerResponse, reply: ScriptedReply): void {
  const status = reply.status ?? 500;
  const type = ERROR_TYPES[status] ?? 'api_error';
  res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
  res.end(
    JSON.stringify(
      reply.errorBody ?? { type: 'error', error: { type, message: `scripted ${type} (${status})` } },
    ),
  );
}

/** An SSE response with the reply's extra headers (e.g. `anthropic-ratelimit-unified-*`). */
function sendSse(
  res: ServerResponse,
  headers: Record<string, string> | undefined,
  events: { event: string; data: unknown }[],
) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  for (const e of events) res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

const estimate = (v: unknown): number => Math.max(1, Math.ceil(JSON.stringify(v ?? '').length / 4));

/**
 * Anthropic Messages as Claude Code speaks it: `POST /v1/messages` (streamed as SSE, or one JSON
 * message when `stream` is not set), `POST /v1/messages/count_tokens`, and `GET /v1/models`.
 * Claude Code 2.1.329 in `-p` mode only ever called `POST /v1/messages?beta=true` with `stream: true`.
 */
export const anthropicMessages: Protocol = {
  name: 'anthropic-messages',
  handles: (method, path) =>
    (method === 'POST' && /\/v1\/messages(\/count_tokens)?$/.test(path)) ||
    (method === 'GET' && /\/v1\/models$/.test(path)),
  handle({ req, res, body, path, script, used }) {
    const request = isObj(body) ? body : {};
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          data: [
            {
              type: 'model',
              id: 'claude-sonnet-4-5',
              display_name: 'Claude Sonnet 4.5',
              created_at: '2025-09-29T00:00:00Z',
            },
          ],
          has_more: false,
          first_id: 'claude-sonnet-4-5',
          last_id: 'claude-sonnet-4-5',
        }),
      );
      return;
    }
    if (path.endsWith('/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: estimate([request.system, request.messages, request.tools]) }));
      return;
    }
    const view = anthropicView(request);
    const { reply } = pickReply(script, view, used);
    if (reply.status !== undefined && reply.status >= 400) {
      sendStatus(res, reply);
      return;
    }
    const step = stepOf(reply, view);
    const cwd = requestCwd(request);
    const blocks: Block[] = [];
    if (step.text !== null) blocks.push({ type: 'text', text: step.text });
    for (const call of step.tools)
      blocks.push({ type: 'tool_use', id: nextId('toolu'), ...claudeTool(call, cwd) });
    const usage = reply.usage ?? { input: estimate(request.messages), output: estimate(blocks) };
    const model = typeof request.model === 'string' ? request.model : 'claude-sonnet-4-5';
    if (request.stream === true) {
      sendSse(res, reply.headers, messageEvents(model, blocks, usage));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
    res.end(
      JSON.stringify({
        id: nextId('msg'),
        type: 'message',
        role: 'assistant',
        model,
        content: blocks,
        stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      }),
    );
  },
};
