/**
 * The store handle behind a request's view of it (the key guard's), for what is kept once per
 * handle, such as explore's plan memory: a view names the handle it wraps.
 */

/** The property a view answers with the handle it wraps. */
export const STORE_HANDLE = Symbol("the store handle a view wraps");

/** The handle behind `kv`: itself, unless `kv` is a view that names the one it wraps. */
export function storeHandle(kv: Deno.Kv): Deno.Kv {
  return (kv as { [STORE_HANDLE]?: Deno.Kv })[STORE_HANDLE] ?? kv;
}

/**
 * What is kept once per store handle under `slot`, made by `make` the first time: every view of the
 * handle (a request's key guard, a grant-waiting view) finds the same one.
 */
export function keptOnHandle<T>(kv: Deno.Kv, slot: symbol, make: () => T): T {
  const store = storeHandle(kv) as Deno.Kv & Record<symbol, T | undefined>;
  return store[slot] ??= make();
}
