/**
 * The README's `customer` permission expressed the PostGraphile way: a
 * database role with SELECT on the music-store tables and row-level security
 * on `customers` and `invoices` keyed by `jwt.claims.user_id`. The bench
 * connects as the table owner, which RLS does not apply to, so Engine and the
 * raw-SQL peer are unaffected.
 */

/** The database role PostGraphile switches to for `x-engine-role: customer`. */
export const CUSTOMER_DB_ROLE = 'bench_customer';

/** Tables the customer may read without a row filter (as in the README). */
const OPEN_TABLES = ['albums', 'artists', 'tracks', 'genres', 'media_types', 'invoice_lines'];

/** SQL creating the role, its grants and the two policies (idempotent per database). */
export function customerRlsSql(): string {
  const uid = `nullif(current_setting('jwt.claims.user_id', true), '')::int`;
  return `
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${CUSTOMER_DB_ROLE}') THEN CREATE ROLE ${CUSTOMER_DB_ROLE}; END IF;
END $$;
GRANT USAGE ON SCHEMA public TO ${CUSTOMER_DB_ROLE};
GRANT SELECT ON ${[...OPEN_TABLES, 'customers', 'invoices'].join(', ')} TO ${CUSTOMER_DB_ROLE};
ALTER TABLE customers ENABLE ROW LEVEL SECURITY;
ALTER TABLE invoices ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS bench_customer_self ON customers;
CREATE POLICY bench_customer_self ON customers FOR SELECT TO ${CUSTOMER_DB_ROLE} USING (id = ${uid});
DROP POLICY IF EXISTS bench_customer_own ON invoices;
CREATE POLICY bench_customer_own ON invoices FOR SELECT TO ${CUSTOMER_DB_ROLE} USING (customer_id = ${uid});
`;
}
