import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver got: its JSON body and the status it answered. */
export interface Received {
  body: Record<string, any>;
  status: number;
}

/** A webhook receiver on a free loopback port; `failFirst` requests get HTTP 500. */
export async function webhookReceiver(
  failFirst = 0,
): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  let seen = 0;
  const server: Server = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => {
      data += c.toString();
    });
    req.on('end', () => {
      const status = seen++ < failFirst ? 500 : 204;
      got.push({ body: JSON.parse(data), status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
