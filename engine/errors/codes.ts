/**
 * Every wire error code, as a constant. v2 compat: the codes users match on
 * (see docs/compat.md, "Errors").
 */
export const ErrorCode = {
  ValidationFailed: 'validation-failed',
  ParseFailed: 'parse-failed',
  ConstraintViolation: 'constraint-violation',
  DataException: 'data-exception',
  PermissionError: 'permission-error',
  AccessDenied: 'access-denied',
  InvalidJwt: 'invalid-jwt',
  JwtInvalidClaims: 'jwt-invalid-claims',
  Unexpected: 'unexpected',
  RemoteSchemaError: 'remote-schema-error',
  NotSupported: 'not-supported',
  AlreadyExists: 'already-exists',
  AlreadyTracked: 'already-tracked',
  AlreadyUntracked: 'already-untracked',
  NotExists: 'not-exists',
  InvalidConfiguration: 'invalid-configuration',
  DependencyError: 'dependency-error',
  PermissionDenied: 'permission-denied',
  InvalidJson: 'invalid-json',
  Conflict: 'conflict',
  BadRequest: 'bad-request',
  InvalidParams: 'invalid-params',
  PostgresError: 'postgres-error',
  /** v2 compat: a source refused a connection for too many clients ("max connections reached on postgres"). */
  PostgresMaxConnectionsError: 'postgres-max-connections-error',
  /** v2 compat: a failed `bigquery_run_sql` job. */
  BigQueryError: 'bigquery-error',
  NotFound: 'not-found',
  /** Automatic persisted queries (Note [Automatic persisted queries]): the clients match on the message. */
  PersistedQueryNotFound: 'persisted-query-not-found',
  PersistedQueryHashMismatch: 'persisted-query-hash-mismatch',
  MethodNotAllowed: 'method-not-allowed',
  UnsupportedMediaType: 'unsupported-media-type',
  RateLimitExceeded: 'rate-limit-exceeded',
  /** v2 compat: a call with `allow_warnings: false` that would have warned (`pg_track_tables`). */
  MetadataWarnings: 'metadata-warnings',
  /** A statement ran past its statement timeout (ENGINE_GRAPHQL_STATEMENT_TIMEOUT or a role's time_limit). */
  Timeout: 'timeout',
} as const;

/** One of the wire error codes. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
