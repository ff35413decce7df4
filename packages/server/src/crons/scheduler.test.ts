import assert from "node:assert/strict";
import { test } from "node:test";
import { plan } from "./scheduler.js";
import type { CronRecord } from "./types.js";

/** An hourly cron last due at 06:00 UTC, seen at 09:20 UTC (three due times missed, one just passed). */
function hourly(catchUp: CronRecord["catch_up"], more: Partial<CronRecord> = {}): CronRecord {
  return {
    cron_id: "c",
    run_at: null,
    deliver_to: null,
    assistant_id: "lead_agent",
    thread_id: null,
    schedule: "0 * * * *",
    timezone: "UTC",
    end_time: null,
    payload: {},
    metadata: {},
    enabled: true,
    on_run_completed: "delete",
    catch_up: catchUp,
    owner: null,
    next_run_at: "2027-03-01T06:00:00.000Z",
    last_run_id: null,
    last_run_at: null,
    skipped: 0,
    last_skipped_at: null,
    last_error: null,
    created_at: "2027-03-01T00:00:00.000Z",
    updated_at: "2027-03-01T00:00:00.000Z",
    ...more,
  };
}
const at = (iso: string) => new Date(iso);
const iso = (dates: Date[]) => dates.map((date) => date.toISOString().slice(11, 16));

test("catch_up: latest fires the last missed due time once; all fires each; none fires none of the old ones", () => {
  const now = at("2027-03-01T09:20:00Z");
  assert.deepEqual(iso(plan(hourly("latest"), now).fire), ["09:00"]);
  assert.deepEqual(iso(plan(hourly("all"), now).fire), ["06:00", "07:00", "08:00", "09:00"]);
  assert.deepEqual(iso(plan(hourly("none"), now).fire), []);
  assert.equal(plan(hourly("none"), now).next?.toISOString(), "2027-03-01T10:00:00.000Z");
});

test("catch_up: none still fires a due time that is only seconds late", () => {
  assert.deepEqual(iso(plan(hourly("none"), at("2027-03-01T06:00:03Z")).fire), ["06:00"]);
});

test("a schedule is read in its time zone, and end_time stops it", () => {
  const shanghai = hourly("latest", {
    schedule: "0 9 * * 1-5",
    timezone: "Asia/Shanghai",
    next_run_at: "2027-03-01T01:00:00.000Z",
  });
  // Monday 2027-03-01 09:00 in Shanghai is 01:00 UTC; the next is Tuesday's.
  const { fire, next } = plan(shanghai, at("2027-03-01T01:00:01Z"));
  assert.deepEqual(
    fire.map((date) => date.toISOString()),
    ["2027-03-01T01:00:00.000Z"],
  );
  assert.equal(next?.toISOString(), "2027-03-02T01:00:00.000Z");
  assert.equal(plan({ ...shanghai, end_time: "2027-03-01T12:00:00Z" }, at("2027-03-01T01:00:01Z")).next, null);
});
