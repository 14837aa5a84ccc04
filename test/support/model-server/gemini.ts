import type { ServerResponse } from 'node:http';
import { isAbsolute, resolve } from 'node:path';
import { sequentialStep, writeFileCommand } from './openai-responses.ts';
import { pickReply, type RequestView, type ScriptedReply, type ScriptedToolCall } from './script.ts';
import { type Protocol, sse } from './server.ts';

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const partsOf = (content: unknown): Json[] =>
  isObj(content) && Array.isArray(content.parts) ? (content.parts as unknown[]).filter(isObj) : [];
const hasFunctionResponse = (content: unknown): boolean =>
  partsOf(content).some((p) => 'functionResponse' in p);
const onlyFunctionResponses = (content: unknown): boolean => {
  const parts = partsOf(content);
  return parts.length > 0 && parts.every((p) => 'functionResponse' in p);
};

/**
 * The script's view of a `generateContent` request: the text of the latest user turn that is not
 * only function responses (gemini sends its `<session_context>` and the prompt as parts of the same
 * first user turn), and how many function-response turns follow it.
 */
export function geminiView(body: Json): RequestView {
  const contents = (Array.isArray(body.contents) ? (body.contents as unknown[]) : []).filter(isObj);
  let last = -1;
  for (let i = 0; i < contents.length; i++) {
    const c = contents[i]!;
    if (c.role !== 'model' && !onlyFunctionResponses(c)) last = i;
  }
  const prompt =
    last >= 0
      ? partsOf(contents[last])
          .filter((p) => typeof p.text === 'string' && p.thought !== true)
          .map((p) => p.text as string)
          .join('\n')
      : '';
  const toolRounds = contents
    .slice(last + 1)
    .filter((c) => c.role !== 'model' && hasFunctionResponse(c)).length;
  return { prompt, toolRounds };
}

/** The workspace gemini runs in, from its `<session_context>` ("Workspace Directories:\n  - /path"). */
export function requestWorkspace(body: Json): string | undefined {
  const contents = Array.isArray(body.contents) ? (body.contents as unknown[]) : [];
  const text = contents
    .flatMap((c) => partsOf(c))
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .join('\n');
  return /Workspace Directories:\*{0,2}\n\s*- ([^\n]+)/.exec(text)?.[1]?.trim();
}

/** Names of the functions a request offers. */
export function toolNames(body: Json): Set<string> {
  const names = new Set<string>();
  for (const tool of Array.isArray(body.tools) ? (body.tools as unknown[]) : []) {
    if (!isObj(tool) || !Array.isArray(tool.functionDeclarations)) continue;
    for (const d of tool.functionDeclarations as unknown[])
      if (isObj(d) && typeof d.name === 'string') names.add(d.name);
  }
  return names;
}

/**
 * Gemini CLI's own tool for a scripted call: `shell` → `run_shell_command {command}` (its shell
 * tool refuses `$(…)`, backticks and `<(…)`, even inside a quoted heredoc, so scripts must avoid
 * them); `write_file` → `write_file {file_path, content}` (any content) with the path made absolute
 * against the workspace, or a shell heredoc when the request offers no `write_file`.
 */
export function geminiTool(
  call: ScriptedToolCall,
  tools: Set<string>,
  workspace: string | undefined,
): { name: string; args: Json } {
  if (call.kind === 'shell')
    return {
      name: 'run_shell_command',
      args: { command: call.command, description: 'Run the scripted command' },
    };
  if (tools.size > 0 && !tools.has('write_file'))
    return {
      name: 'run_shell_command',
      args: { command: writeFileCommand(call.path, call.content), description: 'Write the scripted file' },
    };
  const path = isAbsolute(call.path) || !workspace ? call.path : resolve(workspace, call.path);
  return { name: 'write_file', args: { file_path: path, content: call.content } };
}

let counter = 0;
const nextId = (prefix: string): string => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36)}`;

/** Gemini's `usageMetadata` for one response. */
function usageMetadata(usage: { input: number; output: number }): Json {
  return {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output,
    totalTokenCount: usage.input + usage.output,
  };
}

/**
 * The SSE chunks of one streamed `GenerateContentResponse`: the text split over two chunks (as the
 * real API streams it), function calls in the last chunk, which also carries the finish reason and
 * the usage.
 */
export function responseChunks(
  model: string,
  text: string | null,
  calls: { name: string; args: Json }[],
  usage: { input: number; output: number },
): Json[] {
  const responseId = nextId('resp');
  const chunk = (parts: Json[], last: boolean): Json => ({
    candidates: [
      {
        content: { role: 'model', parts },
        index: 0,
        ...(last ? { finishReason: 'STOP' } : {}),
      },
    ],
    ...(last ? { usageMetadata: usageMetadata(usage) } : {}),
    modelVersion: model,
    responseId,
  });
  const out: Json[] = [];
  const textParts: Json[] = [];
  if (text) {
    const cut = Math.floor(text.length / 2);
    if (cut > 0) out.push(chunk([{ text: text.slice(0, cut) }], false));
    textParts.push({ text: text.slice(cut) });
  }
  const callParts = calls.map((c) => ({ functionCall: { name: c.name, args: c.args } }));
  out.push(chunk([...textParts, ...callParts], true));
  return out;
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** A Google API error response (`{error: {code, message, status, details}}`). */
function sendStatus(res: ServerResponse, reply: ScriptedReply): void {
  const status = reply.status ?? 500;
  const name = STATUS_NAMES[status] ?? 'UNKNOWN';
  res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
  res.end(
    JSON.stringify(
      reply.errorBody ?? { error: { code: status, message: `scripted ${name} (${status})`, status: name } },
    ),
  );
}

/** A value that satisfies a Gemini response schema (types upper- or lower-case), for utility calls. */
export function schemaValue(schema: unknown): unknown {
  if (!isObj(schema)) return 'scripted';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (String(schema.type ?? 'object').toLowerCase()) {
    case 'string':
      return 'scripted';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default: {
      const props = isObj(schema.properties) ? schema.properties : {};
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, schemaValue(v)]));
    }
  }
}

const estimate = (v: unknown): number => Math.max(1, Math.ceil(JSON.stringify(v ?? '').length / 4));

/** The model name in `/v1beta/models/<model>:<method>`. */
const modelOf = (path: string): string => /\/models\/([^/:]+):/.exec(path)?.[1] ?? 'gemini-2.5-pro';

/**
 * The Gemini API as Gemini CLI speaks it (`gemini-api-key` auth with `GOOGLE_GEMINI_BASE_URL`):
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for the agent's turns (answered from
 * the script), `:generateContent` for its utility calls (the `auto` model router's classifier and
 * other JSON-schema requests, answered with a value of the requested schema and never from the
 * script), `:countTokens`, and `GET /v1beta/models`.
 */
export const geminiApi: Protocol = {
  name: 'gemini',
  handles: (method, path) =>
    (method === 'POST' &&
      /\/models\/[^/:]+:(streamGenerateContent|generateContent|countTokens)$/.test(path)) ||
    (method === 'GET' && /\/v1(beta)?\/models$/.test(path)),
  handle({ req, res, body, path, script, used }) {
    const request = isObj(body) ? body : {};
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'GET') {
      json(200, { models: [{ name: 'models/gemini-2.5-pro', displayName: 'Gemini 2.5 Pro' }] });
      return;
    }
    if (path.endsWith(':countTokens')) {
      json(200, { totalTokens: estimate(request.contents) });
      return;
    }
    const model = modelOf(path);
    if (path.endsWith(':generateContent')) {
      const config = isObj(request.generationConfig) ? request.generationConfig : {};
      const schema = config.responseJsonSchema ?? config.responseSchema;
      const text = schema === undefined ? 'OK' : JSON.stringify(schemaValue(schema));
      json(200, {
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: usageMetadata({ input: estimate(request.contents), output: estimate(text) }),
        modelVersion: model,
      });
      return;
    }
    const view = geminiView(request);
    const { reply } = pickReply(script, view, used);
    if (reply.status !== undefined && reply.status >= 400) {
      sendStatus(res, reply);
      return;
    }
    // One tool call per model call: gemini may run the calls of one response concurrently.
    const step = sequentialStep(reply, view);
    const tools = toolNames(request);
    const workspace = requestWorkspace(request);
    const calls = step.tools.map((call) => geminiTool(call, tools, workspace));
    const usage = reply.usage ?? {
      input: estimate(request.contents),
      output: estimate([step.text, calls]),
    };
    sse(
      res,
      responseChunks(model, step.text, calls, usage).map((data) => ({ data })),
    );
  },
};
