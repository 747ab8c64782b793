// The price table library, loaded when a cost processor starts: importing it costs about 13 MiB of
// resident memory, which a daemon whose config has no cost processor should not pay. (A dynamic import:
// the single-executable bundle keeps it and evaluates it only then.)
export type PriceLibrary = typeof import('@pydantic/genai-prices');

export function loadPriceLibrary(): Promise<PriceLibrary> {
  return import('@pydantic/genai-prices');
}
