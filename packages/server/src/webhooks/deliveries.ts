/**
 * Webhook deliveries (design §18): a run created with `webhook` gets a delivery row before the run
 * itself exists, and the row is settled only once the receiver answered. So a crash between the run's
 * end and its POST, or a receiver that is down, costs a retry, never the delivery. Bodies are signed
 * so a receiver can tell a delivery from this server apart from anyone else's POST.
 */
import { createHmac } from "node:crypto";
import { HttpError } from "../http/errors.js";

/** A delivery taken for an attempt. */
export interface Delivery {
  delivery_id: string;
  run_id: string;
  url: string;
  /** The JSON body, fixed at the first attempt (a stateless run's record does not outlive it for long). */
  body: string | null;
  attempts: number;
  /** True when the run's record is gone (deleted before anything could be sent). */
  run_missing: boolean;
}

/** The next state of a delivery after an attempt. */
export interface DeliveryUpdate {
  body: string | null;
  attempts: number;
  status: "waiting" | "delivered" | "failed";
  /** When to try again (status waiting). */
  next_attempt_at: string;
  last_error: string | null;
}

/** Delivery rows on SQLite or Postgres. */
export interface DeliveryStore {
  /** Records that `runId` is to be delivered to `url` once it ends. */
  expect(runId: string, url: string): Promise<void>;
  /** Drops the deliveries of a run that was never recorded. */
  forget(runId: string): Promise<void>;
  /**
   * Takes up to `limit` waiting deliveries whose run is over (or gone) and whose time has come, moving
   * their next attempt `leaseMs` ahead so no other process takes them meanwhile.
   */
  claimReady(leaseMs: number, limit: number): Promise<Delivery[]>;
  update(deliveryId: string, update: DeliveryUpdate): Promise<void>;
  /** The deliveries of a run, oldest first (for tests and the docs' troubleshooting). */
  ofRun(runId: string): Promise<Array<{ status: string; attempts: number; last_error: string | null }>>;
  close(): Promise<void> | void;
}

/** Header carrying the Unix time (seconds) the delivery was signed at. */
export const TIMESTAMP_HEADER = "x-deerflow-timestamp";
/** Header carrying `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`. */
export const SIGNATURE_HEADER = "x-deerflow-signature";

/**
 * The signature of a delivery: HMAC-SHA256 with the server's webhook secret over the timestamp, a
 * dot and the body, so an old delivery replayed later does not verify with a fresh timestamp.
 *
 * @example
 * signDelivery("a-long-shared-secret", "1767225600", '{"run_id":"…"}'); // "sha256=5f1c…"
 */
export function signDelivery(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** Throws a 422 unless `url` is an absolute http(s) URL (where it may point is checked when sending). */
export function checkWebhookUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    throw new HttpError(
      422,
      `Invalid body field "webhook": "${url}" is not an http(s) URL. Give the full address of your receiver, e.g. https://example.com/hooks/deerflow.`,
    );
}
