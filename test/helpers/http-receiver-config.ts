// The `receivers.http` defaults as the config loader fills them in (durations already in milliseconds),
// written out by hand: receivers/http/config.test.ts checks the schema's defaults against them, and tests
// start receivers from them.
import { NO_CORS } from '../../receivers/common/cors.ts';
import { READ_TIMEOUT_DEFAULTS } from '../../receivers/common/read-timeouts.ts';
import type { HttpReceiverConfig } from '../../receivers/http/config.ts';

export const httpDefaults: HttpReceiverConfig = {
  endpoint: '127.0.0.1:4319',
  max_request_body_size: 20_971_520,
  max_nesting_depth: 64,
  max_spans_per_request: 100_000,
  max_values_per_request: 500_000,
  api_keys: [],
  retry_after: 1000,
  cors: NO_CORS,
  read: { default_limit: 100, max_limit: 10_000, query_timeout: 5000 },
  ...READ_TIMEOUT_DEFAULTS,
};
