// A few WebAssembly instruction encodings and a one-function module builder, for the small hand-assembled
// SIMD kernels of the hot paths (pipeline/json/wasm-scan.ts, pipeline/record/wasm-escape.ts).
//
// Why by hand: each kernel is one function of a few hundred bytes; a toolchain (wat2wasm, emscripten)
// would be a build step and a dependency for it. Each kernel names its instructions with the tables
// below, comments every step with what it does in JavaScript terms, and is held to a JavaScript
// equivalent by a differential test.

/** Core opcodes (WebAssembly core spec, binary format). */
export const OP = {
  block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, br: 0x0c, brIf: 0x0d, return: 0x0f,
  localGet: 0x20, localSet: 0x21, localTee: 0x22, i32Load8u: 0x2d, i32Store: 0x36, i32Store8: 0x3a,
  i32Const: 0x41, i32Eqz: 0x45, i32Eq: 0x46, i32Ne: 0x47, i32LtU: 0x49, i32GtS: 0x4a, i32LeU: 0x4d,
  i32GeU: 0x4f, i32Ctz: 0x68, i32Add: 0x6a, i32Sub: 0x6b, i32And: 0x71, i32Or: 0x72, i32Shl: 0x74,
  i32ShrU: 0x76,
} as const;
/** Block type: no values. */
export const VOID = 0x40;
export const I32 = 0x7f;
export const V128 = 0x7b;
/** The SIMD proposal's opcodes, each after SIMD_PREFIX. */
export const SIMD = {
  v128Load: 0x00, v128Store: 0x0b, i8x16Splat: 0x0f, i8x16Eq: 0x23, i8x16LtU: 0x26, v128Or: 0x50,
  i8x16Bitmask: 0x64,
} as const;
const SIMD_PREFIX = 0xfd;

/** A memory access's immediate: alignment exponent 0 (unaligned is fine), then the constant offset. */
export const memarg = (offset = 0): number[] => [0, ...unsignedLeb(offset)];

export const get = (local: number): number[] => [OP.localGet, local];
export const set = (local: number): number[] => [OP.localSet, local];
export const tee = (local: number): number[] => [OP.localTee, local];
export const i32 = (value: number): number[] => [OP.i32Const, ...signedLeb(value)];
export const simd = (op: number): number[] => [SIMD_PREFIX, ...unsignedLeb(op)];
/** local += by */
export const add = (local: number, by: number): number[] => [...get(local), ...i32(by), OP.i32Add, ...set(local)];

export function unsignedLeb(value: number): number[] {
  const out: number[] = [];
  do {
    let b = value & 0x7f;
    value >>>= 7;
    if (value !== 0) b |= 0x80;
    out.push(b);
  } while (value !== 0);
  return out;
}

export function signedLeb(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (b & 0x40) === 0) || (value === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const vector = (items: number[][]): number[] => [...unsignedLeb(items.length), ...items.flat()];
const section = (id: number, content: number[]): number[] => [id, ...unsignedLeb(content.length), ...content];
const name = (text: string): number[] => [...unsignedLeb(text.length), ...Buffer.from(text, 'latin1')];

export interface KernelSpec {
  /** The exported function's name. */
  name: string;
  /** Count of i32 parameters; the result is one i32. */
  params: number;
  /** Locals after the parameters, in order: how many i32, then how many v128. */
  i32Locals: number;
  v128Locals: number;
  /** The instructions, ending with the function's `end`. */
  body: number[];
}

/** A module with one function `(i32 x params) -> i32` and one memory (one page to start), both exported. */
export function kernelModule(spec: KernelSpec): Uint8Array {
  const locals = vector([[spec.i32Locals, I32], [spec.v128Locals, V128]]);
  const code = [...locals, ...spec.body];
  const params = Array.from({ length: spec.params }, () => [I32]);
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
    ...section(1, vector([[0x60, ...vector(params), ...vector([[I32]])]])), // the one function type
    ...section(3, vector([[0]])), // function 0 has type 0
    ...section(5, vector([[0x00, 1]])), // one memory, 1 page to start
    ...section(7, vector([[...name(spec.name), 0x00, 0], [...name('memory'), 0x02, 0]])),
    ...section(10, vector([[...unsignedLeb(code.length), ...code]])),
  ]);
}

/** The parts of the WebAssembly API used here (the project's TypeScript libraries do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

export interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}

const WASM_PAGE = 65536;

/**
 * Grows `memory` to at least `bytes` (it never shrinks). False when it cannot grow (the caller then
 * runs its JavaScript path). A grown memory has a new buffer: views of the old one are empty.
 */
export function reserveMemory(memory: WasmMemory, bytes: number): boolean {
  const size = memory.buffer.byteLength;
  if (bytes <= size) return true;
  try {
    memory.grow(Math.ceil((bytes - size) / WASM_PAGE));
    return true;
  } catch {
    return false;
  }
}

/** The module's exports, or undefined where WebAssembly or its SIMD is unavailable (e.g. --jitless). */
export function instantiateKernel<T>(bytes: Uint8Array): T | undefined {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined) return undefined;
  try {
    return new wasm.Instance(new wasm.Module(bytes)).exports as T;
  } catch {
    return undefined;
  }
}
