import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Script, ScriptRule } from './script.ts';

/** A protocol handler: claims a request by method/path and answers it. */
export interface Protocol {
  name: string;
  handles(method: string, path: string): boolean;
  handle(ctx: {
    req: IncomingMessage;
    res: ServerResponse;
    body: unknown;
    path: string;
    script: Script;
    used: Map<ScriptRule, number>;
    log: LoggedRequest[];
  }): Promise<void> | void;
}

export interface LoggedRequest {
  protocol: string;
  path: string;
  body: unknown;
  at: number;
}

export interface ModelServer {
  url: string;
  port: number;
  /** Every request received, in order (for assertions). */
  requests: LoggedRequest[];
  /** Replace the script (e.g. between test phases). */
  setScript(script: Script): void;
  close(): Promise<void>;
}

/** Starts the scripted model server on 127.0.0.1 (a free port) with the given protocols. */
export async function startModelServer(protocols: Protocol[], script: Script): Promise<ModelServer> {
  let current = script;
  const used = new Map<ScriptRule, number>();
  const requests: LoggedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {}
      const protocol = protocols.find((p) => p.handles(req.method ?? 'GET', path));
      if (!protocol) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: `scripted model server: no protocol for ${req.method} ${path}` },
          }),
        );
        return;
      }
      requests.push({ protocol: protocol.name, path, body, at: Date.now() });
      Promise.resolve(protocol.handle({ req, res, body, path, script: current, used, log: requests })).catch(
        (error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: String(error) } }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setScript(s) {
      current = s;
      used.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a Server-Sent Events response. */
export function sse(res: ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const e of events) {
    if (e.event) res.write(`event: ${e.event}\n`);
    res.write(`data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
  }
  res.end();
}
