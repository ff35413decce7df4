import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, test } from "node:test";
import tls from "node:tls";
import { type Canary, startCanary, startWebStandIn, type WebStandIn } from "../../testing/web-stand-in.js";
import { createTempHome } from "../../testing/temp-home.js";
import { parseAllowList } from "./address-policy.js";
import { safeFetch, type SafeFetchOptions, WebRequestError } from "./safe-fetch.js";

let site: WebStandIn;
let canary: Canary;
let options: SafeFetchOptions;

before(async () => {
  site = await startWebStandIn();
  canary = await startCanary();
  // Only the stand-in's own port is allowed; the canary, on the same loopback address, is not.
  options = {
    timeoutMs: 3000,
    maxBytes: 64 * 1024,
    maxRedirects: 3,
    allowList: parseAllowList([`127.0.0.1:${site.port}`]),
  };
});
after(async () => {
  await site.close();
  await canary.close();
});

async function refusal(url: string, extra: Partial<SafeFetchOptions> = {}): Promise<WebRequestError> {
  try {
    await safeFetch(url, { ...options, ...extra });
  } catch (error) {
    assert.ok(error instanceof WebRequestError, `${url}: ${String(error)}`);
    return error;
  }
  assert.fail(`${url} was fetched but should have been refused`);
}

test("the allow-listed stand-in is reachable and answers with its body", async () => {
  const response = await safeFetch(`${site.base}/json`, options);
  assert.equal(response.status, 200);
  assert.deepEqual(JSON.parse(response.body.toString("utf8")), { ok: true, items: [1, 2, 3] });
  assert.equal(response.truncated, undefined);
});

test("hostile URLs are refused before any connection is made", async () => {
  const c = canary.port;
  const hostile = [
    `http://127.0.0.1:${c}/`,
    `http://localhost:${c}/`,
    `http://LOCALHOST.:${c}/`,
    `http://2130706433:${c}/`,
    `http://0x7f.1:${c}/`,
    `http://0x7f000001:${c}/`,
    `http://017700000001:${c}/`,
    `http://0177.0.0.1:${c}/`,
    `http://127.1:${c}/`,
    `http://0:${c}/`,
    `http://0.0.0.0:${c}/`,
    `http://[::]:${c}/`,
    `http://[::1]:${c}/`,
    `http://[::ffff:127.0.0.1]:${c}/`,
    `http://[::ffff:7f00:1]:${c}/`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${c}/`,
    `https://127.0.0.1:${c}/`,
    `ftp://127.0.0.1:${c}/`,
    `gopher://127.0.0.1:${c}/`,
    "file:///etc/passwd",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://100.64.0.1/",
    "http://10.0.0.1/",
    "http://192.168.0.1/",
    "http://[fe80::1]/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    // Redirects from the allowed stand-in, including chains.
    `${site.base}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${c}/`)}`,
    `${site.base}/redirect?to=${encodeURIComponent(`http://localhost:${c}/admin`)}`,
    `${site.base}/redirect?to=${encodeURIComponent(`http://[::1]:${c}/`)}`,
    `${site.base}/redirect?to=${encodeURIComponent("http://169.254.169.254/latest/meta-data/iam/")}`,
    `${site.base}/redirect?to=${encodeURIComponent("http://[fd00:ec2::254]/")}`,
    `${site.base}/redirect?to=${encodeURIComponent("file:///etc/passwd")}`,
    `${site.base}/redirect?to=${encodeURIComponent(`${site.base}/redirect?to=${encodeURIComponent(`http://2130706433:${c}/`)}`)}`,
  ];
  for (const url of hostile) {
    const error = await refusal(url);
    assert.equal(error.kind, "refused", `${url}: ${error.message}`);
  }
  assert.equal(canary.connections(), 0, "no hostile URL may reach the canary");
});

test("a refusal says what was refused and how to allow it on purpose", async () => {
  const error = await refusal("http://169.254.169.254/latest/meta-data/");
  assert.match(error.message, /169\.254\.169\.254 is a link-local .*metadata.*web\.allow_hosts/);
  assert.match((await refusal("ftp://example.com/")).message, /only http and https/);
});

test("a name is resolved once, every address is checked, and the connection goes to the checked address", async () => {
  let lookups = 0;
  const resolve = async () => {
    lookups += 1;
    return [{ address: "127.0.0.1", family: 4 }];
  };
  const allowList = parseAllowList([`stand-in.invalid:${site.port}`]);
  // The system resolver cannot resolve .invalid, so an answer proves the pinned address was used.
  const response = await safeFetch(`http://stand-in.invalid:${site.port}/text`, { ...options, allowList, resolve });
  assert.equal(response.body.toString("utf8"), "plain words\nsecond line");
  assert.equal(lookups, 1);

  const rebinding = async () => [
    { address: "93.184.216.34", family: 4 },
    { address: "127.0.0.1", family: 4 },
  ];
  const error = await refusal(`http://rebind.example:${canary.port}/`, { resolve: rebinding });
  assert.match(error.message, /rebind\.example \(127\.0\.0\.1\) is a loopback address/);
  assert.equal(canary.connections(), 0);
});

test("bodies are cut at the byte cap and at the deadline, and say so", async () => {
  const huge = await safeFetch(`${site.base}/huge`, options);
  assert.equal(huge.body.length, 64 * 1024);
  assert.equal(huge.truncated, "size");

  const slow = await safeFetch(`${site.base}/slow`, { ...options, timeoutMs: 300 });
  assert.equal(slow.body.toString("utf8"), "the first words arrived, ");
  assert.equal(slow.truncated, "time");

  const stalled = await refusal(`${site.base}/stall`, { timeoutMs: 300 });
  assert.equal(stalled.kind, "timeout");
});

test("redirects are followed up to the cap", async () => {
  const followed = await safeFetch(`${site.base}/redirect?to=/text`, options);
  assert.equal(followed.url, `${site.base}/text`);
  const loop = await refusal(`${site.base}/loop`);
  assert.equal(loop.kind, "redirects");
  assert.match(loop.message, /more than 3 redirects/);
});

test("custom headers stay with their origin when a redirect leaves it", async () => {
  const other = await startWebStandIn();
  try {
    const allowList = parseAllowList([`127.0.0.1:${site.port}`, `127.0.0.1:${other.port}`]);
    const headers = { "x-subscription-token": "secret", authorization: "Bearer secret", accept: "application/json" };
    const same = await safeFetch(`${site.base}/redirect?to=/headers`, { ...options, allowList, headers });
    assert.equal(JSON.parse(same.body.toString("utf8"))["x-subscription-token"], "secret");
    const away = await safeFetch(`${site.base}/redirect?to=${encodeURIComponent(`${other.base}/headers`)}`, {
      ...options,
      allowList,
      headers,
    });
    const seen = JSON.parse(away.body.toString("utf8")) as Record<string, string>;
    assert.equal(seen["x-subscription-token"], undefined);
    assert.equal(seen.authorization, undefined);
    assert.equal(seen.accept, "application/json");
  } finally {
    await other.close();
  }
});

/** A self-signed certificate for `host`, made with the openssl CLI; undefined when it is not installed. */
function selfSigned(host: string): { key: string; cert: string } | undefined {
  const dir = createTempHome({ prefix: "df-cert-" });
  try {
    const [key, cert] = [path.join(dir.path, "key.pem"), path.join(dir.path, "cert.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        `/CN=${host}`,
        "-addext",
        `subjectAltName=DNS:${host}`,
      ],
      { stdio: "ignore" },
    );
    return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
  } catch {
    return undefined;
  } finally {
    dir.cleanup();
  }
}

test("https: the connection goes to the pinned address, and TLS still checks the certificate for the hostname", async (t) => {
  const pair = selfSigned("stand-in.invalid");
  if (!pair) return t.skip("openssl is not installed");
  const servernames: string[] = [];
  const context = tls.createSecureContext(pair);
  const server = tls.createServer(
    { ...pair, SNICallback: (name, done) => (servernames.push(name), done(null, context)) },
    (socket) => socket.destroy(),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
    const error = await refusal(`https://stand-in.invalid:${port}/`, {
      allowList: parseAllowList([`stand-in.invalid:${port}`]),
      resolve,
    });
    assert.equal(error.kind, "network");
    assert.match(
      error.message,
      /^Could not reach https:\/\/stand-in\.invalid:\d+: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\.$/,
    );
    assert.deepEqual(
      servernames,
      ["stand-in.invalid"],
      "SNI carries the hostname although the socket went to the pinned address",
    );
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
