/**
 * The database a PostgreSQL URL names, as the `run` span reports it (Note
 * [Database spans]): never its credentials.
 */
import { describe, expect, it } from 'vitest';
import { peerOf } from '../../../../engine/backends/postgres/connection.ts';

describe('peerOf', () => {
  it('names host, port and database, and no credentials', () => {
    const peer = peerOf('postgres://app:s3cret@db.example:6543/shop?sslmode=require');
    expect(peer).toEqual({ system: 'postgresql', namespace: 'shop', address: 'db.example', port: 6543 });
    expect(JSON.stringify(peer)).not.toContain('s3cret');
  });

  it("defaults as libpq does: port 5432, the user's name as the database", () => {
    expect(peerOf('postgresql://alice@localhost')).toEqual({ system: 'postgresql', namespace: 'alice', address: 'localhost', port: 5432 });
  });

  it('takes a socket directory from the host parameter and an IPv6 address without brackets', () => {
    expect(peerOf('postgres:///app?host=/var/run/postgresql')).toMatchObject({ namespace: 'app', address: '/var/run/postgresql' });
    expect(peerOf('postgres://u@[::1]:5433/app')).toMatchObject({ address: '::1', port: 5433 });
  });

  it('names only the system for a string that is not a URL', () => {
    expect(peerOf('host=localhost dbname=app')).toEqual({ system: 'postgresql' });
  });
});
