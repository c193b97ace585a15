// The inbound webhook's multipart/form-data reader (app/capture/uploads/multipart-form.ts): the
// bytes of each part as sent, with CRLF or bare LF line endings, and 400 for what is not a form.
import { describe, expect, it } from "vitest";
import { readMultipartForm } from "~/capture/uploads/multipart-form";

const TYPE = "multipart/form-data; boundary=xYzZY";
const read = (body: string | Buffer, type = TYPE) =>
  readMultipartForm(typeof body === "string" ? Buffer.from(body, "latin1") : body, type);
const text = (data: Uint8Array) => Buffer.from(data).toString("latin1");

describe("reading multipart/form-data", () => {
  it("keeps each field's bytes and each file's name, type and exact bytes", () => {
    const parts = read(
      '--xYzZY\r\nContent-Disposition: form-data; name="text"\r\n\r\nWorld \x80\r\n' +
        '--xYzZY\r\nContent-Disposition: form-data; name="attachment1"; filename="foo.txt"\r\nContent-Type: text/plain\r\n\r\nline\r\n\r\n' +
        "--xYzZY--\r\n",
    );
    expect(parts.map(({ name, filename, contentType }) => ({ name, filename, contentType }))).toEqual([
      { name: "text", filename: undefined, contentType: undefined },
      { name: "attachment1", filename: "foo.txt", contentType: "text/plain" },
    ]);
    expect([...parts[0].data]).toEqual([...Buffer.from("World \x80", "latin1")]);
    expect(text(parts[1].data)).toBe("line\r\n");
  });

  it("reads bare LF line endings like CRLF ones", () => {
    const parts = read(
      '--xYzZY\nContent-Disposition: form-data; name="subject"\n\nHello\n\n--xYzZY\nContent-Disposition: form-data; name="to"\n\na@b\n--xYzZY--',
    );
    expect(parts.map((part) => [part.name, text(part.data)])).toEqual([
      ["subject", "Hello\n"],
      ["to", "a@b"],
    ]);
  });

  it("keeps empty fields, quoted boundaries and a delimiter-like text that does not start a line", () => {
    const parts = read(
      '--a b\r\nContent-Disposition: form-data; name="empty"\r\n\r\n\r\n--a b\r\nContent-Disposition: form-data; name="x"\r\n\r\nnot --a b here\r\n--a b--',
      'multipart/form-data; boundary="a b"',
    );
    expect(parts.map((part) => [part.name, text(part.data)])).toEqual([
      ["empty", ""],
      ["x", "not --a b here"],
    ]);
  });

  it("refuses a body without a boundary or without any part with 400 malformed_body", () => {
    for (const [body, type] of [
      ["--b\r\nbroken", "multipart/form-data; boundary=b"],
      ["no parts at all", "multipart/form-data; boundary=b"],
      ['--b\r\nContent-Disposition: form-data; name="x"\r\n\r\ny\r\n--b--', "multipart/form-data"],
    ]) {
      expect(() => read(body, type)).toThrow(expect.objectContaining({ code: "malformed_body" }));
    }
  });
});
