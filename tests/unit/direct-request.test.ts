// @vitest-environment node
// The fast path's Request must behave as undici's would to a route: each body method
// returns the held bytes once, a second read fails, clone() copies, `body` streams, and
// the lazily made abort signal fires whether the client left before or after it was read.
import { describe, expect, it } from "vitest";
import { DirectRequest } from "../../server/direct-request";

const url = new URL("http://localhost/api/leads/submit");

function make(text: string, contentType = "application/json") {
  let abort: () => void = () => {};
  const request = new DirectRequest(
    url,
    { method: "POST", headers: { "content-type": contentType } },
    (callback) => (abort = callback),
    new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>,
  );
  return { request, abort: () => abort() };
}

describe("DirectRequest with held bytes", () => {
  it("answers text, json, arrayBuffer and blob with the bytes, as undici's Request does", async () => {
    const body = '{"name":"Ada","note":"é ✓"}';
    const reference = () => new Request(url, { method: "POST", body, headers: { "content-type": "text/plain" } });
    expect(await make(body).request.text()).toBe(await reference().text());
    expect(await make(body).request.json()).toEqual(await reference().json());
    expect(new Uint8Array(await make(body).request.arrayBuffer())).toEqual(
      new Uint8Array(await reference().arrayBuffer()),
    );
    const blob = await make(body, "text/plain").request.blob();
    expect(blob.type).toBe("text/plain");
    expect(await blob.text()).toBe(body);
  });

  it("decodes a byte-order mark and malformed UTF-8 as undici does", async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0xff, 0x62]);
    const request = new DirectRequest(url, { method: "POST" }, () => {}, bytes);
    expect(await request.text()).toBe(await new Request(url, { method: "POST", body: bytes }).text());
  });

  it("parses a urlencoded and a multipart form", async () => {
    const form = await make("intent=add&name=A%26B", "application/x-www-form-urlencoded").request.formData();
    expect(form.get("intent")).toBe("add");
    expect(form.get("name")).toBe("A&B");
    const multipart = '--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nvalue\r\n--b--\r\n';
    expect((await make(multipart, "multipart/form-data; boundary=b").request.formData()).get("x")).toBe("value");
  });

  it("refuses a second read, as undici does, and says the body was used", async () => {
    const { request } = make("{}");
    expect(request.bodyUsed).toBe(false);
    await request.text();
    expect(request.bodyUsed).toBe(true);
    await expect(request.json()).rejects.toThrow(TypeError);
    await expect(request.arrayBuffer()).rejects.toThrow(TypeError);
    expect(() => request.clone()).toThrow(TypeError);
  });

  it("clones into a Request that reads the same bytes, leaving the original readable", async () => {
    const { request } = make('{"a":1}');
    const copy = request.clone();
    expect(await copy.json()).toEqual({ a: 1 });
    expect(copy.method).toBe("POST");
    expect(copy.headers.get("content-type")).toBe("application/json");
    expect(await request.text()).toBe('{"a":1}');
  });

  it("gives the bytes as a stream through body, and then counts as read", async () => {
    const { request } = make("streamed");
    const chunks: Uint8Array[] = [];
    const reader = request.body!.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(Buffer.concat(chunks).toString()).toBe("streamed");
    expect(request.bodyUsed).toBe(true);
    await expect(request.text()).rejects.toThrow(TypeError);
  });
});

describe("DirectRequest's lazy signal", () => {
  it("fires when the client leaves after a route read the signal", () => {
    const { request, abort } = make("{}");
    const { signal } = request;
    let fired = 0;
    signal.addEventListener("abort", () => fired++);
    expect(signal.aborted).toBe(false);
    abort();
    expect(signal.aborted).toBe(true);
    expect(fired).toBe(1);
    expect(request.signal).toBe(signal);
  });

  it("is already aborted when first read after the client left", () => {
    const { request, abort } = make("{}");
    abort();
    expect(request.signal.aborted).toBe(true);
  });

  it("streams a body it does not hold through undici, as before", async () => {
    const request = new DirectRequest(url, { method: "POST", body: "from undici" }, () => {});
    expect(await request.text()).toBe("from undici");
    expect(request.bodyUsed).toBe(true);
  });
});
