/**
 * Where a webhook may be sent: `https` to public addresses only (docs/contract.md section 13), checked at
 * creation and again at each delivery on the addresses the name resolves to at that moment.
 */
import ipaddr from "ipaddr.js";
import { embeddedIPv4, parseAddress } from "../ip.ts";

/** Whether private targets and plain http are allowed (WEBHOOK_ALLOW_PRIVATE). */
export interface TargetPolicy {
  allowPrivate: boolean;
  /** Resolves a host name to its addresses (io/webhooks/resolve_host.ts outside tests). */
  resolve: (host: string) => Promise<string[]>;
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
 * An IPv6 address that embeds an IPv4 one is refused (ipaddr.js calls IPv4-compatible ones
 * such as ::127.0.0.1 unicast, and a stack or relay may deliver them to the embedded address),
 * unless it is NAT64's well-known prefix embedding a public IPv4 address: that one reaches the
 * embedded address through the network's own gateway (DNS64 answers it for public names on
 * IPv6-only hosts). The other forms are deprecated or relayed by third parties.
 */
export function isPublicAddress(text: string): boolean {
  const address = parseAddress(text);
  if (!address) return false;
  if (address.kind() === "ipv6") {
    const embedded = embeddedIPv4(address as ipaddr.IPv6);
    if (embedded) return embedded.form === "nat64" && embedded.ipv4.range() === "unicast";
  }
  return address.range() === "unicast";
}

/** Why a URL may not receive webhooks, or its checked target. */
export async function checkTarget(text: string, policy: TargetPolicy): Promise<Target | Error> {
  if (!URL.canParse(text)) return new Error("url must be an absolute URL");
  const url = new URL(text);
  if (url.username || url.password) return new Error("url must not carry credentials");
  const schemes = policy.allowPrivate ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) {
    // A developer trying a local receiver meets this first: it names the setting that allows it.
    return new Error(
      "url must use https (plain http and private addresses are for local development: the " +
        "service's WEBHOOK_ALLOW_PRIVATE=true setting allows them)",
    );
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  // One answer for a host that does not resolve and for one that resolves to a private address:
  // telling them apart, or naming the address, would map internal names for any caller.
  const refused = new Error("url must point to a public address");
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    const parsed = parseAddress(host);
    if (!parsed) return refused;
    addresses = [parsed.toString()];
  } else {
    try {
      addresses = await policy.resolve(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return refused;
  }
  if (!policy.allowPrivate && !addresses.every(isPublicAddress)) return refused;
  return { url, addresses };
}
