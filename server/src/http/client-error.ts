import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ApiError } from './errors.js';
import { newRequestId } from './request-id.js';

// What Node's HTTP parser refuses before any request exists (no Koa context, no route): the answer a
// client would otherwise get is Node's bare "400 Bad Request" with no body, no id and no log line.
const REFUSALS: Record<string, ApiError> = {
  HPE_HEADER_OVERFLOW: new ApiError(431, 'headers_too_large', 'The request headers are too large.'),
  ERR_HTTP_REQUEST_TIMEOUT: new ApiError(408, 'request_timeout', 'The request did not arrive in time.'),
};
const MALFORMED = new ApiError(
  400,
  'bad_request',
  'The request is malformed (a control character in a header, or a broken request line).',
);
const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * The server's `clientError` listener: answers in the API's error shape, with a request id, and logs
 * one line at warn level (a client's mistake, not the server's), and closes the connection. A
 * connection that is already gone, or carries an answer under way, is only closed.
 */
export function answerClientError(logger: Logger) {
  return (err: Error & { code?: string }, socket: Socket) => {
    // As Node's own handler: nothing is written into an answer already under way on this connection.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const api = REFUSALS[err.code ?? ''] ?? MALFORMED;
    const id = newRequestId();
    logger.warn({ reqId: id, code: api.code, reason: err.code }, 'refused a request before it reached a route');
    const body = JSON.stringify({ error: { code: api.code, message: api.message } });
    // Written, then the connection closed whole, as Node's own answer does: a client that never closes
    // its side (a slowloris connection past the headers timeout) must not keep the socket.
    socket.end(
      `HTTP/1.1 ${api.status} ${REASONS[api.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        'Connection: close\r\n\r\n' +
        body,
      () => socket.destroy(),
    );
  };
}
