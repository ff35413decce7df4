/**
 * Which network addresses the web tools may connect to.
 *
 * A model that can make the harness fetch any URL can be steered (by a user or by a page it read) into
 * fetching `http://169.254.169.254/` (cloud credentials), `http://127.0.0.1:6379/` (a local database) or a
 * host on the office network. So every address a web tool connects to must be a public unicast address,
 * unless the user listed it in `web.allow_hosts`. Addresses are compared as bytes, never as text, so no
 * spelling (`0x7f.1`, `::ffff:7f00:1`, `2130706433`) can slip past; the WHATWG URL parser has already
 * normalised IPv4 spellings by the time a hostname gets here.
 */
import { isIP } from "node:net";

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
type Bytes = readonly number[];

interface Cidr {
  bytes: Bytes;
  bits: number;
}

/** Parses an IPv4 or IPv6 literal (no brackets, no zone) into bytes; undefined when it is not one. */
export function parseIp(literal: string): Bytes | undefined {
  const text = literal.replace(/%.*$/, "");
  const family = isIP(text);
  if (family === 4) return text.split(".").map(Number);
  if (family !== 6) return undefined;
  // A trailing dotted quad (`::ffff:127.0.0.1`) becomes two hex words, then the usual `::` expansion.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  const hex = dotted
    ? `${text.slice(0, dotted.index)}${((Number(dotted[1]) << 8) | Number(dotted[2])).toString(16)}:${((Number(dotted[3]) << 8) | Number(dotted[4])).toString(16)}`
    : text;
  const words = (part: string) => (part === "" ? [] : part.split(":").map((word) => parseInt(word, 16)));
  const [left, right] = hex.split("::") as [string, string | undefined];
  const all =
    right === undefined
      ? words(left)
      : [...words(left), ...new Array(8 - words(left).length - words(right).length).fill(0), ...words(right)];
  return all.flatMap((word) => [word >> 8, word & 0xff]);
}

function cidr(text: string): Cidr {
  const [ip, bits] = text.split("/");
  const bytes = parseIp(ip!)!;
  return { bytes, bits: bits === undefined ? bytes.length * 8 : Number(bits) };
}

function inCidr(address: Bytes, range: Cidr): boolean {
  if (address.length !== range.bytes.length) return false;
  for (let bit = 0; bit < range.bits; bit++) {
    const mask = 0x80 >> (bit % 8);
    if ((address[bit >> 3]! & mask) !== (range.bytes[bit >> 3]! & mask)) return false;
  }
  return true;
}

/** IPv4 ranges that are not the public internet (RFC 6890 and friends), with why each is refused. */
const BLOCKED_V4: readonly [Cidr, string][] = [
  ["0.0.0.0/8", '"this network" (0.0.0.0 reaches the local machine)'],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "carrier-grade NAT (shared)"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local (includes the cloud metadata service 169.254.169.254)"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation"],
  ["192.88.99.0/24", "6to4 relay"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved (includes broadcast 255.255.255.255)"],
].map(([range, why]) => [cidr(range!), why!] as [Cidr, string]);

/** IPv6 ranges refused outright; ranges that embed an IPv4 address are handled in `embeddedV4`. */
const BLOCKED_V6: readonly [Cidr, string][] = [
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["::/96", "IPv4-compatible (deprecated)"],
  ["100::/64", "discard"],
  ["2001::/32", "Teredo"],
  ["2001:db8::/32", "documentation"],
  ["fc00::/7", "unique local (includes the AWS metadata address fd00:ec2::254)"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local (deprecated)"],
  ["ff00::/8", "multicast"],
].map(([range, why]) => [cidr(range!), why!] as [Cidr, string]);

const MAPPED = cidr("::ffff:0:0/96");
const NAT64 = cidr("64:ff9b::/96");
const SIX_TO_FOUR = cidr("2002::/16");

/** The IPv4 address an IPv6 address stands for (mapped, NAT64, 6to4), if any. */
function embeddedV4(bytes: Bytes): Bytes | undefined {
  if (inCidr(bytes, MAPPED) || inCidr(bytes, NAT64)) return bytes.slice(12);
  if (inCidr(bytes, SIX_TO_FOUR)) return bytes.slice(2, 6);
  return undefined;
}

/**
 * Why an address is not a public unicast address, or undefined when it is one.
 *
 * @example
 * blockedReason("169.254.169.254"); // "link-local (includes the cloud metadata service 169.254.169.254)"
 * blockedReason("::ffff:127.0.0.1"); // "loopback"
 * blockedReason("93.184.216.34");   // undefined
 */
export function blockedReason(address: string): string | undefined {
  const bytes = parseIp(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  if (!bytes) return "not an IP address";
  const v4 = bytes.length === 4 ? bytes : embeddedV4(bytes);
  if (v4) return BLOCKED_V4.find(([range]) => inCidr(v4, range))?.[1];
  return BLOCKED_V6.find(([range]) => inCidr(bytes, range))?.[1];
}

/** One `web.allow_hosts` entry: a hostname or IP (optionally `:port`), or a CIDR range. */
interface AllowEntry {
  host?: string;
  range?: Cidr;
  port?: number;
}

/** The user's explicit exceptions: internal hosts a web tool may reach anyway. */
export interface AllowList {
  /** Whether `address`, reached as `hostname:port`, is allowed although it is not public. */
  allows(hostname: string, port: number, address: string): boolean;
}

/**
 * Parses `web.allow_hosts`. Entries: `searx.internal`, `searx.internal:8080`, `10.0.0.5`,
 * `10.0.0.5:8080`, `[fd12::1]:8080`, `10.0.0.0/8`, `fd12::/16`. Throws a one-line message on a bad entry.
 *
 * @example
 * parseAllowList(["127.0.0.1:8888"]).allows("127.0.0.1", 8888, "127.0.0.1"); // true
 * parseAllowList(["127.0.0.1:8888"]).allows("127.0.0.1", 22, "127.0.0.1");   // false
 */
export function parseAllowList(entries: readonly string[]): AllowList {
  const parsed = entries.map(parseAllowEntry);
  return {
    allows(hostname, port, address) {
      const host = normaliseHost(hostname);
      const bytes = parseIp(address);
      return parsed.some((entry) => {
        if (entry.port !== undefined && entry.port !== port) return false;
        if (entry.range) return bytes !== undefined && inCidr(bytes, entry.range);
        return entry.host === host;
      });
    },
  };
}

function parseAllowEntry(entry: string): AllowEntry {
  const text = entry.trim().toLowerCase();
  if (text.includes("/")) {
    const [ip, bits] = text.split("/");
    const bytes = parseIp(ip!);
    const prefix = Number(bits);
    if (!bytes || !Number.isInteger(prefix) || prefix < 0 || prefix > bytes.length * 8) {
      throw new Error(
        `web.allow_hosts entry "${entry}" is not a valid CIDR range; write it like 10.0.0.0/8 or fd12::/16.`,
      );
    }
    return { range: { bytes, bits: prefix } };
  }
  let url: URL;
  try {
    url = new URL(`http://${text}`);
  } catch {
    throw new Error(
      `web.allow_hosts entry "${entry}" is not a host; write a hostname or IP, optionally with :port, or a CIDR range.`,
    );
  }
  if (url.pathname !== "/" || url.username || url.search) {
    throw new Error(
      `web.allow_hosts entry "${entry}" is not a host; write a hostname or IP, optionally with :port, or a CIDR range.`,
    );
  }
  return { host: normaliseHost(url.hostname), port: url.port === "" ? undefined : Number(url.port) };
}

/** Lower-case, no brackets, no trailing dot: the form hostnames are compared in. */
export function normaliseHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}
