// The one test for "a JSON object" (not an array, not null), for every layer that reads parsed JSON:
// the codecs, the receivers and the read side's trace walk.

/** A JSON object as JSON.parse gives it (not an array, not null). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
