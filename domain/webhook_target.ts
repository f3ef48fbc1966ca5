/**
 * Where a webhook may be sent: `https` to public addresses only (API.md section 13), checked at
 * creation and again at each delivery on the addresses the name resolves to at that moment.
 */
import ipaddr from "ipaddr.js";
import { parseAddress } from "./ip.ts";

/** Whether private targets and plain http are allowed (WEBHOOK_ALLOW_PRIVATE). */
export interface TargetPolicy {
  allowPrivate: boolean;
  /** Resolves a host name to its addresses; Deno.resolveDns by default. */
  resolve?: (host: string) => Promise<string[]>;
}

/** A checked target: the URL, and the addresses to connect to (each one checked). */
export interface Target {
  url: URL;
  addresses: string[];
}

/**
 * Only global unicast addresses are public. ipaddr.js names every special range (loopback,
 * private, linkLocal with 169.254.169.254, carrierGradeNat, uniqueLocal with fd00:ec2::254,
 * reserved, multicast, 6to4, teredo, NAT64...); IPv4-mapped IPv6 counts as its IPv4 address.
 */
export function isPublicAddress(text: string): boolean {
  const address = parseAddress(text);
  if (!address) return false;
  return address.range() === "unicast";
}

/** A's and AAAA's of a host; a name that resolves to nothing is unreachable. */
export async function resolveHost(host: string): Promise<string[]> {
  const answers = await Promise.allSettled([
    Deno.resolveDns(host, "A"),
    Deno.resolveDns(host, "AAAA"),
  ]);
  return answers.flatMap((a) => a.status === "fulfilled" ? a.value : []);
}

/** Why a URL may not receive webhooks, or its checked target. */
export async function checkTarget(text: string, policy: TargetPolicy): Promise<Target | Error> {
  if (!URL.canParse(text)) return new Error("url must be an absolute URL");
  const url = new URL(text);
  if (url.username || url.password) return new Error("url must not carry credentials");
  const schemes = policy.allowPrivate ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) return new Error("url must use https");
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    const parsed = parseAddress(host);
    if (!parsed) return new Error(`${host} is not an address webhooks may be sent to`);
    addresses = [parsed.toString()];
  } else {
    try {
      addresses = await (policy.resolve ?? resolveHost)(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return new Error(`${host} does not resolve to an address`);
  }
  if (!policy.allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a));
    if (refused) {
      return new Error(`${host} resolves to ${refused}, a private or reserved address`);
    }
  }
  return { url, addresses };
}
