/**
 * The project's own generator of a Chinook-shaped music-store database at a
 * scale factor: 1 is about the size of the classic Chinook sample (275
 * artists, 347 albums, 3,503 tracks, 59 customers, 412 invoices, 2,240
 * invoice lines, 18 playlists), 10 and 100 multiply every table but the
 * lookup ones (genres, media types, employees).
 *
 * Table and column names are those of the PostgreSQL Chinook sample with
 * snake_case names, so the same workload and metadata apply to both. Values
 * come from deterministic integer hashes inside PostgreSQL
 * (`generate_series`), so a data set is the same on every run and takes
 * seconds even at scale 100.
 */

/** Row counts of one generated data set. */
export interface ScaleCounts {
  readonly artists: number;
  readonly albums: number;
  readonly tracks: number;
  readonly genres: number;
  readonly mediaTypes: number;
  readonly employees: number;
  readonly customers: number;
  readonly invoices: number;
  readonly invoiceLines: number;
  readonly playlists: number;
  readonly playlistTracks: number;
}

/** Row counts at scale factor `scale` (a positive whole number). */
export function scaleCounts(scale: number): ScaleCounts {
  if (!Number.isInteger(scale) || scale < 1) throw new Error(`scale factor must be a positive whole number, got ${scale}`);
  return {
    artists: 275 * scale,
    albums: 347 * scale,
    tracks: 3503 * scale,
    genres: 25,
    mediaTypes: 5,
    employees: 8,
    customers: 59 * scale,
    invoices: 412 * scale,
    invoiceLines: 2240 * scale,
    playlists: 18 * scale,
    playlistTracks: 8715 * scale,
  };
}

/** The tables the generator makes, in dependency order (metadata tracks these). */
export const GENERATED_TABLES = [
  'artists',
  'albums',
  'genres',
  'media_types',
  'tracks',
  'employees',
  'customers',
  'invoices',
  'invoice_lines',
  'playlists',
  'playlist_track',
] as const;

const DDL = `
CREATE TABLE artists (id serial PRIMARY KEY, name varchar(120));
CREATE TABLE albums (id serial PRIMARY KEY, title varchar(160) NOT NULL, artist_id int NOT NULL REFERENCES artists (id));
CREATE TABLE genres (id serial PRIMARY KEY, name varchar(120));
CREATE TABLE media_types (id serial PRIMARY KEY, name varchar(120));
CREATE TABLE tracks (
  id serial PRIMARY KEY, name varchar(200) NOT NULL, album_id int REFERENCES albums (id),
  media_type_id int NOT NULL REFERENCES media_types (id), genre_id int REFERENCES genres (id),
  composer varchar(220), milliseconds int NOT NULL, bytes int, unit_price numeric(10,2) NOT NULL);
CREATE TABLE employees (
  id serial PRIMARY KEY, last_name varchar(20) NOT NULL, first_name varchar(20) NOT NULL, title varchar(30),
  reports_to int REFERENCES employees (id), birth_date timestamp, hire_date timestamp, address varchar(70),
  city varchar(40), state varchar(40), country varchar(40), postal_code varchar(10), phone varchar(24),
  fax varchar(24), email varchar(60));
CREATE TABLE customers (
  id serial PRIMARY KEY, first_name varchar(40) NOT NULL, last_name varchar(20) NOT NULL, company varchar(80),
  address varchar(70), city varchar(40), state varchar(40), country varchar(40), postal_code varchar(10),
  phone varchar(24), fax varchar(24), email varchar(60) NOT NULL, support_rep_id int REFERENCES employees (id));
CREATE TABLE invoices (
  id serial PRIMARY KEY, customer_id int NOT NULL REFERENCES customers (id), invoice_date timestamp NOT NULL,
  billing_address varchar(70), billing_city varchar(40), billing_state varchar(40), billing_country varchar(40),
  billing_postal_code varchar(10), total numeric(10,2) NOT NULL);
CREATE TABLE invoice_lines (
  id serial PRIMARY KEY, invoice_id int NOT NULL REFERENCES invoices (id), track_id int NOT NULL REFERENCES tracks (id),
  unit_price numeric(10,2) NOT NULL, quantity int NOT NULL);
CREATE TABLE playlists (id serial PRIMARY KEY, name varchar(120));
CREATE TABLE playlist_track (
  playlist_id int NOT NULL REFERENCES playlists (id), track_id int NOT NULL REFERENCES tracks (id),
  PRIMARY KEY (playlist_id, track_id));
`;

const INDEXES = `
CREATE INDEX ON albums (artist_id);
CREATE INDEX ON tracks (album_id);
CREATE INDEX ON tracks (genre_id);
CREATE INDEX ON tracks (media_type_id);
CREATE INDEX ON customers (support_rep_id);
CREATE INDEX ON employees (reports_to);
CREATE INDEX ON invoices (customer_id);
CREATE INDEX ON invoice_lines (invoice_id);
CREATE INDEX ON invoice_lines (track_id);
CREATE INDEX ON playlist_track (track_id);
`;

/** `(i * prime) % n`, a cheap deterministic spread of `i` over 0..n-1. */
function spread(i: string, prime: number, n: number | string): string {
  return `((${i}::bigint * ${prime}) % ${n})`;
}

/** Picks a word from a fixed list by a hash of `i`. */
function pick(words: readonly string[], i: string, prime: number): string {
  const list = words.map((w) => `'${w.replace(/'/g, "''")}'`).join(',');
  return `(ARRAY[${list}])[1 + ${spread(i, prime, words.length)}]`;
}

const ADJECTIVES = [
  'Electric',
  'Blue',
  'Silent',
  'Golden',
  'Broken',
  'Wild',
  'Midnight',
  'Velvet',
  'Heavy',
  'Lost',
  'Neon',
  'Iron',
  'Sweet',
  'Dark',
  'Crystal',
  'Hollow',
  'Burning',
  'Paper',
  'Stone',
  'Rock',
];
const NOUNS = [
  'Hearts',
  'Roads',
  'Rock',
  'Dreams',
  'Machines',
  'Rivers',
  'Echoes',
  'Lights',
  'Shadows',
  'Waves',
  'Kings',
  'Angels',
  'Storms',
  'Stars',
  'Tides',
  'Ghosts',
  'Roll',
  'Bells',
  'Wolves',
  'Fires',
  'Songs',
  'Days',
  'Nights',
];
const FIRST = [
  'Ana',
  'Ben',
  'Chloe',
  'Diego',
  'Emma',
  'Farid',
  'Greta',
  'Hugo',
  'Ines',
  'Jonas',
  'Kira',
  'Luca',
  'Mara',
  'Nils',
  'Olga',
  'Pedro',
  'Quinn',
  'Rosa',
  'Sven',
  'Tara',
];
const LAST = [
  'Silva',
  'Meyer',
  'Dubois',
  'Rossi',
  'Novak',
  'Jensen',
  'Kowalski',
  'Garcia',
  'Smith',
  'Tanaka',
  'Moreau',
  'Schmidt',
  'Larsen',
  'Costa',
  'Horvat',
  'Murphy',
];
const COUNTRIES = ['Brazil', 'Germany', 'Canada', 'USA', 'France', 'Norway', 'Czech Republic', 'Portugal', 'India', 'Chile', 'Italy', 'Poland'];
const GENRES = [
  'Rock',
  'Jazz',
  'Metal',
  'Alternative & Punk',
  'Rock And Roll',
  'Blues',
  'Latin',
  'Reggae',
  'Pop',
  'Soundtrack',
  'Bossa Nova',
  'Easy Listening',
  'Heavy Metal',
  'R&B/Soul',
  'Electronica/Dance',
  'World',
  'Hip Hop/Rap',
  'Science Fiction',
  'TV Shows',
  'Sci Fi & Fantasy',
  'Drama',
  'Comedy',
  'Alternative',
  'Classical',
  'Opera',
];
const MEDIA = ['MPEG audio file', 'Protected AAC audio file', 'Protected MPEG-4 video file', 'Purchased AAC audio file', 'AAC audio file'];

/** The SQL that creates and fills a Chinook-shaped database at scale factor `scale`. */
export function generateChinookSql(scale: number): string {
  const c = scaleCounts(scale);
  const genres = GENRES.map((g, i) => `(${i + 1}, '${g}')`).join(',');
  const media = MEDIA.map((m, i) => `(${i + 1}, '${m}')`).join(',');
  return `${DDL}
INSERT INTO genres (id, name) VALUES ${genres};
INSERT INTO media_types (id, name) VALUES ${media};
INSERT INTO employees (id, last_name, first_name, title, reports_to, hire_date, country, email)
  SELECT i, ${pick(LAST, 'i', 7)}, ${pick(FIRST, 'i', 11)}, CASE WHEN i = 1 THEN 'General Manager' ELSE 'Sales Support Agent' END,
         CASE WHEN i = 1 THEN NULL ELSE 1 END, timestamp '2002-04-01' + i * interval '30 days', 'Canada', 'staff' || i || '@example.com'
  FROM generate_series(1, ${c.employees}) i;
INSERT INTO artists (id, name)
  SELECT i, ${pick(ADJECTIVES, 'i', 13)} || ' ' || ${pick(NOUNS, 'i', 17)} || ' ' || i FROM generate_series(1, ${c.artists}) i;
INSERT INTO albums (id, title, artist_id)
  SELECT i, ${pick(ADJECTIVES, 'i', 19)} || ' ' || ${pick(NOUNS, 'i', 23)} || ' Vol. ' || i, 1 + ${spread('i', 7919, c.artists)}
  FROM generate_series(1, ${c.albums}) i;
INSERT INTO tracks (id, name, album_id, media_type_id, genre_id, composer, milliseconds, bytes, unit_price)
  SELECT i, ${pick(NOUNS, 'i', 29)} || ' of ' || ${pick(ADJECTIVES, 'i', 31)} || ' #' || i,
         1 + ((i - 1)::bigint * ${c.albums}) / ${c.tracks},
         1 + ${spread('i', 37, c.mediaTypes)}, 1 + ${spread('i', 41, c.genres)},
         CASE WHEN i % 4 = 0 THEN NULL ELSE ${pick(FIRST, 'i', 43)} || ' ' || ${pick(LAST, 'i', 47)} END,
         60000 + ${spread('i', 104729, 420000)}, 1000000 + ${spread('i', 15485863, 9000000)},
         CASE WHEN i % 10 = 0 THEN 1.99 ELSE 0.99 END
  FROM generate_series(1, ${c.tracks}) i;
INSERT INTO customers (id, first_name, last_name, company, city, country, email, support_rep_id)
  SELECT i, ${pick(FIRST, 'i', 53)}, ${pick(LAST, 'i', 59)}, CASE WHEN i % 5 = 0 THEN 'Company ' || i END,
         'City ' || (i % 50), ${pick(COUNTRIES, 'i', 61)}, 'customer' || i || '@example.com', 3 + ${spread('i', 67, 3)}
  FROM generate_series(1, ${c.customers}) i;
INSERT INTO invoices (id, customer_id, invoice_date, billing_city, billing_country, total)
  SELECT i, 1 + ((i - 1) % ${c.customers}), timestamp '2009-01-01' + ${spread('i', 7, 1800)} * interval '1 day',
         'City ' || (i % 50), ${pick(COUNTRIES, 'i', 71)}, 0
  FROM generate_series(1, ${c.invoices}) i;
INSERT INTO invoice_lines (id, invoice_id, track_id, unit_price, quantity)
  SELECT i, 1 + ((i - 1)::bigint * ${c.invoices}) / ${c.invoiceLines}, 1 + ${spread('i', 2654435761, c.tracks)},
         CASE WHEN i % 10 = 0 THEN 1.99 ELSE 0.99 END, 1
  FROM generate_series(1, ${c.invoiceLines}) i;
UPDATE invoices v SET total = s.total
  FROM (SELECT invoice_id, sum(unit_price * quantity) AS total FROM invoice_lines GROUP BY invoice_id) s
  WHERE s.invoice_id = v.id;
INSERT INTO playlists (id, name)
  SELECT i, ${pick(ADJECTIVES, 'i', 73)} || ' Mix ' || i FROM generate_series(1, ${c.playlists}) i;
INSERT INTO playlist_track (playlist_id, track_id)
  SELECT 1 + ((i - 1) % ${c.playlists}), 1 + ((((i - 1) / ${c.playlists}) + ((i - 1) % ${c.playlists}) * 97) % ${c.tracks})
  FROM generate_series(1, ${c.playlistTracks}) i;
${INDEXES}
${GENERATED_TABLES.filter((t) => t !== 'playlist_track')
  .map((t) => `SELECT setval(pg_get_serial_sequence('${t}', 'id'), (SELECT max(id) FROM ${t}));`)
  .join('\n')}
ANALYZE;
`;
}
