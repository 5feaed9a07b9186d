/**
 * Secret redaction at the checkpointer. LangGraph's savers (MemorySaver, SqliteSaver,
 * PostgresSaver) turn every piece of state they keep (checkpoints, channel blobs, pending writes,
 * metadata) into bytes through one serializer (`saver.serde`, LangGraph's `SerializerProtocol`).
 * {@link redactCheckpointer} wraps that serializer so each dumped value passes through the same
 * filter as every file write ({@link redactText}): a key a model server echoes into an answer
 * that lands in graph state is never stored in clear, in a SQLite file, a PostgreSQL table or a
 * memory saver's dump. Loading is unchanged (redacted text reads back as "[redacted]").
 *
 * Structural types only: packages/core/src/ imports no LangGraph package; packages/graphs/src/ and adapters/ hand their savers in.
 */
import { redactText } from "../secrets.ts";

/** The serializer shape of LangGraph's checkpoint savers (`SerializerProtocol`). */
export interface CheckpointSerde {
  dumpsTyped(data: unknown): Promise<[string, Uint8Array]>;
  loadsTyped(type: string, data: Uint8Array | string): Promise<unknown>;
}

const REDACTED = Symbol.for("retrace.redactingSerde");
const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** Bytes with every registered secret and key-shaped string replaced; binary (non-UTF-8) data is returned as is. */
export function redactBytes(bytes: Uint8Array): Uint8Array {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return bytes; // not text (an image): no key can be spelled in it as text
  }
  const clean = redactText(text);
  return clean === text ? bytes : encoder.encode(clean);
}

/** A serializer that redacts everything `inner` dumps. */
export function redactingSerde(inner: CheckpointSerde): CheckpointSerde {
  if ((inner as { [REDACTED]?: true })[REDACTED]) return inner;
  return {
    [REDACTED]: true,
    async dumpsTyped(data: unknown): Promise<[string, Uint8Array]> {
      const [type, bytes] = await inner.dumpsTyped(data);
      return [type, redactBytes(bytes)];
    },
    loadsTyped: (type: string, data: Uint8Array | string) => inner.loadsTyped(type, data),
  } as CheckpointSerde;
}

/**
 * Make a LangGraph checkpoint saver redact what it stores: replaces its `serde` with
 * {@link redactingSerde} around the current one (idempotent). Returns the same saver.
 */
export function redactCheckpointer<T extends { serde: CheckpointSerde }>(saver: T): T {
  (saver as { serde: CheckpointSerde }).serde = redactingSerde(saver.serde);
  return saver;
}
