// The error of a read that ran past `read.query_timeout` (read-api.md §9.2): abandoned, answered 503.

/** A query ran past its deadline (`read.query_timeout`): abandoned, answered 503. */
export class QueryTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`The query took longer than query_timeout (${timeoutMs} ms); narrow it (window, filter, limit) or retry`);
    this.name = 'QueryTimeoutError';
  }
}
