/** HTTP as bytes on a socket, for what a well-behaved client never sends (bad hosts, bad methods, slow headers). */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the first byte sent until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * Send `parts` (a pause of `gapMs` between them) and read until the server closes the connection, or give up
 * after `limitMs`.
 */
export function rawExchange(port: number, parts: string[], gapMs = 0, limitMs = 5_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const started = Date.now();
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no close within ${limitMs} ms; got ${JSON.stringify(Buffer.concat(chunks).toString())}`),
      );
    }, limitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({
        ...parseAnswer(Buffer.concat(chunks).toString('utf8')),
        closedAfterMs: Date.now() - started,
      });
    });
    socket.on('connect', async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        if (socket.destroyed) return;
        socket.write(part);
      }
    });
  });
}

function parseAnswer(text: string): Omit<RawAnswer, 'closedAfterMs'> {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return { status: 0, headers: {}, body: text };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine?.split(' ')[1]), headers, body: text.slice(end + 4) };
}

/** One request with `Connection: close`, so that the answer ends with the connection. */
export function rawRequest(port: number, method: string, target: string, headers: string[] = ['Host: x']) {
  return rawExchange(port, [
    `${method} ${target} HTTP/1.1\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`,
  ]);
}
