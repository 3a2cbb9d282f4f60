/**
 * The query of a request statement answering one text cell (connection.ts
 * runs it): a pg.Query without pg's config copy and row parsing.
 */
import pg from 'pg';

/** What a request statement's query is called back with: an error, or none when it succeeded (the cell is on the query). */
export type QueryCallback = (err: Error | null | undefined) => void;

/**
 * Note [First-cell queries]
 * Request statements answer one row of one text column, and pg's general
 * query path costs more than the rest of the client's work on such a
 * statement: `client.query(config)` copies the config object through its
 * property descriptors (`Object.defineProperties(Object.create(…),
 * Object.getOwnPropertyDescriptors(config))`, utils.js cloneQueryConfig),
 * which leaves a dictionary-mode object every read of the query goes through:
 * 7-10 µs per query on the bench machine against 0.3-0.6 µs for a query made
 * from its text (a loop of 1e6 `new pg.Query({text, values, name, rowMode,
 * types})` against 1e6 `new pg.Query(text)` with the same fields set after;
 * in the `--cpu-prof` of AlbumByPK under load, cloneQueryConfig was the
 * largest JavaScript self time of the process). Then each row is parsed
 * into an array through per-field type parsers, and the result wrapped in a
 * promise with a `.catch` that rewrites error stacks.
 * So {@link FirstCellQuery} is a pg.Query made from its text (pg's cheap
 * path), whose data-row handler keeps the first cell of the first row as the
 * wire gave it (text format: the string itself, as the text type parsers
 * returned before) and skips row parsing; it is still a pg.Query, which
 * pipeline mode requires, and resolves through its own callback. It relies on
 * Query's protocol handlers (handleRowDescription, handleDataRow), the same
 * hooks pg-cursor and pg-query-stream implement; pg is pinned (package.json).
 * With Note [Fast path headers], `node test/bench/compare-engines.ts
 * <before> --ops AlbumByPK,SearchAlbumsWithArtist,CustomerInvoices --repeats
 * 5` (issue 35, load average 9-12): engine CPU per request AlbumByPK 52/56 →
 * 41/42 µs (admin/customer), SearchAlbumsWithArtist 62/59 → 55/51,
 * CustomerInvoices 86/95 → 79/79; AlbumByPK 1.28×/1.36× the requests/s.
 * In process (`node test/bench/request-path.ts`), the engine's path now costs
 * what a bare pg pool's query does (11-18 against 13-15 µs user CPU).
 */
export class FirstCellQuery extends pg.Query {
  /** The first column of the first row; undefined until a row came. */
  first: string | null | undefined = undefined;

  constructor(text: string, values: unknown[], name: string | undefined, callback?: QueryCallback) {
    // pg.Query's typings omit the callback argument its constructor takes (normalizeQueryConfig).
    super(text, values, callback as never);
    // Read by pg when it submits the query (Query.submit, prepare).
    if (name !== undefined) (this as unknown as { name: string }).name = name;
  }

  /** No row parsing: only the first cell is kept (Note [First-cell queries]). */
  handleRowDescription(): void {}

  handleDataRow(msg: { fields: Array<string | null> }): void {
    if (this.first === undefined) this.first = msg.fields[0] ?? null;
  }
}
