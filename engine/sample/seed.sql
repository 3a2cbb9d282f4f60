-- The sample database `npm start` creates on first start: a small bookshop.
CREATE TABLE authors (
  id serial PRIMARY KEY,
  name text NOT NULL,
  born date,
  bio text
);
COMMENT ON TABLE authors IS 'People who wrote the books';

CREATE TABLE genres (
  value text PRIMARY KEY,
  comment text
);
INSERT INTO genres VALUES ('fiction', 'Novels and stories'), ('science', 'Popular science'), ('history', 'History');

CREATE TABLE books (
  id serial PRIMARY KEY,
  title text NOT NULL,
  author_id int NOT NULL REFERENCES authors(id),
  genre text NOT NULL REFERENCES genres(value),
  published_on date,
  price numeric(8,2) NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  details jsonb NOT NULL DEFAULT '{}',
  is_published boolean NOT NULL DEFAULT true
);

CREATE TABLE users (
  id serial PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL UNIQUE
);

CREATE TABLE reviews (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  book_id int NOT NULL REFERENCES books(id),
  user_id int NOT NULL REFERENCES users(id),
  rating int NOT NULL CHECK (rating BETWEEN 1 AND 5),
  body text,
  created_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO authors (name, born, bio) VALUES
  ('Ursula K. Le Guin', '1929-10-21', 'Science fiction and fantasy'),
  ('Carl Sagan', '1934-11-09', 'Astronomer'),
  ('Mary Beard', '1955-01-01', 'Classicist'),
  ('Italo Calvino', '1923-10-15', NULL);

INSERT INTO books (title, author_id, genre, published_on, price, tags, details, is_published) VALUES
  ('The Left Hand of Darkness', 1, 'fiction', '1969-03-01', 9.99, '{classic,sf}', '{"pages": 304}', true),
  ('The Dispossessed', 1, 'fiction', '1974-05-01', 11.50, '{classic,sf,utopia}', '{"pages": 387}', true),
  ('A Wizard of Earthsea', 1, 'fiction', '1968-11-01', 8.75, '{fantasy}', '{"pages": 183}', true),
  ('Cosmos', 2, 'science', '1980-10-01', 14.00, '{space}', '{"pages": 365, "illustrated": true}', true),
  ('Pale Blue Dot', 2, 'science', '1994-09-01', 13.25, '{space}', '{"pages": 429}', true),
  ('SPQR', 3, 'history', '2015-10-20', 18.99, '{rome}', '{"pages": 608}', true),
  ('Invisible Cities', 4, 'fiction', '1972-01-01', 10.40, '{classic}', '{"pages": 165}', true),
  ('Unfinished Draft', 4, 'fiction', NULL, 0.00, '{}', '{}', false);

INSERT INTO users (name, email) VALUES
  ('Ada', 'ada@example.com'),
  ('Grace', 'grace@example.com');

INSERT INTO reviews (book_id, user_id, rating, body) VALUES
  (1, 1, 5, 'Changed how I think about gender.'),
  (4, 1, 4, 'Wonderful.'),
  (4, 2, 5, 'Billions and billions.'),
  (6, 2, 4, NULL);
