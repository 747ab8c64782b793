// Putting a key on a plain object built from client data. `obj[k] = v` with k === '__proto__' would set
// the object's prototype instead of adding a member; JSON.parse makes such a key an own member, and so
// must every object built from the same input.

/** Sets `k` as an own, enumerable member of `obj`, `__proto__` included. */
export function setMember(obj: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
  else obj[k] = v;
}
