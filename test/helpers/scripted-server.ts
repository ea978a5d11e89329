import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { computeSignature, parseAuthorization, signaturePath } from '../../src/print-service/signing.js';

export interface RecordedRequest {
  method: string;
  /** As sent on the wire: path and query, still percent-encoded. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** Whether x-service-authorization matches the request for the given secret. */
  signatureValid: boolean;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

/**
 * A local HTTP server that records what the client sends and answers with scripted handlers. Tests use it for
 * failures the emulator does not produce on demand (slow answers, malformed bodies, specific status codes).
 */
export async function startScriptedServer(options: { secret: string; handler: Handler }): Promise<{
  url: string;
  requests: RecordedRequest[];
  setHandler: (handler: Handler) => void;
  close: () => Promise<void>;
}> {
  const requests: RecordedRequest[] = [];
  let handler = options.handler;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://local');
      const auth = parseAuthorization(req.headers['x-service-authorization'] as string | undefined);
      const date = String(req.headers['x-service-date'] ?? '');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        signatureValid:
          auth.ok && auth.signature === computeSignature(options.secret, req.method ?? '', signaturePath(url), date),
      };
      requests.push(recorded);
      void Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setHandler: (h) => {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function serviceError(res: ServerResponse, status: number, name: string, code: number, message: string): void {
  json(res, status, { success: false, error: { message, name, code } });
}
