/**
 * A run's view of its checkpointer that remembers the thread's head, so the reads of a run that holds its
 * thread cost no round trip when the answer is already in memory: the head read before the graph starts
 * is handed to the graph's own first read, and the head the run wrote last (with the task writes made on
 * it since) answers the state read after the run.
 *
 * It answers only reads of the head of the root namespace of its thread (no `checkpoint_id`, or the id it
 * holds), only with what went through it, and only while every write through it succeeded: a failed
 * write forgets the head (the next read goes to the store). What it hands out is the checkpoint LangGraph
 * gave `put` (a copy LangGraph made for the write) and the task writes as the store would list them
 * (ordered by task, then index; special channels replace their index, others never do), each read given
 * its own copies of the lists. The thread must not be written by anyone else meanwhile: the caller holds
 * it (the server's worker holds the run's claim and the thread's lease).
 */
import {
  type BaseCheckpointSaver,
  type CheckpointTuple,
  copyCheckpoint,
  WRITES_IDX_MAP,
} from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";

type PendingWrite = [taskId: string, channel: string, value: unknown, index: number];

interface Head {
  /** Undefined: the thread has no checkpoint yet (as read from the store). */
  tuple: CheckpointTuple | undefined;
  writes: PendingWrite[];
  /** A head read from the store is lent to one reader (the graph's first read), then only its id is known. */
  once: boolean;
}

/** The head-remembering view `cacheHead` returns. */
export interface HeadCachingSaver extends BaseCheckpointSaver {
  /** Forgets the head (after something else changed the thread, e.g. a rollback). */
  forget(): void;
}

/**
 * `saver` with the head of `threadId` remembered (see the file's comment).
 *
 * @example
 * const view = cacheHead(saver, "t1");
 * await graph.getState({ configurable: { thread_id: "t1", __pregel_checkpointer: view } });
 */
export function cacheHead(saver: BaseCheckpointSaver, threadId: string): HeadCachingSaver {
  let head: Head | undefined;
  const isHeadRead = (config: RunnableConfig) => {
    const configurable = config.configurable ?? {};
    return configurable.thread_id === threadId && (configurable.checkpoint_ns ?? "") === "";
  };
  const lend = (current: Head): CheckpointTuple | undefined => {
    const { tuple, writes } = current;
    if (!tuple) return undefined;
    const ordered = [...writes].sort((a, b) => (a[0] === b[0] ? a[3] - b[3] : a[0] < b[0] ? -1 : 1));
    return {
      ...tuple,
      checkpoint: copyCheckpoint(tuple.checkpoint),
      pendingWrites: ordered.map(([task, channel, value]) => [task, channel, value]),
    };
  };
  const view = Object.create(saver) as HeadCachingSaver;
  Object.assign(view, {
    forget() {
      head = undefined;
    },
    async getTuple(config: RunnableConfig) {
      const wanted = config.configurable?.checkpoint_id as string | undefined;
      if (head && isHeadRead(config) && (wanted === undefined || wanted === head.tuple?.checkpoint.id)) {
        const answer = lend(head);
        if (head.once) head = undefined;
        return answer;
      }
      const tuple = await saver.getTuple(config);
      if (isHeadRead(config) && wanted === undefined)
        head = {
          tuple,
          writes: (tuple?.pendingWrites ?? []).map(([task, channel, value], index) => [task, channel, value, index]),
          once: true,
        };
      return tuple;
    },
    async put(...args: Parameters<BaseCheckpointSaver["put"]>) {
      const [config, checkpoint, metadata] = args;
      let next: RunnableConfig;
      try {
        next = await saver.put(...args);
      } catch (error) {
        head = undefined;
        throw error;
      }
      if (isHeadRead(config)) {
        const parent = config.configurable?.checkpoint_id as string | undefined;
        head = {
          tuple: {
            config: next,
            checkpoint,
            metadata,
            ...(parent ? { parentConfig: { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: parent } } } : {}),
            pendingWrites: [],
          },
          writes: [],
          once: false,
        };
      }
      return next;
    },
    async putWrites(...args: Parameters<BaseCheckpointSaver["putWrites"]>) {
      const [config, writes, taskId] = args;
      try {
        await saver.putWrites(...args);
      } catch (error) {
        head = undefined;
        throw error;
      }
      if (!head?.tuple || !isHeadRead(config) || config.configurable?.checkpoint_id !== head.tuple.checkpoint.id) return;
      // As the store keeps them: a special channel's write replaces the one at its index, others never do.
      writes.forEach(([channel, value], position) => {
        const index = WRITES_IDX_MAP[channel] ?? position;
        const at = head!.writes.findIndex(([task, , , i]) => task === taskId && i === index);
        if (at < 0) head!.writes.push([taskId, channel, value, index]);
        else if (channel in WRITES_IDX_MAP) head!.writes[at] = [taskId, channel, value, index];
      });
    },
  });
  return view;
}
