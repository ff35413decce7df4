/**
 * Sends webhook deliveries: wakes when runs end (the run queue's wake-ups), claims the deliveries whose
 * run is over, POSTs each body through the harness's SSRF-safe fetch (the one `web_fetch` uses: only
 * public addresses unless listed in `web.allow_hosts`, checked again on every redirect), signed, and
 * retries a failure with exponential backoff up to a number of attempts. A delivery addressed to a chat
 * channel (a cron's `deliver_to`, crons/channel-delivery.ts) is posted there instead, with the same retries.
 */
import { type AllowList, safeFetch } from "@deerflow/harness";
import { channelOf } from "../crons/channel-delivery.js";
import type { DeliverTo } from "../crons/types.js";
import { type Delivery, type DeliveryStore, SIGNATURE_HEADER, signDelivery, TIMESTAMP_HEADER } from "./deliveries.js";

/** Deliveries taken per claim. */
const BATCH = 10;
/** How long a claimed delivery is kept from other processes while it is being sent. */
const LEASE_MS = 60_000;
/** Longest wait between two looks when nothing woke the deliverer. */
const IDLE_MS = 5_000;

/** What the deliverer works with. */
export interface DelivererDeps {
  store: DeliveryStore;
  /** The JSON body for a run that is over (the run with its final values), or null when the run is gone. */
  bodyOf(runId: string): Promise<string | null>;
  /** Parks until runs change or `ms` pass (the run queue's `wait`). */
  wait(ms: number): Promise<void>;
  /** server.webhook_secret; null sends unsigned deliveries. */
  secret: string | null;
  allowList: AllowList;
  /** Attempts before a delivery is given up (default 8). */
  maxAttempts?: number;
  /** Wait before the second attempt, doubled for each later one (default 2 s). */
  retryBaseMs?: number;
  log: (line: string) => void;
  /** Posts a run's body to a chat channel: null when sent, else why not (final: retrying cannot help). */
  sendToChannel(target: DeliverTo, body: string): Promise<{ message: string; final: boolean } | null>;
}

/** The deliverer; `start()` begins sending, `stop()` ends the loop. */
export function createDeliverer(deps: DelivererDeps) {
  const maxAttempts = deps.maxAttempts ?? 8;
  const retryBaseMs = deps.retryBaseMs ?? 2000;
  let stopped = false;
  let loop: Promise<void> | undefined;
  let wakeStop: () => void = () => {};
  const stopping = new Promise<void>((resolve) => (wakeStop = resolve));

  /** One attempt at one delivery; records the outcome. */
  async function attempt(delivery: Delivery): Promise<void> {
    const body = delivery.body ?? (await deps.bodyOf(delivery.run_id));
    const attempts = delivery.attempts + 1;
    const now = Date.now();
    if (body === null) {
      const last_error = "The run was deleted before its webhook could be sent.";
      await deps.store.update(delivery.delivery_id, {
        body,
        attempts,
        status: "failed",
        next_attempt_at: new Date(now).toISOString(),
        last_error,
      });
      return;
    }
    const channel = channelOf(delivery.url);
    const error = channel ? await deps.sendToChannel(channel, body) : await post(delivery.url, body);
    const giveUp = error !== null && (error.final || attempts >= maxAttempts);
    await deps.store.update(delivery.delivery_id, {
      body,
      attempts,
      status: error === null ? "delivered" : giveUp ? "failed" : "waiting",
      next_attempt_at: new Date(now + retryBaseMs * 2 ** (attempts - 1)).toISOString(),
      last_error: error?.message ?? null,
    });
    if (error && giveUp)
      deps.log(
        `webhook for run ${delivery.run_id} to ${delivery.url} given up after ${attempts} attempts: ${error.message}`,
      );
  }

  /** POSTs the body; null on a 2xx, else why it failed and whether retrying cannot help. */
  async function post(url: string, body: string): Promise<{ message: string; final: boolean } | null> {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = { "content-type": "application/json", [TIMESTAMP_HEADER]: timestamp };
    if (deps.secret) headers[SIGNATURE_HEADER] = signDelivery(deps.secret, timestamp, body);
    try {
      const response = await safeFetch(url, {
        method: "POST",
        headers,
        body,
        timeoutMs: 10_000,
        maxBytes: 64 * 1024,
        maxRedirects: 0,
        allowList: deps.allowList,
      });
      if (response.status >= 200 && response.status < 300) return null;
      // A receiver that refuses the request itself (not a 408/429 or its own failure) refuses its retries too.
      const final =
        response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429;
      return { message: `the receiver answered HTTP ${response.status}`, final };
    } catch (error) {
      const kind = (error as { kind?: string }).kind;
      return { message: (error as Error).message, final: kind === "refused" };
    }
  }

  async function run(): Promise<void> {
    while (!stopped) {
      let claimed: Delivery[] = [];
      try {
        claimed = await deps.store.claimReady(LEASE_MS, BATCH);
        await Promise.all(claimed.map((delivery) => attempt(delivery)));
      } catch (error) {
        deps.log(`webhooks: ${(error as Error).message}`);
      }
      if (claimed.length < BATCH) await Promise.race([deps.wait(Math.min(IDLE_MS, retryBaseMs)), stopping]);
    }
  }

  return {
    start() {
      loop ??= run();
    },
    async stop() {
      stopped = true;
      wakeStop();
      await loop;
    },
  };
}
