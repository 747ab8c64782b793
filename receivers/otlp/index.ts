// What other receivers may use: the shared OTLP/HTTP handler (the http receiver's /otlp/v1/traces route).
export { createOtlpHttpHandler, READY_REPLY, type OtlpHttpHandler, type OtlpHttpOptions, type OtlpHttpReply } from './http-handler.ts';
