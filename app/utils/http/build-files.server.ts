// Files the build makes beside the server bundle (build/node/workers/, build/embed/), found from
// the server bundle (build/server/index.js) or, when the code runs from app/ (vite dev,
// tests in process), from the project's build folder.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export function builtFile(relative: string, from: string = import.meta.url): string {
  const here = path.dirname(fileURLToPath(from));
  const candidates = [path.join(here, "..", relative)];
  for (let dir = here; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    candidates.push(path.join(dir, process.env.BUILD_DIR ?? "build", relative));
  }
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`${relative} not found: run npm run build`);
  return found;
}
