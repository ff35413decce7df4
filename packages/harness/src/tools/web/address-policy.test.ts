import assert from "node:assert/strict";
import { test } from "node:test";
import { blockedReason, parseAllowList, parseIp } from "./address-policy.js";

test("parseIp reads IPv4, IPv6 with :: and embedded dotted quads, and zone ids", () => {
  assert.deepEqual(parseIp("10.1.2.3"), [10, 1, 2, 3]);
  assert.deepEqual(parseIp("::1"), [...new Array(15).fill(0), 1]);
  assert.deepEqual(parseIp("::ffff:127.0.0.1"), [...new Array(10).fill(0), 0xff, 0xff, 127, 0, 0, 1]);
  assert.deepEqual(parseIp("fe80::1%eth0")?.slice(0, 2), [0xfe, 0x80]);
  assert.equal(parseIp("example.com"), undefined);
});

test("every non-public address is refused, whatever its spelling", () => {
  const refused = [
    "127.0.0.1",
    "127.255.255.254",
    "0.0.0.0",
    "0.1.2.3",
    "10.0.0.1",
    "172.16.5.4",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1",
    "100.127.255.255",
    "169.254.169.254",
    "169.254.0.1",
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "240.0.0.1",
    "198.18.0.1",
    "::",
    "::1",
    "[::1]",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:a9fe:a9fe",
    "::ffff:10.0.0.1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::",
    "::127.0.0.1",
    "fd00:ec2::254",
    "fc00::1",
    "fe80::1",
    "fe80::1%lo",
    "ff02::1",
  ];
  for (const address of refused) assert.ok(blockedReason(address), `${address} should be refused`);
  assert.match(blockedReason("169.254.169.254")!, /metadata/);
  assert.match(blockedReason("fd00:ec2::254")!, /metadata/);
  assert.match(blockedReason("::ffff:7f00:1")!, /loopback/);
});

test("public addresses pass", () => {
  for (const address of [
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "2002:0808:0808::",
  ]) {
    assert.equal(blockedReason(address), undefined, `${address} is public`);
  }
});

test("URL parsing turns decimal, octal, hex and short IPv4 spellings into the dotted form the policy checks", () => {
  for (const spelling of [
    "http://2130706433/",
    "http://0x7f.1/",
    "http://017700000001/",
    "http://127.1/",
    "http://0x7f000001/",
    "http://0177.0.0.01/",
  ]) {
    const host = new URL(spelling).hostname;
    assert.equal(host, "127.0.0.1", spelling);
    assert.match(blockedReason(host)!, /loopback/);
  }
  assert.match(blockedReason(new URL("http://[::ffff:127.0.0.1]/").hostname)!, /loopback/);
});

test("the allow-list matches hosts, ports and CIDR ranges, and nothing else", () => {
  const list = parseAllowList(["searx.internal", "127.0.0.1:8888", "10.0.0.0/8", "[fd12::1]:9000"]);
  assert.ok(list.allows("SEARX.internal.", 80, "192.168.1.4"));
  assert.ok(list.allows("127.0.0.1", 8888, "127.0.0.1"));
  assert.ok(!list.allows("127.0.0.1", 8889, "127.0.0.1"));
  assert.ok(!list.allows("localhost", 8888, "127.0.0.1"), "a host entry names a host, not an address");
  assert.ok(list.allows("anything", 1234, "10.9.8.7"));
  assert.ok(!list.allows("anything", 1234, "11.0.0.1"));
  assert.ok(list.allows("[fd12::1]", 9000, "fd12::1"));
  assert.throws(() => parseAllowList(["10.0.0.0/99"]), /not a valid CIDR range/);
  assert.throws(() => parseAllowList(["user@host"]), /not a host/);
});
