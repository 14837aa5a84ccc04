import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { sendOpenAiError } from './openai-errors.ts';
import { pickReply, type RequestView, type ScriptedReply, type ScriptedToolCall } from './script.ts';
import { type Protocol, sse } from './server.ts';

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/** Text of a chat message's content: a string, or its `text` parts joined by newlines. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p): p is Json => isObj(p) && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}

/**
 * The script's view of a Chat Completions request: the latest `user` message (the prompt) and the
 * number of tool-result rounds after it (a run of consecutive `tool` messages is one round).
 */
export function chatView(body: Json): RequestView {
  const messages = (Array.isArray(body.messages) ? body.messages : []).filter(isObj);
  let last = -1;
  for (let i = 0; i < messages.length; i++) if (messages[i]!.role === 'user') last = i;
  const prompt = last >= 0 ? contentText(messages[last]!.content) : '';
  let toolRounds = 0;
  let inTools = false;
  for (const m of messages.slice(last + 1)) {
    const isTool = m.role === 'tool';
    if (isTool && !inTools) toolRounds++;
    inTools = isTool;
  }
  return { prompt, toolRounds };
}

/** The names of the function tools a request offers. */
export function toolNames(body: Json): Set<string> {
  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  return new Set(
    tools.flatMap((t) =>
      isObj(t) && isObj(t.function) && typeof t.function.name === 'string' ? [t.function.name] : [],
    ),
  );
}

/** Whether a request is opencode's session-title call (a separate model call with no tools). */
export function isTitleRequest(body: Json): boolean {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  const system = messages
    .filter((m): m is Json => isObj(m) && m.role === 'system')
    .map((m) => contentText(m.content))
    .join('\n');
  return /title generator/i.test(system);
}

/** The agent's working directory, from opencode's environment block (`Working directory: /path`). */
export function requestCwd(body: Json): string | undefined {
  const m = /Working directory: ([^\n"\\<]+)/.exec(JSON.stringify(body.messages ?? ''));
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

/** An `apply_patch` patch that adds one new file (each line of the content prefixed with `+`). */
export function addFilePatch(path: string, content: string): string {
  const lines = content.slice(0, -1).split('\n');
  return ['*** Begin Patch', `*** Add File: ${path}`, ...lines.map((l) => `+${l}`), '*** End Patch'].join(
    '\n',
  );
}

/**
 * opencode's own tool for a scripted call (names and arguments as its request's `tools` declare
 * them): `shell` → `bash` ({command}); `write_file` → `write` ({filePath, content}, an absolute
 * path resolved against the request's working directory; opencode 1.18 overwrites an existing file
 * without reading it first). For GPT-style model names opencode offers `apply_patch` instead of
 * `write`: a new file whose content ends with a newline is added with a patch, anything else (and
 * an unknown directory) is written with a `bash` heredoc.
 */
export function opencodeTool(
  call: ScriptedToolCall,
  names: Set<string>,
  cwd: string | undefined,
): { name: string; args: Json } {
  if (call.kind === 'shell') return { name: 'bash', args: { command: call.command } };
  const absolute = isAbsolute(call.path) ? call.path : cwd ? resolve(cwd, call.path) : undefined;
  if (names.has('write') && absolute)
    return { name: 'write', args: { filePath: absolute, content: call.content } };
  if (names.has('apply_patch') && absolute && !existsSync(absolute) && call.content.endsWith('\n'))
    return { name: 'apply_patch', args: { patchText: addFilePatch(absolute, call.content) } };
  return { name: 'bash', args: { command: heredocWrite(absolute ?? call.path, call.content) } };
}

/**
 * What to send for this call: the reply's tool calls one per model call (so a write then a read
 * never race), then its text.
 */
export function sequentialStep(
  reply: ScriptedReply,
  view: RequestView,
): { tools: ScriptedToolCall[]; text: string | null } {
  const tools = reply.tools ?? [];
  const next = tools[view.toolRounds];
  if (next) return { tools: [next], text: null };
  return { tools: [], text: reply.text ?? 'Done.' };
}

let counter = 0;
const nextId = (prefix: string): string => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36)}`;

/** One streamed call's tool call, in Chat Completions form. */
export interface ChatToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The `chat.completion.chunk`s of one streamed answer: the role, the text in two deltas, each tool
 * call (its arguments in two pieces, as the real API streams them), the finish reason, a final
 * chunk with the usage (no choices, as with `stream_options.include_usage`), and `[DONE]`.
 */
export function chatChunks(
  model: string,
  text: string | null,
  calls: ChatToolCall[],
  usage: { input: number; output: number },
): { data: unknown }[] {
  const id = nextId('chatcmpl');
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Json = {}) => ({
    data: { id, object: 'chat.completion.chunk', created, model, choices, ...extra },
  });
  const delta = (d: Json, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, finish_reason: finish }]);
  const out: { data: unknown }[] = [delta({ role: 'assistant', content: '' })];
  if (text) {
    const cut = Math.floor(text.length / 2);
    out.push(delta({ content: text.slice(0, cut) }), delta({ content: text.slice(cut) }));
  }
  calls.forEach((call, index) => {
    const cut = Math.floor(call.arguments.length / 2);
    out.push(
      delta({
        tool_calls: [
          {
            index,
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments.slice(0, cut) },
          },
        ],
      }),
      delta({ tool_calls: [{ index, function: { arguments: call.arguments.slice(cut) } }] }),
    );
  });
  out.push(delta({}, calls.length > 0 ? 'tool_calls' : 'stop'));
  out.push(
    chunk([], {
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
      },
    }),
  );
  out.push({ data: '[DONE]' });
  return out;
}

const estimate = (v: unknown): number => Math.max(1, Math.ceil(JSON.stringify(v ?? '').length / 4));

/** A non-streamed `chat.completion` (for clients that do not ask for a stream). */
function completion(
  model: string,
  text: string | null,
  calls: ChatToolCall[],
  usage: { input: number; output: number },
) {
  return {
    id: nextId('chatcmpl'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  };
}

/**
 * OpenAI Chat Completions as opencode's `@ai-sdk/openai-compatible` provider speaks it:
 * `POST /v1/chat/completions` (SSE `chat.completion.chunk`s when `stream: true`, else one
 * `chat.completion`) and `GET /v1/models`. opencode 1.18.33 (with OPENCODE_DISABLE_MODELS_FETCH=1)
 * only ever called `POST /v1/chat/completions` with `stream: true` and
 * `stream_options.include_usage`. Session-title requests (made only when `opencode run` gets no
 * `--title`) get a fixed title and never consume a script rule.
 */
export const openAiChat: Protocol = {
  name: 'openai-chat',
  handles: (method, path) =>
    (method === 'POST' && /\/chat\/completions$/.test(path)) || (method === 'GET' && /\/models$/.test(path)),
  handle({ req, res, body, script, used }) {
    const request = isObj(body) ? body : {};
    const model = typeof request.model === 'string' ? request.model : 'ralph-test';
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: [{ id: model, object: 'model', owned_by: 'ralph-test' }] }),
      );
      return;
    }
    let text: string | null;
    let calls: ChatToolCall[] = [];
    let usage: { input: number; output: number } | undefined;
    if (isTitleRequest(request)) {
      text = 'Ralph iteration';
    } else {
      const view = chatView(request);
      const { reply } = pickReply(script, view, used);
      if (reply.status !== undefined && reply.status >= 400) {
        sendOpenAiError(res, reply);
        return;
      }
      const step = sequentialStep(reply, view);
      const names = toolNames(request);
      const cwd = requestCwd(request);
      calls = step.tools.map((call) => {
        const { name, args } = opencodeTool(call, names, cwd);
        return { id: nextId('call'), name, arguments: JSON.stringify(args) };
      });
      text = step.text;
      usage = reply.usage;
    }
    const counts = usage ?? { input: estimate(request.messages), output: estimate([text, calls]) };
    if (request.stream === true) sse(res, chatChunks(model, text, calls, counts));
    else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(model, text, calls, counts)));
    }
  },
};
