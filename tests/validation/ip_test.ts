import assert from "node:assert/strict";
import { addressAllowed, inRanges, parseAddress, parseRange } from "../../domain/ip.ts";

Deno.test("domain/ip parses addresses and CIDR ranges for whitelists and proxies", async (t) => {
  await t.step("IPv4 and IPv6 addresses parse; bracketed IPv6 too", () => {
    assert.equal(parseAddress("203.0.113.7")?.toString(), "203.0.113.7");
    assert.equal(parseAddress("2001:db8::1")?.toString(), "2001:db8::1");
    assert.equal(parseAddress("[2001:db8::1]")?.toString(), "2001:db8::1");
    assert.equal(parseAddress(" 10.1.2.3 ")?.toString(), "10.1.2.3");
  });

  await t.step("an IPv4-mapped IPv6 address is its IPv4 address", () => {
    const mapped = parseAddress("::ffff:192.0.2.5");
    assert.equal(mapped?.kind(), "ipv4");
    assert.equal(mapped?.toString(), "192.0.2.5");
  });

  await t.step("legacy IPv4 forms and non-addresses are refused", () => {
    for (const text of ["1", "0x7f.1", "127.1", "256.1.1.1", "example.com", "", "1.2.3.4.5"]) {
      assert.equal(parseAddress(text), null, text);
    }
  });

  await t.step("a range is normalized to its network address", () => {
    assert.equal(parseRange("10.1.2.3/8").text, "10.0.0.0/8");
    assert.equal(parseRange("2001:db8:1::5/32").text, "2001:db8::/32");
    assert.equal(parseRange("203.0.113.7").text, "203.0.113.7");
    assert.equal(parseRange("203.0.113.7").prefix, 32);
    assert.equal(parseRange("::1").prefix, 128);
  });

  await t.step("an IPv4-mapped range is the IPv4 range", () => {
    const range = parseRange("::ffff:10.0.0.0/104");
    assert.equal(range.text, "10.0.0.0/8");
    assert.equal(range.address.kind(), "ipv4");
  });

  await t.step("bad ranges throw an error naming the entry", () => {
    for (const text of ["10.0.0.0/33", "2001:db8::/129", "10.0.0.0/x", "nope/8", "10.0.0.0/"]) {
      assert.throws(() => parseRange(text), (e: Error) => e.message.includes(text), text);
    }
  });

  await t.step("membership: an address inside a range matches, outside does not", () => {
    const ranges = ["10.0.0.0/8", "2001:db8::/32", "198.51.100.9"].map(parseRange);
    assert.equal(inRanges(parseAddress("10.200.1.1")!, ranges), true);
    assert.equal(inRanges(parseAddress("11.0.0.1")!, ranges), false);
    assert.equal(inRanges(parseAddress("2001:db8:ffff::1")!, ranges), true);
    assert.equal(inRanges(parseAddress("2001:db9::1")!, ranges), false);
    assert.equal(inRanges(parseAddress("198.51.100.9")!, ranges), true);
    assert.equal(inRanges(parseAddress("198.51.100.10")!, ranges), false);
  });

  await t.step("IPv4 and IPv6 never match each other's ranges", () => {
    assert.equal(addressAllowed("::1", ["0.0.0.0/0"]), false);
    assert.equal(addressAllowed("1.2.3.4", ["::/0"]), false);
  });

  await t.step("an IPv4-mapped client matches an IPv4 whitelist, and the reverse", () => {
    assert.equal(addressAllowed("::ffff:10.1.1.1", ["10.0.0.0/8"]), true);
    assert.equal(addressAllowed("10.1.1.1", ["::ffff:10.0.0.0/104"]), true);
    assert.equal(addressAllowed("::ffff:11.1.1.1", ["10.0.0.0/8"]), false);
  });

  await t.step("an unparseable client address is never allowed", () => {
    assert.equal(addressAllowed("", ["0.0.0.0/0"]), false);
    assert.equal(addressAllowed("unknown", ["0.0.0.0/0"]), false);
  });
});
