// A page's multipart/form-data post (a file input), read whole up to a limit first: 413
// past it, so an oversized upload is never parsed (request.formData() would buffer any size).
import { readBodyBytes } from "./api.server";

export async function readBoundedFormData(request: Request, limit: number): Promise<FormData> {
  const bytes = await readBodyBytes(request, limit);
  const type = request.headers.get("Content-Type") ?? "application/x-www-form-urlencoded";
  return new Response(new Uint8Array(bytes), { headers: { "Content-Type": type } }).formData();
}
