import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";

describe("the gateway's log", () => {
  it("never writes credentials, wherever they sit in a logged object", () => {
    const lines: string[] = [];
    const log = createLogger("info", { write: (s: string) => void lines.push(s) });
    log.info(
      {
        req: { headers: { authorization: "Bearer prospero_x", cookie: "prospero_session_1=abc", host: "h" } },
        secret: "prospero_y",
        token: { name: "ci", secretHash: "deadbeef" },
      },
      "request",
    );
    const text = lines.join("");
    expect(text).not.toMatch(/prospero_x|prospero_y|abc|deadbeef/);
    expect(JSON.parse(text)).toMatchObject({
      req: { headers: { authorization: "[redacted]", cookie: "[redacted]", host: "h" } },
      secret: "[redacted]",
      token: { name: "ci", secretHash: "[redacted]" },
    });
  });
});
