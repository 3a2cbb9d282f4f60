/**
 * Note [Answer bytes]
 * A lone read's answer is one JSON cell the database built, and the HTTP body
 * is that cell inside `{"data":` … `}`. Through pg, the cell's UTF-8 bytes
 * were decoded into a string (a two-byte string once one character is not
 * ASCII), measured again for Content-Length (Buffer.byteLength of the
 * concatenation flattens it) and encoded back to UTF-8 by the socket write:
 * three passes that give back the bytes the wire brought. So a request
 * statement can ask for its cell as a byte string ({@link ByteStringQuery}):
 * a string of one character per byte, copied from the DataRow with
 * the `latin1` decoding (a copy into a one-byte string), framed by string
 * concatenation (the frame is ASCII), counted by its `length` and written with
 * the `latin1` encoding (a copy back). The bytes sent are the bytes PostgreSQL
 * sent: UTF-8, as pg-protocol's startup asks for `client_encoding` UTF8 (a
 * SQL_ASCII database converts nothing: its stored bytes pass as they are,
 * where the text path replaced sequences that are not UTF-8 with U+FFFD).
 * Why a string and not a Buffer: a Buffer of the answer per request is
 * memory outside V8's heap, freed only when a collection finds it dead. With
 * the strings gone the young generation filled ~10× more slowly, so the
 * Buffers piled up between young collections and V8 ran full ones instead:
 * AlbumsArtistTracksGenre (84 KB answers) went from 0 to 9.6 full collections
 * per 1,000 requests and its engine CPU per request from 286 to 587 µs
 * (`node test/bench/compare-engines.ts <before> <after> --ops
 * AlbumsArtistTracksGenre --roles admin --gc`). A one-byte string lives in
 * the young generation like the text it replaces, at half the size of a
 * two-byte one.
 * How: every pooled connection is a {@link CellBytesClient}, whose connection
 * parses the socket with a pg-protocol Parser of its own (the same
 * attachListeners as pg's, connection.js) whose DataRow handling looks at the
 * client's active query first: for a ByteStringQuery the row's first cell is
 * taken and pg gets an empty DataRow; for every other query the Parser runs as
 * pg's does. A ByteStringQuery run by a plain pg.Client (no such parser)
 * converts the string it is given, so the answer is the same either way. It
 * relies on pg-protocol's Parser.handlePacket, pg's Connection.attachListeners
 * and Client._activeQuery (pg and pg-protocol are pinned in package.json);
 * test/integration/backends/postgres-connection.test.ts checks the bytes against the
 * text path, across socket reads and in pipelined batches.
 * Measured (issue 35, 2026-11-29, load < 3): `node
 * test/bench/compare-engines.ts <before> <after> --ops
 * AlbumsArtistTracksGenre,ArtistAggregates,AlbumByPK --repeats 5 --seconds 3
 * --gc`, engine CPU per request: AlbumsArtistTracksGenre 295 → 246 (admin)
 * and 306 → 230 µs (customer), bytes allocated 329 → 247 KB and young
 * collections 20 → 15 per 1,000 requests; ArtistAggregates 148 → 132 µs;
 * AlbumByPK unchanged (30-38 µs). In four alternated `node test/bench/run.ts
 * --quick --skip-scale --repeats 3` runs, AlbumsArtistTracksGenre cost the
 * engine 279/244 (admin) and 267/243 µs (customer) against 480/379 and
 * 296/311 before. Both versions sometimes pay a burst of full collections
 * when an engine that idled (while the other was measured) grows its heap
 * back after V8's memory reducer shrank it (`--trace-gc`: "GC in old space
 * requested"); one compare run of three caught it on one cell after (498 µs)
 * and one before (386 µs).
 */
import pg from 'pg';
import { Parser } from 'pg-protocol/dist/parser.js';
import { DataRowMessage } from 'pg-protocol/dist/messages.js';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { FirstCellQuery } from './first-cell-query.ts';

/** pg's protocol code of a DataRow message ('D'). */
const DATA_ROW = 0x44;

const NO_FIELDS: never[] = [];

/**
 * A first-cell query whose cell is kept as a byte string (Note [Answer
 * bytes]): `first` holds it.
 */
export class ByteStringQuery extends FirstCellQuery {
  /** Takes the first cell of a DataRow body (at `offset` in `buf`: int16 count, then int32 length and the bytes). */
  takeRow(buf: Buffer, offset: number): void {
    if (this.first !== undefined) return;
    const len = buf.readInt16BE(offset) === 0 ? -1 : buf.readInt32BE(offset + 2);
    // latin1: one character per byte, copied as they are (no UTF-8 decoding).
    this.first = len === -1 ? null : buf.toString('latin1', offset + 6, offset + 6 + len);
  }

  /** A row pg parsed itself (a client without the byte-string parser): the cell's string, as a byte string. */
  override handleDataRow(msg: { fields: Array<string | null> }): void {
    if (this.first !== undefined || msg.fields === NO_FIELDS) return;
    this.first = toByteString(msg.fields[0] ?? null);
  }
}

/** A string as a byte string: its UTF-8 bytes, one character each. */
export function toByteString(text: string | null): string | null {
  return text === null ? null : Buffer.from(text, 'utf8').toString('latin1');
}

/** pg's Connection as far as its listeners go (connection.js). */
interface PgConnection {
  _emitMessage: boolean;
  emit(event: string, msg: unknown): boolean;
  attachListeners(stream: NodeJS.ReadableStream): void;
}

/** The Parser's packet handler (private in its typings). */
type HandlePacket = (offset: number, code: number, length: number, bytes: Buffer) => BackendMessage;

/** A pg.Client whose DataRows of a {@link ByteStringQuery} are taken as byte strings (Note [Answer bytes]). */
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
          if (q instanceof ByteStringQuery) {
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
