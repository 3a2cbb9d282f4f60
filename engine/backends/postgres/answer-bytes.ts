/**
 * Note [Answer bytes]
 * A lone read's answer is one JSON cell the database built, and the HTTP
 * body is that cell inside `{"data":` … `}`. Through pg, the cell's UTF-8
 * bytes were decoded into a string (pg-protocol's reader), the string
 * concatenated into the body, measured again (Buffer.byteLength for
 * Content-Length) and encoded back to UTF-8 by the socket write: three passes
 * over the answer that give back the bytes the wire brought. So a query that
 * asks for bytes ({@link AnswerBytesQuery}) has its DataRow copied once,
 * straight from the parser's buffer into one Buffer already framed with the
 * body's head and tail, and the HTTP layer writes that Buffer as it is.
 *
 * How: every pooled connection is a {@link CellBytesClient}, whose connection
 * parses the socket with a pg-protocol Parser of its own (the same
 * attachListeners as pg's, connection.js) whose DataRow handling looks at the
 * client's active query first. For an AnswerBytesQuery the row's first cell is
 * copied out and pg gets an empty DataRow; for every other query the Parser
 * runs as pg's does. The copy is needed: the parser reuses its buffer for the
 * next socket read. An AnswerBytesQuery run by a plain pg.Client (no such
 * parser) frames the string it is given, so the result is the same either way.
 * It relies on pg-protocol's Parser.handlePacket and pg's Connection.
 * attachListeners and Client._activeQuery (pg and pg-protocol are pinned in
 * package.json); test/integration/backends/answer-bytes.test.ts checks the
 * bytes against the text path, across socket reads and in pipelined batches.
 *
 * Measured: see Note [Answer bytes, measured] in engine/server/graphql-answer.ts.
 */
import pg from 'pg';
import { Parser } from 'pg-protocol/dist/parser.js';
import { DataRowMessage } from 'pg-protocol/dist/messages.js';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import type { AnswerFrame } from '../backend.ts';

/** pg's protocol code of a DataRow message ('D'). */
const DATA_ROW = 0x44;

const NO_FIELDS: never[] = [];

/** What a query's callback is given: an error, or none when the query succeeded. */
export type QueryCallback = (err: Error | null | undefined) => void;

/**
 * A statement answering one row of one text column, whose first cell is kept
 * as framed UTF-8 bytes (Note [Answer bytes]). `bytes` is undefined until a
 * row came, null for a NULL cell.
 */
export class AnswerBytesQuery extends pg.Query {
  bytes: Buffer | null | undefined = undefined;
  readonly frame: AnswerFrame;

  constructor(text: string, values: unknown[], name: string | undefined, frame: AnswerFrame, callback?: QueryCallback) {
    // pg.Query's typings omit the callback argument its constructor takes (normalizeQueryConfig).
    super(text, values, callback as never);
    if (name !== undefined) (this as unknown as { name: string }).name = name;
    this.frame = frame;
  }

  /** Copies the first cell of a DataRow body (at `offset` in `buf`: int16 count, then int32 length and the bytes) framed. */
  takeRow(buf: Buffer, offset: number): void {
    if (this.bytes !== undefined) return;
    const count = buf.readInt16BE(offset);
    const len = count === 0 ? -1 : buf.readInt32BE(offset + 2);
    if (len === -1) {
      this.bytes = null;
      return;
    }
    const { before, after } = this.frame;
    const out = Buffer.allocUnsafe(before.length + len + after.length);
    before.copy(out, 0);
    buf.copy(out, before.length, offset + 6, offset + 6 + len);
    after.copy(out, before.length + len);
    this.bytes = out;
  }

  /** No row parsing (Note [First-cell queries] in connection.ts). */
  handleRowDescription(): void {}

  /** A row pg parsed itself (a client without the bytes parser): the cell's string, framed. */
  handleDataRow(msg: { fields: Array<string | null> }): void {
    if (this.bytes !== undefined || msg.fields === NO_FIELDS) return;
    const cell = msg.fields[0];
    this.bytes = cell === undefined || cell === null ? null : Buffer.concat([this.frame.before, Buffer.from(cell, 'utf8'), this.frame.after]);
  }
}

/** pg's Connection as far as its listeners go (connection.js). */
interface PgConnection {
  _emitMessage: boolean;
  emit(event: string, msg: unknown): boolean;
  attachListeners(stream: NodeJS.ReadableStream): void;
}

/** The Parser's packet handler (private in its typings). */
type HandlePacket = (offset: number, code: number, length: number, bytes: Buffer) => BackendMessage;

/** A pg.Client whose DataRows of an {@link AnswerBytesQuery} are copied as bytes (Note [Answer bytes]). */
export class CellBytesClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const client = this as unknown as { _activeQuery: unknown; connection: PgConnection };
    const connection = client.connection;
    // pg's attachListeners with a parser of our own; called on connect and again after a TLS upgrade.
    connection.attachListeners = (stream) => {
      const parser = new Parser();
      const p = parser as unknown as { handlePacket: HandlePacket };
      const base = p.handlePacket.bind(parser);
      p.handlePacket = (offset, code, length, bytes) => {
        if (code === DATA_ROW) {
          const q = client._activeQuery;
          if (q instanceof AnswerBytesQuery) {
            q.takeRow(bytes, offset);
            return new DataRowMessage(length, NO_FIELDS);
          }
        }
        return base(offset, code, length, bytes);
      };
      stream.on('data', (buffer: Buffer) =>
        parser.parse(buffer, (msg) => {
          const eventName = msg.name === 'error' ? 'errorMessage' : msg.name;
          if (connection._emitMessage) connection.emit('message', msg);
          connection.emit(eventName, msg);
        }),
      );
    };
  }
}
