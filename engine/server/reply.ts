import type { FastifyReply } from 'fastify';
import type { ApiResponse } from '../api/contract.ts';

/** How an answer body is written: `utf8` for text, `latin1` for a byte string (Note [Answer bytes] in backends/postgres/answer-bytes.ts). */
export type BodyEncoding = 'utf8' | 'latin1';

/** A body for a writer that takes text as UTF-8 (fastify's send, zlib): a byte string as its bytes. */
export function bodyBytes(body: string, encoding: BodyEncoding): string | Buffer {
  return encoding === 'latin1' ? Buffer.from(body, 'latin1') : body;
}

/** Writes an ApiResponse; JSON text from the database goes out as is, unparsed. */
export function sendApiResponse(reply: FastifyReply, res: ApiResponse): FastifyReply {
  reply.code(res.status).type('application/json; charset=utf-8');
  return 'jsonText' in res ? reply.send(res.jsonText) : reply.send(JSON.stringify(res.json));
}
