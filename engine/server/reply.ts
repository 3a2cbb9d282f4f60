import type { FastifyReply } from 'fastify';
import type { ApiResponse } from '../api/contract.ts';

/** Writes an ApiResponse; JSON text from the database goes out as is, unparsed. */
export function sendApiResponse(reply: FastifyReply, res: ApiResponse): FastifyReply {
  reply.code(res.status).type('application/json; charset=utf-8');
  return 'jsonText' in res ? reply.send(res.jsonText) : reply.send(JSON.stringify(res.json));
}
