// Files for the upload tests: real magic numbers (so file-type tells them by their bytes),
// then a pattern that differs at every position, so a reordered or cut chunk shows.

function pattern(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

/** A PNG's signature and IHDR chunk, then `size` bytes in all. */
export function pngBytes(size: number, seed = 1): Buffer {
  const head = Buffer.from("89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61", "hex");
  const bytes = pattern(size, seed);
  head.copy(bytes);
  return bytes;
}

/** A PDF header, then `size` bytes in all. */
export function pdfBytes(size: number, seed = 2): Buffer {
  const bytes = pattern(size, seed);
  Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1").copy(bytes);
  return bytes;
}

/** A Windows program's first bytes (MZ, then a PE header's offset and signature). */
export function exeBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  bytes.write("MZ", 0, "latin1");
  bytes.writeUInt32LE(0x80, 0x3c);
  bytes.write("PE\0\0", 0x80, "latin1");
  return bytes;
}

/** The fields of a form with a file field besides a name. */
export function formWithFile(file: Record<string, unknown> = {}) {
  return [
    { key: "name", label: "Name", type: "text", required: true },
    {
      key: "documents",
      label: "Documents",
      type: "file",
      accept: [".png", ".pdf"],
      maxSizeMb: 2,
      maxFiles: 2,
      ...file,
    },
  ];
}

/** A multipart submission: formId first (as the hosted page sends it), a name, the files. */
export function uploadForm(formId: string, files: Array<{ bytes: Buffer; name: string; field?: string }>): FormData {
  const form = new FormData();
  form.set("formId", formId);
  form.set("name", "Uploading Una");
  for (const file of files) {
    form.append(file.field ?? "documents", new Blob([new Uint8Array(file.bytes)]), file.name);
  }
  return form;
}
