import { describe, expect, it } from 'vitest';
import { clientErrorAnswer, READ_TIMEOUT_DEFAULTS, serverTimeoutOptions } from './read-timeouts.ts';

describe('read timeouts', () => {
  it('map to Node server options, the header timeout never above read_timeout, checked often enough', () => {
    expect(serverTimeoutOptions(READ_TIMEOUT_DEFAULTS)).toEqual({ headersTimeout: 10_000, requestTimeout: 60_000, connectionsCheckingInterval: 1000 });
    expect(serverTimeoutOptions({ read_header_timeout: 5000, read_timeout: 2000 })).toMatchObject({ headersTimeout: 2000, requestTimeout: 2000, connectionsCheckingInterval: 500 });
    // read_timeout 0: no request limit, the header timeout stays.
    expect(serverTimeoutOptions({ read_header_timeout: 400, read_timeout: 0 })).toEqual({ headersTimeout: 400, requestTimeout: 0, connectionsCheckingInterval: 100 });
  });

  it('answer a timeout 408 and unparsable bytes 400 or 431, naming why', () => {
    const timeout = Object.assign(new Error('t'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    expect(clientErrorAnswer(timeout, READ_TIMEOUT_DEFAULTS)).toEqual({
      status: 408, message: 'the request did not arrive within read_header_timeout (10000 ms) or read_timeout (60000 ms)',
    });
    expect(clientErrorAnswer(Object.assign(new Error('o'), { code: 'HPE_HEADER_OVERFLOW' }), READ_TIMEOUT_DEFAULTS).status).toBe(431);
    expect(clientErrorAnswer(Object.assign(new Error('x'), { code: 'HPE_INVALID_METHOD' }), READ_TIMEOUT_DEFAULTS)).toEqual({
      status: 400, message: 'the request is not valid HTTP/1.1 (HPE_INVALID_METHOD)',
    });
  });
});
