/**
 * Run requests before graph work, when runs execute on the HTTP thread (`server.run_workers: 0`).
 *
 * A streamed run's first event (`metadata`) is ready as soon as its run is recorded, but on a shared
 * event loop it waited behind other runs' graphs. The worker, woken from inside the request that queued
 * a run, started that graph in the same turn of the event loop, and a graph runs from one await to the
 * next without giving Node a chance to read a socket (its promises resolve as microtasks): the state
 * read, the middleware and the checkpoint writes before the model call were one block of about 10 ms.
 * A burst of 50 streamed runs was read one request per such block.
 *
 * Here graph work asks for its turn at a few points: before a run is claimed, at every chain and model
 * start inside the graph (a callback handler the worker adds), and before each streamed chunk is
 * published. A turn is a slice of `SLICE_MS` of the event loop: inside the slice graph work goes on at
 * once; past it, it waits for a later turn of the event loop (`setImmediate`), handed out one per turn,
 * first come first served, so Node reads its sockets at least once per slice. Waiting at every point
 * instead (about 22 a run, 13 with slices) split a run's streamed chunks into writes of their own (15
 * socket writes a run, 8.5 with slices). No graph work goes on, slice or not, while a run request is
 * being answered (from its body read to its first event written, which on Postgres or Redis spans a few
 * round trips), except one turn after every `FAIR_SHARE` requests answered meanwhile. Only requests that
 * sent their whole body count, so a client trickling a body in holds nothing up. Worker threads (`run_workers` > 0) need none of this: no request waits on their loop.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";

/** Shared by the run routes (which mark their requests) and the worker (which yields to them). */
export interface RequestsFirst {
  /**
   * Marks a run request as being answered; call the returned function when its first event (or its
   * answer) is written. Calling it again does nothing.
   */
  begin(): () => void;
  /**
   * Resolves at once inside the current slice when no run request is being answered; otherwise on a
   * later turn of the event loop, once none is (or `FAIR_SHARE` were answered while this waited).
   */
  turn(): Promise<void>;
}

/**
 * How long graph work may hold the event loop after it got a turn before it waits for the next one, in
 * ms: a new request waits at most about this long (plus the one piece of graph work that crosses it) to
 * be read. Longer slices did not pay: in interleaved rounds (300 runs a build at 10, 20 and 50
 * concurrent), 5 ms slices spent 0.91 to 1.04 of the CPU per run of a turn at every point, no less than
 * 1 ms slices (0.93 to 1.02), and a run's first event came later (p50 341 ms against 190 at 50
 * concurrent).
 */
export const SLICE_MS = 1;

/**
 * How many run requests may be answered while graph work waits before one piece of it goes anyway, other
 * requests still being answered: a steady stream of overlapping requests (each spanning database round
 * trips on Postgres) slows the graphs down but cannot stop them.
 */
export const FAIR_SHARE = 4;

const GO_ON = Promise.resolve();

/**
 * Creates the bookkeeping for one server; `now` is its clock in ms (a test's, to place turns in slices).
 *
 * @example
 * const first = createRequestsFirst();
 * const answered = first.begin(); // a run request, once its body is read
 * void first.turn().then(stepGraph); // runs after answered() and a turn of the event loop
 * answered();
 */
export function createRequestsFirst(now: () => number = () => performance.now()): RequestsFirst {
  let answering = 0;
  /** When graph work last got a turn of the event loop: its slice runs from there. */
  let sliceStart = Number.NEGATIVE_INFINITY;
  /** Run requests answered since graph work last had a turn while it waited. */
  let answeredMeanwhile = 0;
  /** Graph work waiting for its turn, first come first served. */
  const waiting: Array<() => void> = [];
  let scheduled = false;
  // One waiter per turn of the event loop (an immediate queued while immediates run waits for the next
  // turn), so Node polls its sockets between two pieces of graph work.
  const next = () => {
    scheduled = false;
    if (answering > 0 && answeredMeanwhile < FAIR_SHARE) return;
    answeredMeanwhile = 0;
    sliceStart = now();
    waiting.shift()?.();
    if (waiting.length > 0) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(next);
  };
  return {
    begin() {
      answering += 1;
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        answering -= 1;
        if (waiting.length === 0) return;
        answeredMeanwhile += 1;
        if (answering === 0 || answeredMeanwhile >= FAIR_SHARE) schedule();
      };
    },
    turn() {
      // Inside the slice whoever asks goes on (the loop is held the same however it is shared); waiters
      // get the next slices, one each, in order.
      if (answering === 0 && now() - sliceStart < SLICE_MS) return GO_ON;
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        schedule();
      });
    },
  };
}

/**
 * A callback handler that makes the graph ask for its turn at every chain and chat model start (it is
 * awaited: `awaitHandlers`), so a run's work stops where its slice ends and a new request can come between.
 */
export class YieldingHandler extends BaseCallbackHandler {
  name = "deerflow_requests_first";
  override awaitHandlers = true;
  readonly #turn: () => Promise<void>;

  constructor(turn: () => Promise<void>) {
    super();
    this.#turn = turn;
  }

  override handleChainStart(): Promise<void> {
    return this.#turn();
  }

  override handleChatModelStart(): Promise<void> {
    return this.#turn();
  }
}
