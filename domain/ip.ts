/**
 * Addresses and CIDR ranges for IP whitelists and trusted proxies, built on ipaddr.js
 * (the npm stand-in for JSR's @std/net). IPv4-mapped IPv6 addresses count as their IPv4 form.
 */
import ipaddr from "ipaddr.js";
import { TRIMMED_CLASS } from "./validation/text.ts";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** A parsed address range; a single address is a range of full prefix length. */
export interface AddressRange {
  /** Canonical text: `203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`. */
  text: string;
  address: Address;
  prefix: number;
}

function normalize(address: Address): Address {
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

// Parsed addresses by their text. Every request parses its peer address, and again to check a
// key's whitelist; ipaddr.js validates with regular expressions, a visible share of an
// authenticated GET under load (bench:http), while the same few addresses come back.
// Bounded: a flood of distinct addresses only costs a refill. Parsed values are never mutated.
const ADDRESSES_KEPT = 1000;
const parsedAddresses = new Map<string, Address | null>();

/** Parses one address, returning null when it is not a valid IPv4 or IPv6 address. */
export function parseAddress(text: string): Address | null {
  const known = parsedAddresses.get(text);
  if (known !== undefined) return known;
  const parsed = parseAddressText(text);
  if (parsedAddresses.size >= ADDRESSES_KEPT) parsedAddresses.clear();
  parsedAddresses.set(text, parsed);
  return parsed;
}

function parseAddressText(text: string): Address | null {
  const trimmed = text.trim().replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(trimmed)) return null;
  // ipaddr.js accepts legacy IPv4 forms ("1", "0x7f.1"); a whitelist wants dotted quads only.
  if (!trimmed.includes(":") && !ipaddr.IPv4.isValidFourPartDecimal(trimmed)) return null;
  return normalize(ipaddr.parse(trimmed));
}

/** True for a loopback address (127.0.0.0/8, ::1, bracketed or not): this very machine. */
export function isLoopback(text: string): boolean {
  return parseAddress(text)?.range() === "loopback";
}

// The entries a whitelist takes, as one pattern the document states and the service checks
// before parsing: dotted-quad IPv4 (no leading zeros), IPv6 in any RFC 4291 text form, bare or in
// brackets (no zone), each with an optional prefix length in range; an IPv6 address written with
// a dotted IPv4 tail takes a prefix of 96 or more (the mapped ones are IPv4 ranges), and the
// spaces the trim removes may surround the entry. Plain ranges only, no \d or \s, which some
// regex engines read as Unicode classes.
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
const H = "[0-9A-Fa-f]{1,4}";
const IPV6 = [
  `(?:${H}:){7}${H}`,
  `(?:${H}:){1,7}:`,
  `(?:${H}:){1,6}:${H}`,
  `(?:${H}:){1,5}(?::${H}){1,2}`,
  `(?:${H}:){1,4}(?::${H}){1,3}`,
  `(?:${H}:){1,3}(?::${H}){1,4}`,
  `(?:${H}:){1,2}(?::${H}){1,5}`,
  `${H}:(?::${H}){1,6}`,
  `:(?:(?::${H}){1,7}|:)`,
].join("|");
// Before the dotted tail: six groups, or at most five around a `::`.
const IPV6_DOTTED = [
  `(?:${H}:){6}`,
  `::(?:${H}:){0,5}`,
  ...[0, 1, 2, 3, 4].map((k) => `(?:${H}:){${k}}${H}::(?:${H}:){0,${4 - k}}`),
].map((head) => `${head}${IPV4}`).join("|");
const TRIMMED = `[${TRIMMED_CLASS}]*`;
const PREFIX_V4 = "(?:/(?:[12]?[0-9]|3[0-2]))?";
const PREFIX_V6 = "(?:/(?:[1-9]?[0-9]|1[01][0-9]|12[0-8]))?";
const PREFIX_DOTTED = "(?:/(?:9[6-9]|1[01][0-9]|12[0-8]))?";

/** An IP whitelist entry as the service takes it (then `parseRange` reads it). */
export const IP_RANGE_PATTERN = `^${TRIMMED}(?:${IPV4}${PREFIX_V4}` +
  `|(?:${IPV6}|\\[(?:${IPV6})\\])${PREFIX_V6}` +
  `|(?:${IPV6_DOTTED}|\\[(?:${IPV6_DOTTED})\\])${PREFIX_DOTTED})${TRIMMED}$`;

/** Parses an address or CIDR range; throws an Error naming the entry when it is neither. */
export function parseRange(text: string): AddressRange {
  const entry = text.trim();
  const slash = entry.indexOf("/");
  if (slash === -1) {
    const address = parseAddress(entry);
    if (!address) throw new Error(`"${entry}" is not an IP address or CIDR range`);
    const prefix = address.kind() === "ipv4" ? 32 : 128;
    return { text: address.toString(), address, prefix };
  }
  const address = parseAddress(entry.slice(0, slash));
  const prefixText = entry.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(prefixText)) {
    throw new Error(`"${entry}" is not an IP address or CIDR range`);
  }
  let prefix = Number(prefixText);
  const raw = ipaddr.parse(entry.slice(0, slash).replace(/^\[(.*)\]$/, "$1"));
  // A mapped range such as ::ffff:10.0.0.0/104 is the IPv4 range 10.0.0.0/8.
  if (raw.kind() === "ipv6" && address.kind() === "ipv4") prefix -= 96;
  const max = address.kind() === "ipv4" ? 32 : 128;
  if (prefix < 0 || prefix > max) throw new Error(`"${entry}" has a prefix length out of range`);
  const network = ipaddr.parseCIDR(`${address.toString()}/${prefix}`);
  const base = address.kind() === "ipv4"
    ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${prefix}`)
    : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${prefix}`);
  return { text: `${base.toString()}/${network[1]}`, address: base, prefix };
}

/** Parses a list of addresses or ranges; throws on the first bad entry. */
export function parseAddressList(entries: string[]): AddressRange[] {
  return entries.map(parseRange);
}

/** True when `address` (already parsed) lies in one of `ranges`. */
export function inRanges(address: Address, ranges: readonly AddressRange[]): boolean {
  return ranges.some((range) =>
    range.address.kind() === address.kind() && address.match(range.address, range.prefix)
  );
}

// Parsed whitelists by list identity: a cached key record brings the same array every request.
const parsedLists = new WeakMap<readonly string[], AddressRange[]>();

/** True when the textual address lies in one of the textual ranges (a stored whitelist). */
export function addressAllowed(address: string, whitelist: readonly string[]): boolean {
  const parsed = parseAddress(address);
  if (!parsed) return false;
  let ranges = parsedLists.get(whitelist);
  if (!ranges) parsedLists.set(whitelist, ranges = whitelist.map(parseRange));
  return inRanges(parsed, ranges);
}

/**
 * The group an anonymous client is limited as: an IPv4 address by itself, an IPv6 address by
 * its /64, which one host or home network usually holds whole (so rotating addresses inside it
 * does not buy a fresh budget). Unparseable text stands for itself.
 */
export function addressGroup(address: string): string {
  const known = groups.get(address);
  if (known !== undefined) return known;
  const group = groupOf(address);
  if (groups.size >= ADDRESSES_KEPT) groups.clear();
  groups.set(address, group);
  return group;
}

// Groups by address text, kept as parsed addresses are: an anonymous request asks twice.
const groups = new Map<string, string>();

function groupOf(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed) return address;
  if (parsed.kind() === "ipv4") return parsed.toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`);
  return `${network.toString()}/64`;
}

/** How an IPv6 address carries an IPv4 one (IPv4-mapped addresses are parsed as IPv4 already). */
export type EmbeddingForm = "compatible" | "translated" | "nat64" | "6to4" | "teredo" | "isatap";

/**
 * The IPv4 address an IPv6 address embeds, and in which form: IPv4-compatible (::/96),
 * SIIT-translated (::ffff:0:0:0/96), NAT64's well-known prefix (64:ff9b::/96), 6to4
 * (2002::/16), Teredo (2001::/32, the client's address stored inverted) and ISATAP (interface id
 * 0:5efe or 200:5efe). Null when it embeds none (:: and ::1 included).
 */
export function embeddedIPv4(
  address: ipaddr.IPv6,
): { form: EmbeddingForm; ipv4: ipaddr.IPv4 } | null {
  const p = address.parts;
  const v4 = (high: number, low: number, invert = 0) =>
    new ipaddr.IPv4([
      ((high >> 8) ^ invert) & 0xff,
      (high ^ invert) & 0xff,
      ((low >> 8) ^ invert) & 0xff,
      (low ^ invert) & 0xff,
    ]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zeros(0, 6) && (p[6] !== 0 || p[7] > 1)) return { form: "compatible", ipv4: v4(p[6], p[7]) };
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) {
    return { form: "translated", ipv4: v4(p[6], p[7]) };
  }
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) {
    return { form: "nat64", ipv4: v4(p[6], p[7]) };
  }
  if (p[0] === 0x2002) return { form: "6to4", ipv4: v4(p[1], p[2]) };
  if (p[0] === 0x2001 && p[1] === 0) return { form: "teredo", ipv4: v4(p[6], p[7], 0xff) };
  if ((p[4] & 0xfdff) === 0 && p[5] === 0x5efe) return { form: "isatap", ipv4: v4(p[6], p[7]) };
  return null;
}
