/**
 * Frames are stored verbatim (issue 12 item 11): a line that is not valid UTF-8 keeps its exact
 * bytes, so the stored frames equal stdout.ndjson byte for byte — from the file (default) and from
 * the socket (socket-only ingest). The worker is the caliband double writing raw bytes.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { onCleanup } from "../helpers/cleanup.js";
import { framesScript, type Frame } from "../support/fake-scripts.js";
import { startDaemon, startFleet, waitFor, type FleetHarness } from "../helpers/fleet-harness.js";
import { runEndFrame, turnEndFrame } from "../helpers/paced-run.js";

/** A run whose lines include bytes that are not UTF-8: Latin-1 text in a delta, a truncated sequence, garbage. */
function frames(): Frame[] {
  const delta = (text: string) =>
    JSON.stringify({ type: "AssistantTextDelta", turn_index: 0, content_block_index: 0, text });
  const latin1 = Buffer.concat([
    Buffer.from('{"type":"AssistantTextDelta","turn_index":0,"content_block_index":0,"text":"caf'),
    Buffer.from([0xe9]), // "é" in Latin-1: not UTF-8
    Buffer.from(' "}'),
  ]);
  return [
    { type: "TurnStart", turn_index: 0, message_id: "m0", model: "claude-sonnet-4-5" },
    delta("plain ascii "),
    latin1,
    Buffer.from([0x7b, 0x22, 0xf0, 0x9f, 0x98, 0x22, 0x7d]), // {"<truncated 4-byte sequence>"}
    Buffer.from([0xff, 0xfe, 0x00, 0x41]),
    delta("valid UTF-8: caf\u00e9 \u{1f600} "),
    turnEndFrame(5),
    runEndFrame(5),
  ];
}

async function run(forceSocketIngest: boolean): Promise<{ h: FleetHarness; id: string; file: Buffer }> {
  const d = await startDaemon({ frameDelayMs: 1, script: () => framesScript(frames()) });
  onCleanup(() => d.close());
  const h = await startFleet({ runtimeDir: d.ws.runtime, forceSocketIngest });
  onCleanup(() => h.close());
  await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
  const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "bytes" });
  await waitFor(() => h.fleet.state.agent(agent.id)?.status === "done", 10_000, "done");
  const file = fs.readFileSync(path.join(d.daemon.record(agent.id)!.session_dir, "stdout.ndjson"));
  return { h, id: agent.id, file };
}

async function stored(h: FleetHarness, id: string): Promise<Buffer> {
  const rows = await h.db.prisma.frame.findMany({ where: { agentId: id }, orderBy: { line: "asc" } });
  expect(rows.map((r) => r.line)).toEqual(rows.map((_, i) => i));
  return Buffer.concat(
    rows.flatMap((r) => [r.bytes ? Buffer.from(r.bytes) : Buffer.from(r.text, "utf8"), Buffer.from("\n")]),
  );
}

describe("frames equal their lines byte for byte (item 11)", () => {
  for (const socket of [false, true]) {
    it(`${socket ? "socket" : "file"} mode: lines that are not valid UTF-8 keep their exact bytes`, async () => {
      const { h, id, file } = await run(socket);
      expect(file.includes(Buffer.from([0xe9]))).toBe(true);
      expect((await stored(h, id)).equals(file)).toBe(true);
      const rows = await h.db.prisma.frame.findMany({ where: { agentId: id }, orderBy: { line: "asc" } });
      // Only the invalid lines carry bytes; their text is the lossy decoding, valid lines are exact text.
      expect(rows.map((r) => r.bytes !== null)).toEqual([
        false,
        false,
        true,
        true,
        true,
        false,
        false,
        false,
      ]);
      expect(rows[2]!.text).toContain("caf\ufffd");
      expect(rows[5]!.text).toContain("caf\u00e9 \u{1f600}");
      // The Latin-1 delta is still normalized (its text decoded with U+FFFD); the run is complete.
      const texts = (await h.store.readStream(id, 0, 1000))
        .filter((e) => e.kind === "output")
        .map((e) => (e.kind === "output" ? e.payload.text : ""))
        .join("");
      expect(texts).toContain("caf\ufffd");
      expect(await h.db.prisma.agent.findUnique({ where: { id } })).toMatchObject({ outcome: "EndOfTurn" });
    });
  }
});
