/**
 * Newline-delimited JSON (one JSON value per line), as the chat stream (spec 4.6) and `/v1/cubesql`
 * answer. A network chunk can end anywhere, inside a line or inside a multi-byte character, so
 * bytes are decoded in streaming mode and a line is only handed out once its newline arrives.
 */
export class LineSplitter {
  private pending = '';

  /** The complete lines in `text` and what was pending; the unfinished tail stays pending. */
  push(text: string): string[] {
    const parts = (this.pending + text).split('\n');
    this.pending = parts.pop() ?? '';
    return parts.map((line) => line.replace(/\r$/, '')).filter((line) => line.trim() !== '');
  }

  /** The last line when the stream ended without a newline after it. */
  flush(): string[] {
    const rest = this.pending;
    this.pending = '';
    return rest.trim() === '' ? [] : [rest.replace(/\r$/, '')];
  }
}

/** The lines of a byte stream, decoded as UTF-8. */
export async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string, void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const splitter = new LineSplitter();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* splitter.push(decoder.decode(value, { stream: true }));
    }
    yield* splitter.push(decoder.decode());
    yield* splitter.flush();
  } finally {
    // Stopping early (a consumer's `break`, an error) must not leave the connection open.
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
