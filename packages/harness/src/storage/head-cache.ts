/**
 * A run's view of its checkpointer that remembers the thread's head, so the reads of a run that holds its
 * thread cost no round trip when the answer is already in memory: the head read before the graph starts
 * is handed to the graph's own first read, and the head the run wrote last (with the task writes made on
 * it since) answers the state read after the run.
 *
 * It answers only reads of the head of the root namespace of its thread (no `checkpoint_id`, or the id it
 * holds), only with what went through it, and only while every write through it succeeded: a failed
 * write forgets the head (the next read goes to the store). What it hands out is the checkpoint LangGraph
 * gave `put` and the task writes as the store would list them (ordered by task, then index; special
 * channels replace their index, others never do), the values serialized and read back once (so a reader
 * sees them as a read from the store would give them), each read given its own copies of the lists. The thread must not be written by anyone else meanwhile: the caller holds
 * it (the server's worker holds the run's claim and the thread's lease).
 */
import {
  type BaseCheckpointSaver,
  type CheckpointTuple,
  copyCheckpoint,
  JsonPlusSerializer,
  WRITES_IDX_MAP,
} from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";

/** A task's write as kept here: its index, and whether its value is already as the store gives it back. */
interface Write {
  task: string;
  channel: string;
  value: unknown;
  index: number;
  stored: boolean;
}

interface Head {
  /** Undefined: the thread has no checkpoint yet (as read from the store). */
  tuple: CheckpointTuple | undefined;
  /** A head read from the store is lent to one reader (the graph's first read), then only its id is known. */
  once: boolean;
  /** False while the values are LangGraph's own objects, not yet as a read from the store would give them. */
  stored: boolean;
}

/** Serialized and read back as the store would (the large-value references aside, which read back the same). */
const serde = new JsonPlusSerializer();
async function asStored<T>(value: T): Promise<T> {
  const [type, data] = await serde.dumpsTyped(value);
  return (await serde.loadsTyped(type, data)) as T;
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
  /**
   * Task writes by checkpoint id: a task's writes on a checkpoint can be stored before the checkpoint's
   * own statement completes (LangGraph does not wait for it), so they are kept apart until it has.
   */
  const writes = new Map<string, Write[]>();
  const isRoot = (config: RunnableConfig) => {
    const configurable = config.configurable ?? {};
    return configurable.thread_id === threadId && (configurable.checkpoint_ns ?? "") === "";
  };
  const forget = () => {
    head = undefined;
    writes.clear();
  };
  const lend = async (current: Head): Promise<CheckpointTuple | undefined> => {
    const { tuple } = current;
    if (!tuple) return undefined;
    if (!current.stored) {
      // Once, at the first read: a reader gets what the store would give (e.g. a message's fields as revived).
      const { checkpoint } = tuple;
      const values: Record<string, unknown> = {};
      for (const [channel, value] of Object.entries(checkpoint.channel_values)) values[channel] = await asStored(value);
      current.tuple = { ...tuple, checkpoint: { ...checkpoint, channel_values: values } };
      current.stored = true;
    }
    const own = writes.get(tuple.checkpoint.id) ?? [];
    for (const write of own) {
      if (write.stored) continue;
      write.value = await asStored(write.value);
      write.stored = true;
    }
    // Ordered as the store lists them: by task, then index.
    const ordered = [...own].sort((a, b) => (a.task === b.task ? a.index - b.index : a.task < b.task ? -1 : 1));
    return {
      ...current.tuple!,
      checkpoint: copyCheckpoint(current.tuple!.checkpoint),
      pendingWrites: ordered.map((write) => [write.task, write.channel, write.value]),
    };
  };
  const view = Object.create(saver) as HeadCachingSaver;
  Object.assign(view, {
    forget,
    async getTuple(config: RunnableConfig) {
      const wanted = config.configurable?.checkpoint_id as string | undefined;
      if (head && isRoot(config) && (wanted === undefined || wanted === head.tuple?.checkpoint.id)) {
        const answer = await lend(head);
        if (head.once) head = undefined;
        return answer;
      }
      const tuple = await saver.getTuple(config);
      if (isRoot(config) && wanted === undefined) {
        head = { tuple, once: true, stored: true };
        if (tuple)
          writes.set(
            tuple.checkpoint.id,
            (tuple.pendingWrites ?? []).map(([task, channel, value], index) => ({
              task,
              channel,
              value,
              index,
              stored: true,
            })),
          );
      }
      return tuple;
    },
    async put(...args: Parameters<BaseCheckpointSaver["put"]>) {
      const [config, checkpoint, metadata] = args;
      let next: RunnableConfig;
      try {
        next = await saver.put(...args);
      } catch (error) {
        forget();
        throw error;
      }
      if (isRoot(config)) {
        const parent = config.configurable?.checkpoint_id as string | undefined;
        head = {
          tuple: {
            config: next,
            checkpoint,
            metadata,
            ...(parent
              ? { parentConfig: { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: parent } } }
              : {}),
            pendingWrites: [],
          },
          once: false,
          stored: false,
        };
        // Writes on checkpoints before this one are no longer a head's (ids are time-ordered).
        for (const id of writes.keys()) if (id < checkpoint.id) writes.delete(id);
      }
      return next;
    },
    async putWrites(...args: Parameters<BaseCheckpointSaver["putWrites"]>) {
      const [config, taskWrites, taskId] = args;
      try {
        await saver.putWrites(...args);
      } catch (error) {
        forget();
        throw error;
      }
      const id = config.configurable?.checkpoint_id as string | undefined;
      if (!id || !isRoot(config)) return;
      let own = writes.get(id);
      if (!own) writes.set(id, (own = []));
      // As the store keeps them: a special channel's write replaces the one at its index, others never do.
      taskWrites.forEach(([channel, value], position) => {
        const index = WRITES_IDX_MAP[channel] ?? position;
        const at = own.findIndex((write) => write.task === taskId && write.index === index);
        const write = { task: taskId, channel, value, index, stored: false };
        if (at < 0) own.push(write);
        else if (channel in WRITES_IDX_MAP) own[at] = write;
      });
    },
  });
  return view;
}
