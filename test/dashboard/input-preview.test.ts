/**
 * The timeline's one-line hint of a tool's input (dashboard/src/ui/timeline-view.ts): the first
 * string argument as the model wrote it, whatever order the store gives the object's keys back in
 * (PostgreSQL's jsonb sorts them: `content` before `file_path`).
 */
import { describe, expect, it } from "vitest";
import { inputPreview } from "../../dashboard/src/ui/timeline-view.js";

describe("inputPreview", () => {
  it("takes the first string argument in the order of inputRaw, not of the stored object", () => {
    const raw = JSON.stringify({ file_path: "notes/a.md", content: "# Notes" });
    const storedInJsonbOrder = { content: "# Notes", file_path: "notes/a.md" };
    expect(inputPreview(storedInJsonbOrder, raw)).toBe("notes/a.md");
    // Without the raw text (or while it is not JSON yet) the stored object's order is all there is.
    expect(inputPreview(storedInJsonbOrder, null)).toBe("# Notes");
    expect(inputPreview(storedInJsonbOrder, '{"file_path": "notes/a')).toBe("# Notes");
    expect(inputPreview("ls -la", null)).toBe("ls -la");
    expect(inputPreview({ n: 1 }, '{"n":1}')).toBe("");
    expect(inputPreview({}, "x".repeat(10))).toBe("");
    expect(inputPreview(null, JSON.stringify({ command: "y".repeat(100) }))).toBe("y".repeat(80));
  });
});
