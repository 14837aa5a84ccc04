import type { ServerResponse } from 'node:http';
import type { ScriptedReply } from './script.ts';

/** Answers with the reply's HTTP status and an OpenAI-style error body (Responses and Chat Completions alike). */
export function sendOpenAiError(res: ServerResponse, reply: ScriptedReply): void {
  const status = reply.status ?? 500;
  res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
  res.end(
    JSON.stringify(
      reply.errorBody ?? {
        error: {
          message: `scripted error ${status}`,
          type: status === 429 ? 'rate_limit_exceeded' : 'server_error',
          code: status === 429 ? 'rate_limit_exceeded' : null,
        },
      },
    ),
  );
}
