/**
 * Loads the WASM core once per thread (main thread for inline use, each Piscina worker for its
 * own) and exposes typed views over its fixed I/O regions. Wrappers in wasm/*.ts copy inputs
 * into `input`, call an export, and copy results out of `output`: no GC object crosses.
 */
import { readFileSync } from 'node:fs';

/**
 * Throws unless `value` is a Uint8Array and, when lengths are given, of one of them. Every
 * wrapper checks its arguments with this before copying them into the core.
 */
export function checkBytes(name: string, value: unknown, ...lengths: number[]): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) {
    const got = value === null ? 'null' : typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
    throw new TypeError(`"${name}" expected Uint8Array, got type=${got}`);
  }
  if (lengths.length > 0 && !lengths.includes(value.length)) {
    throw new RangeError(`"${name}" expected ${lengths.join(' or ')} bytes, got ${value.length}`);
  }
}

/** What wasm/assembly/index.ts exports; areas add their functions here as they land. */
export interface CoreExports {
  memory: WebAssembly.Memory;
  inputPtr(): number;
  outputPtr(): number;
  ioBytes(): number;
  [name: string]: unknown;
}

export interface Core {
  exports: CoreExports;
  /** Views over the I/O regions; valid as long as memory does not grow (stub runtime: it does not). */
  input: Uint8Array;
  output: Uint8Array;
  ioBytes: number;
}

/**
 * The release build; SOCIAL_NODE_WASM may name another binary (a debug build, or a partial
 * build while one area of wasm/assembly is being developed).
 */
const WASM_URL = process.env.SOCIAL_NODE_WASM
  ? new URL(`file://${process.env.SOCIAL_NODE_WASM}`)
  : new URL('./build/release.wasm', import.meta.url);

let compiled: WebAssembly.Module | undefined;
let instance: Core | undefined;

function readAsString(memory: WebAssembly.Memory, ptr: number): string {
  if (ptr === 0) return '';
  const bytes = new Uint8Array(memory.buffer);
  const len = new Uint32Array(memory.buffer, ptr - 4, 1)[0]! >>> 1;
  return String.fromCharCode(...new Uint16Array(bytes.buffer, ptr, len));
}

/** The compiled module, shared: workers can instantiate it without recompiling. */
export function wasmModule(): WebAssembly.Module {
  if (!compiled) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(WASM_URL);
    } catch {
      throw new Error(`WASM core not built (${WASM_URL.pathname}); run npm run build:wasm`);
    }
    compiled = new WebAssembly.Module(bytes);
  }
  return compiled;
}

/** This thread's instance of the core. */
export function core(): Core {
  if (instance) return instance;
  let memory: WebAssembly.Memory | undefined;
  const inst = new WebAssembly.Instance(wasmModule(), {
    env: {
      abort(msg: number, file: number, line: number, col: number): never {
        const m = memory ? `${readAsString(memory, msg)} at ${readAsString(memory, file)}:${line}:${col}` : 'abort';
        throw new Error(`WASM core abort: ${m}`);
      },
    },
  });
  const exports = inst.exports as unknown as CoreExports;
  memory = exports.memory;
  const ioBytes = exports.ioBytes();
  instance = {
    exports,
    input: new Uint8Array(memory.buffer, exports.inputPtr(), ioBytes),
    output: new Uint8Array(memory.buffer, exports.outputPtr(), ioBytes),
    ioBytes,
  };
  return instance;
}
