// scanJson (depth.ts) in WebAssembly with 128-bit SIMD: most bytes of a tracing body are inside strings
// (~750 of ~810 per bench span), and here a string is skipped 16 bytes per step (two byte compares and a
// bitmask), where the JavaScript loop reads every byte. Same answer as scanJson (nesting too deep, the
// wide number tokens' positions); where it cannot run (no WebAssembly, very large bodies) the caller
// runs scanJson.
//
// The module (466 bytes) is assembled by hand (pipeline/wasm/assemble.ts says why): each instruction is
// written by name, with the JavaScript scan's equivalent in comments, and the differential test
// (wasm-scan.test.ts) holds it to scanJson on random texts.
// Measured (thread CPU, same process): bench flat body, scanJson ~1.0-1.2 us/span, this one ~0.3
// including the copy into wasm memory; ~2.4 KB/span strings 2.2 vs 0.56 (decision 0400).

import {
  OP, SIMD, VOID, add, get, i32, instantiateKernel, kernelModule, memarg, reserveMemory, set, simd, tee, type WasmMemory,
} from '../wasm/assemble.ts';
import type { JsonScan } from './depth.ts';

/** The wasm function's answers other than a count of wide tokens. */
const SCAN_TOO_DEEP = -1;
/** More wide tokens than WIDE_LIMIT. */
const SCAN_UNDECIDED = -2;
/** Wide number tokens the wasm function records at most ([start, end) pairs of i32 after the body). */
const WIDE_LIMIT = 8192;

/**
 * Bodies above this are left to scanJson, so the wasm memory (which never shrinks) stays small. The
 * benchmark's bodies are ~80 KB; a body of several MB costs far more in JSON.parse than in the scan.
 */
const MAX_BYTES = 4 << 20;

// Parameters and locals, by index.
const N = 0; // body length
const MAX_DEPTH = 1;
const OUT = 2; // where the wide tokens' [start, end) pairs go (after the body, 4-byte aligned)
const LIMIT = 3; // how many pairs fit there
const I = 4; // position
const DEPTH = 5;
const C = 6; // current byte
const MASK = 7; // quote/backslash bitmask of 16 bytes
const DIGITS = 8; // digits in the current number token
const EXPONENT = 9; // the token has an e/E
const COUNT = 10; // wide tokens recorded
const START = 11; // where the current number token starts
const QUOTES = 12; // v128: sixteen '"'
const BACKSLASHES = 13; // v128: sixteen '\'
const BLOCK = 14; // v128: the 16 bytes at I

/** local += 1 */
const increment = (local: number) => add(local, 1);
/** i >= n: return the count of wide tokens */
const returnAtEnd = [...get(I), ...get(N), OP.i32GeU, OP.if, VOID, ...get(COUNT), OP.return, OP.end];
/** i32 at OUT + COUNT * 8 + offset = value */
const storePair = (offset: number, value: number) => [
  ...get(OUT), ...get(COUNT), ...i32(3), OP.i32Shl, OP.i32Add, ...get(value), OP.i32Store, 2, offset,
];
/** c = bytes[i++] */
const readByte = [...get(I), OP.i32Load8u, ...memarg(), ...set(C), ...increment(I)];
/** (c | 0x20) === code: '[' and '{' differ only in bit 5, as do ']' and '}', 'E' and 'e'. */
const isEitherCase = (code: number) => [...get(C), ...i32(0x20), OP.i32Or, ...i32(code), OP.i32Eq];
const isByte = (code: number) => [...get(C), ...i32(code), OP.i32Eq];
/** (c - 0x30) as unsigned <= 9 */
const isDigit = [...get(C), ...i32(0x30), OP.i32Sub, ...i32(9), OP.i32LeU];

/**
 * scan(n, maxDepth, out, limit) over memory[0, n) -> SCAN_TOO_DEEP, SCAN_UNDECIDED, or the count of wide
 * number tokens, whose [start, end) pairs it wrote as i32 from `out`. Branch depths
 * (the numbers after br/br_if) count enclosing blocks outward from the innermost, 0 first.
 */
const SCAN_BODY: number[] = [
  ...i32(0x22), ...simd(SIMD.i8x16Splat), ...set(QUOTES),
  ...i32(0x5c), ...simd(SIMD.i8x16Splat), ...set(BACKSLASHES),
  OP.loop, VOID, // $outer: one token or structural byte per turn
  ...returnAtEnd,
  ...readByte,
  // c === '"': skip the string.
  ...isByte(0x22), OP.if, VOID,
  OP.loop, VOID, // $string
  // Sixteen bytes without a quote or backslash are all inside the string: step over them. Otherwise step
  // to the first such byte, which the byte path below reads. Only while 16 bytes remain, so no byte
  // past the body is looked at (what lies there is an earlier body's or the pair area).
  ...get(I), ...i32(16), OP.i32Add, ...get(N), OP.i32LeU, OP.if, VOID,
  ...get(I), ...simd(SIMD.v128Load), ...memarg(), ...tee(BLOCK),
  ...get(QUOTES), ...simd(SIMD.i8x16Eq),
  ...get(BLOCK), ...get(BACKSLASHES), ...simd(SIMD.i8x16Eq),
  ...simd(SIMD.v128Or), ...simd(SIMD.i8x16Bitmask), OP.localTee, MASK,
  OP.i32Eqz, OP.if, VOID,
  ...get(I), ...i32(16), OP.i32Add, ...set(I),
  OP.br, 2, // continue $string
  OP.end,
  ...get(I), ...get(MASK), OP.i32Ctz, OP.i32Add, ...set(I),
  OP.end,
  ...returnAtEnd, // unterminated: JSON.parse reports it, as after scanJson
  ...readByte,
  ...isByte(0x22), OP.brIf, 2, // the closing quote: continue $outer
  ...isByte(0x5c), OP.if, VOID, ...increment(I), OP.end, // the escaped byte cannot end the string
  OP.br, 0, // continue $string
  OP.end,
  OP.end,
  // '[' or '{': one level deeper.
  ...isEitherCase(0x7b), OP.if, VOID,
  ...increment(DEPTH),
  ...get(DEPTH), ...get(MAX_DEPTH), OP.i32GtS, OP.if, VOID, ...i32(SCAN_TOO_DEEP), OP.return, OP.end,
  OP.br, 1, // continue $outer
  OP.end,
  // ']' or '}'
  ...isEitherCase(0x7d), OP.if, VOID,
  ...get(DEPTH), ...i32(1), OP.i32Sub, ...set(DEPTH),
  OP.br, 1,
  OP.end,
  // A number token: digit or '-', then digits, sign, dot, exponent (as in scanJson).
  ...isDigit, ...isByte(0x2d), OP.i32Or, OP.if, VOID,
  ...get(I), ...i32(1), OP.i32Sub, ...set(START),
  ...isByte(0x2d), OP.i32Eqz, ...set(DIGITS),
  ...i32(0), ...set(EXPONENT),
  OP.block, VOID, // $token
  OP.loop, VOID, // $tokenByte
  ...get(I), ...get(N), OP.i32GeU, OP.brIf, 1, // break $token
  ...get(I), OP.i32Load8u, ...memarg(), ...set(C),
  ...isDigit, OP.if, VOID, ...increment(DIGITS), ...increment(I), OP.br, 1, OP.end,
  ...isEitherCase(0x65), OP.if, VOID, ...i32(1), ...set(EXPONENT), ...increment(I), OP.br, 1, OP.end,
  ...isByte(0x2d), ...isByte(0x2b), OP.i32Or, ...isByte(0x2e), OP.i32Or, OP.if, VOID, ...increment(I), OP.br, 1, OP.end,
  OP.end,
  OP.end,
  // A token that may not fit a double: record where it is, for the exact parse.
  ...get(EXPONENT), ...get(DIGITS), ...i32(16), OP.i32GeU, OP.i32Or, OP.if, VOID,
  ...get(COUNT), ...get(LIMIT), OP.i32GeU, OP.if, VOID, ...i32(SCAN_UNDECIDED), OP.return, OP.end,
  ...storePair(0, START), ...storePair(4, I), ...increment(COUNT),
  OP.end,
  OP.end,
  OP.br, 0, // continue $outer
  OP.end,
  ...i32(0), // not reached; the function's result type wants a value here
  OP.end,
];

interface Scanner {
  scan(n: number, maxDepth: number, out: number, limit: number): number;
  memory: WasmMemory;
}

/** The compiled scanner, or undefined where WebAssembly or its SIMD is unavailable (e.g. --jitless). */
const scanner = instantiateKernel<Scanner>(kernelModule({
  name: 'scan', params: 4, i32Locals: 8, v128Locals: 3, body: SCAN_BODY, // locals I..START, QUOTES..BLOCK
}));
let memoryView = scanner === undefined ? new Uint8Array(0) : new Uint8Array(scanner.memory.buffer);
let pairView = scanner === undefined ? new Int32Array(0) : new Int32Array(scanner.memory.buffer);

/** Whether quickScan can answer at all here (tests use it to know which path they exercised). */
export const quickScanAvailable = scanner !== undefined;

const CLEAN: JsonScan = { tooDeep: false, exactNumbers: false };
const TOO_DEEP: JsonScan = { tooDeep: true, exactNumbers: false };

/**
 * scanJson's answer for `bytes`, or undefined when this scan cannot give it (no WebAssembly, a body over
 * MAX_BYTES, more than WIDE_LIMIT wide tokens): the caller then runs scanJson. Where too deep, only
 * `tooDeep` is scanJson's (the wide tokens before the deep bracket are not listed: nothing reads them).
 */
export function quickScan(bytes: Uint8Array, maxDepth: number): JsonScan | undefined {
  const n = bytes.length;
  // The limit is an i32 in wasm: a limit no body here can reach is capped, anything odd is scanJson's.
  if (scanner === undefined || n > MAX_BYTES || !(maxDepth >= 0)) return undefined;
  const out = (n + 3) & ~3;
  const needed = out + WIDE_LIMIT * 8;
  if (needed > memoryView.length) {
    // No memory for it: the JavaScript scan needs none.
    if (!reserveMemory(scanner.memory, needed)) return undefined;
    memoryView = new Uint8Array(scanner.memory.buffer);
    pairView = new Int32Array(scanner.memory.buffer);
  }
  memoryView.set(bytes);
  const answer = scanner.scan(n, maxDepth < MAX_BYTES ? maxDepth : MAX_BYTES, out, WIDE_LIMIT);
  if (answer === 0) return CLEAN;
  if (answer === SCAN_TOO_DEEP) return TOO_DEEP;
  if (answer === SCAN_UNDECIDED) return undefined;
  const wideNumbers = new Array<number>(answer * 2);
  for (let k = 0, at = out >> 2; k < wideNumbers.length; k++) wideNumbers[k] = pairView[at + k];
  return { tooDeep: false, exactNumbers: true, wideNumbers };
}
