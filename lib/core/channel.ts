// An in-process pipe: one producer writes a stream (as it would write stdout), one consumer reads it
// as an Input (as it would read stdin). It holds one chunk at a time: the producer's writes wait
// while the consumer is behind, so memory stays flat however long the stream. Unlike a
// PassThrough, a consumer that stops reading (it finished, failed, or read files instead) never
// errors the producer: what it still writes is discarded, as the reader of a closed pipe would
// never see it either.
import { Writable } from 'node:stream';
import type { Input } from './ndjson.js';

export class Channel extends Writable {
  private held: { chunk: Buffer; done: (error?: Error | null) => void } | undefined;
  private ended = false;
  private gone = false;
  private wake: (() => void) | undefined;

  constructor(highWaterMark = 1 << 16) {
    super({ highWaterMark });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.gone) return done();
    this.held = { chunk, done };
    this.signal();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.ended = true;
    this.signal();
    done();
  }

  /** The producer is finished (or failed): the reader sees the end of the stream after what was written. */
  close(): void {
    if (!this.writableEnded) this.end();
    this.ended = true;
    this.signal();
  }

  /** The consumer will read no more: the producer's writes from now on are discarded. */
  discard(): void {
    this.gone = true;
    this.release();
    this.signal();
  }

  /** The stream as an input named like standard input, read once. */
  input(name = 'stdin'): Input {
    return { name, readOnce: true, open: () => this.chunks() };
  }

  private async *chunks(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        if (this.held) {
          const { chunk } = this.held;
          this.release();
          yield chunk;
          continue;
        }
        if (this.ended || this.gone) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      // Stopped early (an error, or a consumer that had read enough): as a closed pipe.
      this.discard();
    }
  }

  private release(): void {
    const held = this.held;
    this.held = undefined;
    held?.done();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
