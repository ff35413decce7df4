/**
 * The one way web tools reach the network: an HTTP(S) client that refuses non-public addresses.
 *
 * Checking a URL's host and then calling `fetch` is not enough: the name can resolve to a public
 * address for the check and to 127.0.0.1 for the connection (DNS rebinding), and a public page can
 * redirect to `http://169.254.169.254/`. So each hop resolves the host once, checks every address
 * (`address-policy.ts`), and connects to the checked address through a `lookup` that returns only it;
 * redirects are followed by hand, each new location checked the same way, up to a cap. Bodies are read
 * as a stream and cut at a byte cap; one deadline covers the whole exchange, redirects included.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { type AllowList, blockedReason, normaliseHost } from "./address-policy.js";

/** Resolves a hostname to its addresses (the system resolver by default; tests pass their own). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** Options of {@link safeFetch}. */
export interface SafeFetchOptions {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** One deadline for the whole exchange, redirects and body included. */
  timeoutMs: number;
  /** Body bytes kept; the read stops there and the response says it was cut. */
  maxBytes: number;
  /** Redirects followed before giving up. */
  maxRedirects: number;
  allowList: AllowList;
  resolve?: Resolver;
  signal?: AbortSignal;
}

/** A response whose body was read up to the cap or the deadline. */
export interface SafeResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Why the body is incomplete: the byte cap or the deadline. */
  truncated?: "size" | "time";
}

/** What went wrong, for a tool to turn into one line: refused by policy, too slow, too many redirects, or the network. */
export type WebErrorKind = "refused" | "timeout" | "redirects" | "network";

/** A request that did not produce a response; `message` is written for the model and the user. */
export class WebRequestError extends Error {
  constructor(
    readonly kind: WebErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "WebRequestError";
  }
}

const systemResolver: Resolver = async (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The address a hop may connect to, after the policy check. */
interface CheckedTarget {
  url: URL;
  host: string;
  port: number;
  address: string;
  family: number;
}

/**
 * Resolves `url`'s host and checks every address against the policy; throws a `refused` error naming
 * the first address that is not allowed.
 */
export async function checkTarget(
  url: URL,
  allowList: AllowList,
  resolve: Resolver = systemResolver,
): Promise<CheckedTarget> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new WebRequestError("refused", `Refused ${url.href}: only http and https URLs can be fetched.`);
  }
  const host = normaliseHost(url.hostname);
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw new WebRequestError(
        "network",
        `Could not resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? String(error)}. Check the URL.`,
      );
    }
    if (addresses.length === 0)
      throw new WebRequestError("network", `Could not resolve ${host}: no addresses. Check the URL.`);
  }
  for (const { address } of addresses) {
    const reason = blockedReason(address);
    if (reason && !allowList.allows(host, port, address)) {
      const via = address === host ? host : `${host} (${address})`;
      throw new WebRequestError(
        "refused",
        `Refused ${url.origin}: ${via} is a ${reason} address, and web tools only reach public addresses. If you mean to reach it, add it to web.allow_hosts in config.yaml.`,
      );
    }
  }
  const first = addresses[0]!;
  return { url, host, port, address: first.address, family: first.family };
}

/**
 * Fetches `url` under the address policy, following redirects by hand.
 *
 * @example
 * const response = await safeFetch("https://example.com/", { timeoutMs: 10_000, maxBytes: 2e6, maxRedirects: 5, allowList: parseAllowList([]) });
 * response.body.toString("utf8");
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const deadline = Date.now() + options.timeoutMs;
  if (options.signal?.aborted) throw new WebRequestError("timeout", "The request was cancelled.");
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new WebRequestError("refused", `"${url}" is not a valid URL; give an absolute http(s) URL.`);
  }
  let method = options.method ?? "GET";
  let body = options.body;
  let headers = options.headers ?? {};
  for (let hop = 0; ; hop++) {
    const target = await withDeadline(checkTarget(current, options.allowList, options.resolve), deadline, current);
    const response = await request(target, {
      method,
      headers,
      body,
      deadline,
      maxBytes: options.maxBytes,
      signal: options.signal,
    });
    const location = response.status >= 300 && response.status < 400 ? response.headers.location : undefined;
    if (!location) return response;
    if (hop >= options.maxRedirects) {
      throw new WebRequestError(
        "redirects",
        `Stopped at ${current.href}: more than ${options.maxRedirects} redirects.`,
      );
    }
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new WebRequestError("network", `${current.href} redirected to an invalid location "${location}".`);
    }
    // Credentials and custom headers are meant for the origin they were given to, not wherever it redirects.
    if (next.origin !== current.origin) headers = pickHeaders(headers, ["user-agent", "accept"]);
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
    current = next;
  }
}

function pickHeaders(headers: Record<string, string>, keep: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => keep.includes(name.toLowerCase())));
}

async function withDeadline<T>(promise: Promise<T>, deadline: number, url: URL): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(url)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function timeoutError(url: URL): WebRequestError {
  return new WebRequestError("timeout", `${url.origin} did not answer in time.`);
}

interface HopOptions {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  deadline: number;
  maxBytes: number;
  signal?: AbortSignal;
}

/** One HTTP exchange with the checked address; redirects are returned, not followed. */
function request(target: CheckedTarget, options: HopOptions): Promise<SafeResponse> {
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === "https:" ? https : http;
  return new Promise<SafeResponse>((resolve, reject) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (truncated?: "size" | "time") => {
      if (settled) return;
      settled = true;
      cleanup();
      req.destroy();
      resolve({
        url: target.url.href,
        status: response!.statusCode ?? 0,
        headers: response!.headers,
        body: Buffer.concat(chunks),
        truncated,
      });
    };
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      req.destroy();
      reject(error);
    };
    const req = client.request(
      {
        protocol: target.url.protocol,
        hostname: target.host,
        port: target.port,
        path: `${target.url.pathname}${target.url.search}`,
        method: options.method,
        headers: {
          "user-agent": "DeerFlow.ts web tools",
          ...options.headers,
          ...(options.body !== undefined ? { "content-length": Buffer.byteLength(options.body) } : {}),
        },
        agent: false,
        lookup: pinned,
        ...(target.url.protocol === "https:" && !isIP(target.host) ? { servername: target.host } : {}),
      },
      (res) => {
        response = res;
        if (res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400 && res.headers.location)
          return finish();
        res.on("data", (chunk: Buffer) => {
          const room = options.maxBytes - size;
          chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
          size += Math.min(chunk.length, room);
          if (size >= options.maxBytes) finish("size");
        });
        res.on("end", () => finish());
        res.on("error", (error) =>
          fail(new WebRequestError("network", `${target.url.origin} broke off the response: ${error.message}`)),
        );
      },
    );
    const timer = setTimeout(
      () => (response ? finish("time") : fail(timeoutError(target.url))),
      Math.max(0, options.deadline - Date.now()),
    );
    const onAbort = () => fail(new WebRequestError("timeout", "The request was cancelled."));
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    req.on("error", (error: NodeJS.ErrnoException) =>
      fail(new WebRequestError("network", `Could not reach ${target.url.origin}: ${error.code ?? error.message}.`)),
    );
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
