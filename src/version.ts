/** Prospero's version, read from package.json at start. */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** Semantic version of this build, e.g. `0.1.0`. */
export const VERSION: string = (require("../package.json") as { version: string }).version;
