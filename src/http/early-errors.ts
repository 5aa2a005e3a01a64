/**
 * Answers to what goes wrong before a route is found: a path the router cannot decode, bytes Node's HTTP parser
 * refuses, a request that takes too long to arrive, CONNECT. Fastify and Node answer these in their own shapes
 * (or not at all); Quarry answers them as every other error, `{"message": ...}` with CORS, so that a browser
 * client can read what to fix.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { newRequestId } from './request-id.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Errors the router raises before any hook runs (Fastify's `frameworkErrors`). */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const [status, message] = frameworkAnswer(error);
  // No onRequest hook has run: the CORS header and the request id are set here.
  return reply
    .code(status)
    .header('Access-Control-Allow-Origin', '*')
    .header('X-Request-Id', request.id)
    .type(JSON_TYPE)
    .send(JSON.stringify({ message }));
}

function frameworkAnswer(error: FastifyError): [number, string] {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return [
        400,
        "The path is not valid percent-encoding: each '%' must start a %XX escape of UTF-8 bytes (write '%' itself as %25)",
      ];
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return [414, 'A path segment is too long; ids are UUIDs (36 characters), their prefixes, or numbers'];
    default:
      return [400, error.message];
  }
}

/** Node's HTTP parser refused the bytes, or a request did not arrive in time (Fastify's `clientErrorHandler`). */
export function clientError(error: Error & { code?: string }, socket: Duplex) {
  // A reset connection has no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // As Node does: nothing is written into an answer already under way (pipelined bytes after a request).
  const underWay = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (socket.writable && underWay !== true) socket.write(rawAnswer(...clientAnswer(error.code)));
  socket.destroy(error);
}

function clientAnswer(code: string | undefined): [number, string] {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'The request did not arrive in time; send its headers and body without pausing'];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'The request line and headers are too large (16 KiB in all); shorten the URL or headers'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'The chunk extensions of the request body are too large'];
    case 'HPE_INVALID_METHOD':
      return [
        501,
        'The request method is not one HTTP defines; this server answers GET, HEAD, OPTIONS and POST',
      ];
    default:
      return [400, `The request is not valid HTTP/1.1 (${code ?? 'unreadable'})`];
  }
}

/**
 * A whole answer written on the socket, for where no response object exists; the connection is then closed.
 * The request could not be read, so its id is a new one.
 */
function rawAnswer(status: number, message: string): string {
  const body = JSON.stringify({ message });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    `Content-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Access-Control-Allow-Origin: *\r\nX-Request-Id: ${newRequestId()}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * CONNECT asks for a tunnel, which Node gives to the 'connect' event and closes silently when no one listens.
 * Quarry is not a proxy: it says so, with the status of a method the server does not implement.
 */
export function refuseConnect(server: Server) {
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => undefined);
    socket.end(rawAnswer(501, 'CONNECT is not served here: this is an API server, not a proxy'));
  });
}
