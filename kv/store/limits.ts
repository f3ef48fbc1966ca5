/**
 * The atomic limits of the strictest Deno KV backend, and a Deno.Kv handle that refuses any
 * atomic over them before it reaches the store. Local SQLite allows 100 checks where a denokv
 * server allows 10, so code tested on a file alone could fail only once deployed; the tests (and
 * test processes, through KV_CHECK_LIMITS) run every atomic through this guard.
 */
import { serialize } from "node:v8";

/** denokv's proto/limits.rs and Deno's ext/kv/config.rs, whichever is lower. */
export const KV_LIMITS = {
  checks: 10,
  mutations: 1000,
  /** Keys and values of every check, mutation and enqueue together. */
  totalBytes: 800 * 1024,
  /** Keys of every check and mutation together. */
  totalKeyBytes: 80 * 1024,
  valueBytes: 64 * 1024,
  keyBytes: 2048,
} as const;

/** Keys one `getMany` reads at most (the same on every backend). */
export const GETMANY_MAX = 10;

/** Values whose sizes need not be added up: 11 × 64 KiB and 21 keys of 2 KiB stay under 800 KiB. */
const SMALL_ATOMIC = 11;

/** An atomic that breaks a limit; thrown by `commit()` in place of the store's own refusal. */
export class KvLimitError extends Error {
  override name = "KvLimitError";
}

const encoder = new TextEncoder();

/** Bytes of one key part in KV's ordered key encoding: a type byte, the escaped body, a close. */
function keyPartBytes(part: Deno.KvKeyPart): number {
  if (typeof part === "string" || part instanceof Uint8Array) {
    const bytes = typeof part === "string" ? encoder.encode(part) : part;
    let zeros = 0;
    for (const byte of bytes) if (byte === 0) zeros++;
    return 2 + bytes.byteLength + zeros;
  }
  if (typeof part === "bigint") {
    const magnitude = part < 0n ? -part : part;
    const length = magnitude === 0n ? 0 : Math.ceil(magnitude.toString(16).length / 2);
    return length > 8 ? 2 + length : 1 + length;
  }
  if (typeof part === "number") return 9;
  return 1;
}

/** Bytes of a key as the store encodes it. */
export function encodedKeyBytes(key: Deno.KvKey): number {
  return key.reduce<number>((sum, part) => sum + keyPartBytes(part), 0);
}

/** Bytes of a value as the store encodes it: raw bytes, 8 for a KvU64, else V8 serialization. */
export function encodedValueBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Deno.KvU64) return 8;
  return serialize(value).byteLength;
}

/** What one atomic holds, measured as the limits count it. */
export interface AtomicSize {
  checks: number;
  mutations: number;
  totalBytes: number;
  totalKeyBytes: number;
  /** The keys its mutations write, in order. */
  written: Deno.KvKey[];
  /** The keys it checks. */
  checked: Deno.KvKey[];
}

interface Tally {
  checks: number;
  mutations: number;
  totalBytes: number;
  totalKeyBytes: number;
  problems: string[];
}

function addKey(tally: Tally, key: Deno.KvKey) {
  const bytes = encodedKeyBytes(key);
  if (bytes > KV_LIMITS.keyBytes) tally.problems.push(`a ${bytes}-byte key ${keyText(key)}`);
  tally.totalBytes += bytes;
  tally.totalKeyBytes += bytes;
}

function addValue(tally: Tally, key: Deno.KvKey, value: unknown) {
  const bytes = encodedValueBytes(value);
  if (bytes > KV_LIMITS.valueBytes) tally.problems.push(`a ${bytes}-byte value at ${keyText(key)}`);
  tally.totalBytes += bytes;
}

function keyText(key: Deno.KvKey): string {
  const text = JSON.stringify(key, (_, v) => typeof v === "bigint" ? `${v}n` : v);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** What makes an atomic too big for the strictest backend; empty when it fits. */
function verdict(tally: Tally, firstKeys: Deno.KvKey[]): string[] {
  const problems = [...tally.problems];
  const where = firstKeys.slice(0, 3).map(keyText).join(", ");
  if (tally.checks > KV_LIMITS.checks) {
    problems.push(`${tally.checks} checks (denokv allows ${KV_LIMITS.checks})`);
  }
  if (tally.mutations > KV_LIMITS.mutations) {
    problems.push(`${tally.mutations} mutations and enqueues (at most ${KV_LIMITS.mutations})`);
  }
  if (tally.totalBytes > KV_LIMITS.totalBytes) {
    problems.push(`${tally.totalBytes} bytes in all (at most ${KV_LIMITS.totalBytes})`);
  }
  if (tally.totalKeyBytes > KV_LIMITS.totalKeyBytes) {
    problems.push(`${tally.totalKeyBytes} bytes of keys (at most ${KV_LIMITS.totalKeyBytes})`);
  }
  return problems.length ? [...problems, `first keys: ${where}`] : [];
}

/**
 * Wraps `inner` so that every atomic committed through it is measured against `KV_LIMITS` and
 * refused with a `KvLimitError` naming what broke them. Everything else passes through.
 * `observe` (the benches) is told the size of every atomic committed, its values all counted.
 */
export function limitGuard(inner: Deno.Kv, observe?: (size: AtomicSize) => void): Deno.Kv {
  const atomic = (): Deno.AtomicOperation => {
    const op = inner.atomic();
    const tally: Tally = { checks: 0, mutations: 0, totalBytes: 0, totalKeyBytes: 0, problems: [] };
    const keys: Deno.KvKey[] = [];
    const written: Deno.KvKey[] = [];
    const checked: Deno.KvKey[] = [];
    const values: { key: Deno.KvKey; value: unknown }[] = [];
    const mutate = (key: Deno.KvKey, value?: unknown) => {
      tally.mutations++;
      keys.push(key);
      written.push(key);
      addKey(tally, key);
      if (value !== undefined) values.push({ key, value });
    };
    const proxy: Deno.AtomicOperation = new Proxy(op, {
      get(target, name) {
        const original = Reflect.get(target, name, target);
        if (typeof original !== "function") return original;
        return (...args: unknown[]) => {
          switch (name) {
            case "check":
              for (const check of args as Deno.AtomicCheck[]) {
                tally.checks++;
                keys.push(check.key);
                checked.push(check.key);
                addKey(tally, check.key);
              }
              break;
            case "set":
            case "sum":
            case "min":
            case "max":
              mutate(args[0] as Deno.KvKey, args[1]);
              break;
            case "delete":
              mutate(args[0] as Deno.KvKey);
              break;
            case "mutate":
              for (const m of args as Deno.KvMutation[]) {
                mutate(m.key, "value" in m ? m.value : undefined);
              }
              break;
            case "enqueue":
              // The service writes jobs, never queue messages; one still counts as a mutation.
              tally.mutations++;
              values.push({ key: ["enqueue"], value: args[0] });
              break;
            case "commit": {
              // Values are sized only where their total could matter: the store itself refuses
              // a value over 64 KiB, and this many of them cannot reach 800 KiB with their keys.
              if (values.length > SMALL_ATOMIC || observe) {
                for (const { key, value } of values) addValue(tally, key, value);
              }
              const problems = verdict(tally, keys);
              if (problems.length) {
                return Promise.reject(
                  new KvLimitError(`atomic over the KV limits: ${problems.join("; ")}`),
                );
              }
              break;
            }
          }
          const result = (original as (...a: unknown[]) => unknown).apply(target, args);
          if (name === "commit" && observe) {
            const { problems: _, ...size } = tally;
            return (result as Promise<Deno.KvCommitResult | Deno.KvCommitError>).then((r) => {
              if (r.ok) observe({ ...size, written, checked });
              return r;
            });
          }
          return result === target ? proxy : result;
        };
      },
    });
    return proxy;
  };
  return new Proxy(inner, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (typeof original !== "function") return original;
      if (name === "atomic") return atomic;
      return original.bind(target);
    },
  });
}
