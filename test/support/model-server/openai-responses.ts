import { sendOpenAiError } from './openai-errors.ts';
import { pickReply, type RequestView, type ScriptedReply, type ScriptedToolCall } from './script.ts';
import { type Protocol, sse } from './server.ts';

type Json = Record<string, unknown>;

/** Text of a Responses API message item (`input_text` / `output_text` parts, or a plain string). */
function messageText(item: Json): string {
  const content = item.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) =>
      typeof c === 'object' && c !== null && typeof (c as Json).text === 'string' ? (c as Json).text : '',
    )
    .join('');
}

const TOOL_OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);

/**
 * The script's view of a Responses request: the latest user message (codex sends its
 * `<environment_context>` as an earlier user message, so this is the prompt it was given) and the
 * number of tool-result rounds after it (a run of consecutive `*_call_output` items is one round:
 * codex appends all calls of a response, then all their outputs).
 */
export function responsesView(body: Json): RequestView {
  const input =
    typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input;
  const items = Array.isArray(input) ? (input as Json[]) : [];
  let last = -1;
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if ((it.type === 'message' || it.type === undefined) && it.role === 'user') last = i;
  }
  const prompt = last >= 0 ? messageText(items[last]!) : '';
  let toolRounds = 0;
  let inOutputs = false;
  for (const it of items.slice(last + 1)) {
    const isOutput = TOOL_OUTPUTS.has(String(it.type));
    if (isOutput && !inOutputs) toolRounds++;
    inOutputs = isOutput;
  }
  return { prompt, toolRounds };
}

/** Single-quotes a string for a POSIX shell. */
const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** A `write_file` as a shell command: a quoted heredoc when the content ends with a newline. */
export function writeFileCommand(path: string, content: string): string {
  const dir = path.includes('/') ? `mkdir -p ${shq(path.slice(0, path.lastIndexOf('/')))} && ` : '';
  let marker = 'RALPH_EOF';
  while (content.includes(marker)) marker += '_';
  if (content.endsWith('\n')) return `${dir}cat > ${shq(path)} <<'${marker}'\n${content}${marker}`;
  return `${dir}printf '%s' ${shq(content)} > ${shq(path)}`;
}

/** The arguments of the CLI's own shell tool, whichever of codex's shell tools the request offers. */
export function shellToolCall(tools: unknown, command: string): { name: string; args: Json } {
  const names = new Set(
    (Array.isArray(tools) ? (tools as Json[]) : []).map((t) => t.name).filter((n) => typeof n === 'string'),
  );
  // codex 0.169 offers `exec_command` ({cmd: string}); older versions `shell` ({command: argv}).
  if (names.has('exec_command') || names.size === 0) return { name: 'exec_command', args: { cmd: command } };
  if (names.has('shell_command')) return { name: 'shell_command', args: { command } };
  if (names.has('shell')) return { name: 'shell', args: { command: ['bash', '-c', command] } };
  return { name: 'exec_command', args: { cmd: command } };
}

function toolCommand(call: ScriptedToolCall): string {
  return call.kind === 'shell' ? call.command : writeFileCommand(call.path, call.content);
}

/**
 * What to send for this call: the reply's tool calls one per model call (codex runs the calls of
 * one response in parallel, so a write then a read would race), then its text.
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

/** The SSE events of one streamed response carrying `output` items. */
export function responseEvents(
  model: string,
  output: Json[],
  usage: { input: number; output: number },
): { event: string; data: unknown }[] {
  const id = nextId('resp');
  const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model };
  const events: { event: string; data: unknown }[] = [];
  let seq = 0;
  const push = (type: string, data: Json) =>
    events.push({ event: type, data: { type, sequence_number: seq++, ...data } });
  push('response.created', { response: { ...base, status: 'in_progress', output: [] } });
  push('response.in_progress', { response: { ...base, status: 'in_progress', output: [] } });
  output.forEach((item, index) => {
    if (item.type === 'message') {
      const text = messageText(item);
      push('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress', content: [] },
      });
      push('response.content_part.added', {
        output_index: index,
        item_id: item.id,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
      push('response.output_text.delta', {
        output_index: index,
        item_id: item.id,
        content_index: 0,
        delta: text,
      });
      push('response.output_text.done', { output_index: index, item_id: item.id, content_index: 0, text });
      push('response.content_part.done', {
        output_index: index,
        item_id: item.id,
        content_index: 0,
        part: { type: 'output_text', text, annotations: [] },
      });
    } else {
      push('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress' } });
    }
    push('response.output_item.done', { output_index: index, item });
  });
  push('response.completed', {
    response: {
      ...base,
      status: 'completed',
      output,
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      },
    },
  });
  return events;
}

/** OpenAI Responses API (`POST /v1/responses`, streamed as SSE), as codex speaks it. */
export const openAiResponses: Protocol = {
  name: 'openai-responses',
  handles: (method, path) =>
    (method === 'POST' && /\/responses$/.test(path)) || (method === 'GET' && /\/models$/.test(path)),
  handle({ req, res, body, script, used }) {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          data: [{ id: 'gpt-5.5', object: 'model', owned_by: 'ralph-test' }],
        }),
      );
      return;
    }
    const request = (typeof body === 'object' && body !== null ? body : {}) as Json;
    const view = responsesView(request);
    const { reply } = pickReply(script, view, used);
    if (reply.status !== undefined && reply.status >= 400) {
      sendOpenAiError(res, reply);
      return;
    }
    const step = sequentialStep(reply, view);
    const output: Json[] = [];
    for (const call of step.tools) {
      const { name, args } = shellToolCall(request.tools, toolCommand(call));
      output.push({
        type: 'function_call',
        id: nextId('fc'),
        call_id: nextId('call'),
        name,
        arguments: JSON.stringify(args),
        status: 'completed',
      });
    }
    if (step.text !== null) {
      output.push({
        type: 'message',
        id: nextId('msg'),
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: step.text, annotations: [] }],
      });
    }
    const usage = reply.usage ?? {
      input: Math.max(1, Math.ceil(JSON.stringify(request.input ?? '').length / 4)),
      output: Math.max(1, Math.ceil(JSON.stringify(output).length / 4)),
    };
    sse(res, responseEvents(typeof request.model === 'string' ? request.model : 'gpt-5.5', output, usage));
  },
};
