// The inside of a string's JSON literal, written by a WebAssembly SIMD kernel for the record writer
// (its long strings, and short ones with escapes or non-ASCII characters): the text is UTF-8 encoded
// natively into the kernel's memory, which copies it 16 bytes per step to an output area while no byte
// of the step needs an escape, and escapes the bytes that do as JSON.stringify does. The writer then
// copies the output into its buffer.
//
// Why: LLM inputs and outputs (hundreds to thousands of characters, full of newlines and quotes) are
// most of the bytes of an LLM span. The JavaScript byte scan checked four bytes per step and handed any
// text with an escape to JSON.stringify and a second native write (decision 0480 has the measurements).
//
// Left to the caller, besides texts over MAX_KERNEL_TEXT: U+FFFD (EF BF BD), which is what the native
// UTF-8 encoding makes of a lone surrogate; JSON.stringify writes a lone surrogate as `\udXXX`, and only
// the string can tell.
import {
  OP, SIMD, VOID, add, get, i32, instantiateKernel, kernelModule, memarg, reserveMemory, set, simd, tee, type WasmMemory,
} from '../wasm/assemble.ts';
import type { Utf8WriteBuffer } from '../output-buffer.ts';

/** Where the text's UTF-8 bytes go; below it, the tables (TABLE_SHORT, TABLE_HEX). */
const INPUT = 64;
/** For each byte below 0x20, the letter of its two-character escape (`\n`), or 0 for `\u00XX`. */
const TABLE_SHORT = 0;
/** The hex digits of `\u00XX`, lowercase as JSON.stringify writes them. */
const TABLE_HEX = 32;
/** Texts longer than this (in UTF-16 units) are the caller's: the memory, which never shrinks, stays
 *  at 10 pages, 640 KiB (UTF-8 input up to 3 bytes per unit, output up to 6 bytes per unit). */
export const MAX_KERNEL_TEXT = 64 * 1024;

/** The kernel's answer for a text it leaves to the caller. */
const GIVE_UP = -1;

// Parameters and locals, by index.
const START = 0; // first input byte
const END = 1; // past the last input byte
const OUT = 2; // where the output starts
const I = 3; // input position
const O = 4; // output position
const C = 5; // current byte
const T = 6; // a table entry, or the 16 bytes' bitmask
const BLOCK = 7; // v128: the 16 bytes at I
const QUOTES = 8; // v128: sixteen '"'
const BACKSLASHES = 9; // v128: sixteen '\'
const SPACES = 10; // v128: sixteen 0x20, the first byte that needs no escape
const EFS = 11; // v128: sixteen 0xef, the first byte of U+FFFD

const isByte = (code: number) => [...get(C), ...i32(code), OP.i32Eq];
/** output[O + offset] = the value the instructions leave */
const storeOut = (offset: number, value: number[]) => [...get(O), ...value, OP.i32Store8, ...memarg(offset)];

/**
 * escape(start, end, out) -> the output's length, or GIVE_UP. Branch depths (the numbers after br)
 * count enclosing blocks outward from the innermost, 0 first.
 */
const ESCAPE_BODY: number[] = [
  ...i32(0x22), ...simd(SIMD.i8x16Splat), ...set(QUOTES),
  ...i32(0x5c), ...simd(SIMD.i8x16Splat), ...set(BACKSLASHES),
  ...i32(0x20), ...simd(SIMD.i8x16Splat), ...set(SPACES),
  ...i32(0xef), ...simd(SIMD.i8x16Splat), ...set(EFS),
  ...get(START), ...set(I),
  ...get(OUT), ...set(O),
  OP.loop, VOID, // $outer: sixteen plain bytes, or one byte, per turn
  // While 16 bytes remain: store them at O whatever they are (the output area has room: a byte becomes
  // at most 6), then step over those before the first that needs a look (below 0x20, '"', '\', 0xef).
  // The bytes stored past it are written again by what follows.
  ...get(I), ...i32(16), OP.i32Add, ...get(END), OP.i32LeU, OP.if, VOID,
  ...get(O), ...get(I), ...simd(SIMD.v128Load), ...memarg(), ...tee(BLOCK), ...simd(SIMD.v128Store), ...memarg(),
  ...get(BLOCK), ...get(SPACES), ...simd(SIMD.i8x16LtU),
  ...get(BLOCK), ...get(QUOTES), ...simd(SIMD.i8x16Eq), ...simd(SIMD.v128Or),
  ...get(BLOCK), ...get(BACKSLASHES), ...simd(SIMD.i8x16Eq), ...simd(SIMD.v128Or),
  ...get(BLOCK), ...get(EFS), ...simd(SIMD.i8x16Eq), ...simd(SIMD.v128Or),
  ...simd(SIMD.i8x16Bitmask), ...tee(T),
  OP.i32Eqz, OP.if, VOID,
  ...add(I, 16), ...add(O, 16),
  OP.br, 2, // continue $outer
  OP.end,
  ...get(T), OP.i32Ctz, ...set(T),
  ...get(I), ...get(T), OP.i32Add, ...set(I),
  ...get(O), ...get(T), OP.i32Add, ...set(O),
  OP.end,
  // One byte. At the end: the output's length.
  ...get(I), ...get(END), OP.i32GeU, OP.if, VOID, ...get(O), ...get(OUT), OP.i32Sub, OP.return, OP.end,
  ...get(I), OP.i32Load8u, ...memarg(), ...set(C), ...add(I, 1),
  // '"' or '\': a backslash before it.
  ...isByte(0x22), ...isByte(0x5c), OP.i32Or, OP.if, VOID,
  ...storeOut(0, i32(0x5c)), ...storeOut(1, get(C)), ...add(O, 2),
  OP.br, 1, // continue $outer
  OP.end,
  // Below 0x20: `\n` and the other short forms, else `\u00XX`.
  ...get(C), ...i32(0x20), OP.i32LtU, OP.if, VOID,
  ...storeOut(0, i32(0x5c)),
  ...get(C), OP.i32Load8u, ...memarg(TABLE_SHORT), ...tee(T), OP.if, VOID,
  ...storeOut(1, get(T)), ...add(O, 2),
  OP.else,
  ...storeOut(1, i32(0x75)), ...storeOut(2, i32(0x30)), ...storeOut(3, i32(0x30)),
  ...storeOut(4, [...get(C), ...i32(4), OP.i32ShrU, OP.i32Load8u, ...memarg(TABLE_HEX)]),
  ...storeOut(5, [...get(C), ...i32(15), OP.i32And, OP.i32Load8u, ...memarg(TABLE_HEX)]),
  ...add(O, 6),
  OP.end,
  OP.br, 1, // continue $outer
  OP.end,
  // 0xef followed by BF BD is U+FFFD, maybe a lone surrogate: the caller's.
  ...isByte(0xef), OP.if, VOID,
  ...get(I), ...i32(2), OP.i32Add, ...get(END), OP.i32LeU, OP.if, VOID,
  ...get(I), OP.i32Load8u, ...memarg(0), ...i32(0xbf), OP.i32Eq,
  ...get(I), OP.i32Load8u, ...memarg(1), ...i32(0xbd), OP.i32Eq, OP.i32And,
  OP.if, VOID, ...i32(GIVE_UP), OP.return, OP.end,
  OP.end,
  OP.end,
  // Anything else as it is.
  ...storeOut(0, get(C)), ...add(O, 1),
  OP.br, 0, // continue $outer
  OP.end,
  ...i32(0), // not reached; the function's result type wants a value here
  OP.end,
];

interface Escaper {
  escape(start: number, end: number, out: number): number;
  memory: WasmMemory;
}

const escaper = instantiateKernel<Escaper>(kernelModule({
  name: 'escape', params: 3, i32Locals: 4, v128Locals: 5, body: ESCAPE_BODY, // locals I..T, BLOCK..EFS
}));

/** The kernel's memory as a Buffer (for the native UTF-8 write and the copy out); renewed on growth. */
let memory = kernelView();

function kernelView(): Utf8WriteBuffer {
  return (escaper === undefined ? Buffer.alloc(0) : Buffer.from(escaper.memory.buffer)) as Utf8WriteBuffer;
}

function writeTables(into: Buffer): void {
  into.fill(0, TABLE_SHORT, TABLE_SHORT + 32);
  for (const [code, letter] of [[0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0c, 'f'], [0x0d, 'r']] as const) {
    into[TABLE_SHORT + code] = letter.charCodeAt(0);
  }
  into.write('0123456789abcdef', TABLE_HEX, 'latin1');
}
if (escaper !== undefined) writeTables(memory);

/** Whether the kernel runs here (tests use it to know which path they exercised). */
export const escapeKernelAvailable = escaper !== undefined;

/** Where the last escapeText()'s output starts in the kernel's memory. */
let output = 0;

/**
 * Escapes `text` as the inside of a JSON string literal (no quotes), exactly as JSON.stringify does,
 * into the kernel's memory; copyEscaped() then copies it out. Returns the output's byte length, or -1
 * when the caller must write the text some other way: no WebAssembly here, a text longer than
 * MAX_KERNEL_TEXT, no memory to grow into, or a U+FFFD in the UTF-8 (which may be a lone surrogate:
 * only JSON.stringify of the string tells). Two steps, so that the writer reserves the bytes the text
 * takes, not the six per character it might.
 */
export function escapeText(text: string): number {
  const n = text.length;
  if (escaper === undefined || n > MAX_KERNEL_TEXT) return -1;
  // 16-byte aligned output after at most 3 bytes per unit of input; up to 6 bytes per unit out.
  const out = (INPUT + 3 * n + 15) & ~15;
  const needed = out + 6 * n + 16;
  if (needed > memory.length) {
    if (!reserveMemory(escaper.memory, needed)) return -1;
    memory = kernelView();
  }
  const bytes = memory.utf8Write(text, INPUT);
  output = out;
  return escaper.escape(INPUT, INPUT + bytes, out);
}

/** Copies the `length` bytes of the last escapeText() into `target` at `at`. */
export function copyEscaped(target: Buffer, at: number, length: number): void {
  memory.copy(target, at, output, output + length);
}
