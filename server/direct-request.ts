// The fast path's Request (server/direct-dispatch.ts, decision 020). To a route it is a
// Request like the one Remix would give, with two costs of undici's Request avoided:
//
// - Its abort signal is made when a route first reads it. Passing a signal to
//   `new Request` costs undici a listener, a WeakRef and a FinalizationRegistry entry per
//   request; the submit route reads the signal only when something failed.
// - A body the server already read (small, of known length) is held as bytes: the body
//   methods return them without the web stream undici would build and read back. `body`
//   still gives a stream, made when asked for.
const UNUSABLE = "Body is unusable: Body has already been read";

type Bytes = Uint8Array<ArrayBuffer>;

export class DirectRequest extends Request {
  #controller: AbortController | undefined;
  #aborted = false;
  readonly #bytes: Bytes | undefined;
  #stream: ReadableStream<Bytes> | undefined;
  #used = false;

  /**
   * `onAbort` registers the callback to run when the client goes away. With `bytes`, the
   * body is those bytes (and `init.body` must be absent).
   */
  constructor(url: string | URL, init: RequestInit, onAbort: (abort: () => void) => void, bytes?: Bytes) {
    super(url, init);
    this.#bytes = bytes;
    onAbort(() => {
      this.#aborted = true;
      this.#controller?.abort();
    });
  }

  override get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  override get body(): ReadableStream<Bytes> | null {
    const bytes = this.#bytes;
    if (!bytes) return super.body;
    this.#stream ??= new ReadableStream<Bytes>({
      start: (controller) => {
        this.#used = true;
        controller.enqueue(bytes);
        controller.close();
      },
    });
    return this.#stream;
  }

  override get bodyUsed(): boolean {
    return this.#bytes ? this.#used : super.bodyUsed;
  }

  /** The held bytes, once; as undici, a second read fails. */
  #take(): Bytes {
    if (this.#used) throw new TypeError(UNUSABLE);
    this.#used = true;
    return this.#bytes!;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    if (!this.#bytes) return super.arrayBuffer();
    const bytes = this.#take();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  }

  /** The held bytes themselves (no copy: they are this body's alone, and readable once). */
  override async bytes(): Promise<Bytes> {
    if (!this.#bytes) return super.bytes();
    return this.#take();
  }

  override async text(): Promise<string> {
    if (!this.#bytes) return super.text();
    return new TextDecoder().decode(this.#take());
  }

  override async json(): Promise<unknown> {
    if (!this.#bytes) return super.json();
    return JSON.parse(await this.text()) as unknown;
  }

  override async blob(): Promise<Blob> {
    if (!this.#bytes) return super.blob();
    return new Blob([this.#take()], { type: this.headers.get("content-type") ?? "" });
  }

  override async formData(): Promise<FormData> {
    if (!this.#bytes) return super.formData();
    const bytes = this.#take();
    return new Response(bytes, { headers: { "content-type": this.headers.get("content-type") ?? "" } }).formData();
  }

  override clone(): Request {
    if (!this.#bytes) return super.clone();
    if (this.#used) throw new TypeError(UNUSABLE);
    return new Request(this.url, {
      method: this.method,
      headers: this.headers,
      body: this.#bytes,
      signal: this.signal,
    });
  }
}
