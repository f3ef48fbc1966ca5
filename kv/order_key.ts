/**
 * Order keys: ULIDs that sort newest-first indexes. The time part is the task's createdAt and
 * the random part comes from its UUID, so key order is exactly (createdAt, id), the order
 * docs/contract.md section 5 fixes, and a key can be recomputed from the record alone.
 */

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function base32(value: bigint, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/** The ULID of a record created at `createdAtMs` with UUID `id`. */
export function orderKey(createdAtMs: number, id: string): string {
  const idBits = BigInt(`0x${id.replaceAll("-", "").slice(0, 20)}`);
  return base32(BigInt(createdAtMs), 10) + base32(idBits, 16);
}

/** The creation time (ms since the epoch) an order key starts with. */
export function orderKeyTime(key: string): number {
  return base32Value(key.slice(0, 10));
}

/** The number that digits of the order keys' base 32 spell. */
export function base32Value(digits: string): number {
  let value = 0;
  for (const digit of digits) value = value * 32 + CROCKFORD.indexOf(digit);
  return value;
}

/** The least order key of a record created at `createdAtMs` or later (a key prefix). */
export function orderKeyFloor(createdAtMs: number): string {
  return base32(BigInt(createdAtMs), 10);
}

/** `value` in the order keys' base 32, `length` digits (sorting as the number does). */
export function base32Digits(value: number, length: number): string {
  return base32(BigInt(value), length);
}
