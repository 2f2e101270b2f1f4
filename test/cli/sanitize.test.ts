/**
 * Unit tests of the CLI's terminal sanitizer (src/cli/sanitize.ts) and of the output layers that
 * use it: the table renderer keeps a value on its row, the follow timeline renders what agents
 * wrote without any escape sequence of theirs while our own colors survive.
 */
import { describe, expect, it } from "vitest";
import pc from "picocolors";
import { safeData, safeJson, safeText, singleLine } from "../../src/cli/sanitize.js";
import { table } from "../../src/cli/output.js";
import { TimelineRenderer } from "../../src/cli/timeline.js";
import type { AgentEvent } from "../../src/sdk/index.js";

const ESC = "\u001b";
const BEL = "\u0007";
const ST = `${ESC}\\`;

/** Any character a terminal could act on: C0 but TAB/LF, DEL, C1, bidi embedding/override/isolate. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("safeText: escape sequences are removed", () => {
  it.each([
    ["CSI erase display", `a${ESC}[2Jb`],
    ["CSI color (SGR)", `a${ESC}[1;31mb${ESC}[0m`],
    ["CSI private mode (alternate screen)", `a${ESC}[?1049hb`],
    ["CSI cursor up + erase line", `a${ESC}[3A${ESC}[2Kb`],
    ["CSI device attributes reply", `a${ESC}[>0;276;0cb`],
    ["OSC title, BEL", `a${ESC}]0;pwned${BEL}b`],
    ["OSC title with spaces, ST", `a${ESC}]2;my fake title${ST}b`],
    ["OSC 52 clipboard write", `a${ESC}]52;c;ZXZpbA==${BEL}b`],
    ["DCS", `a${ESC}Pq#0;2;0;0;0#1~~@@${ST}b`],
    ["SOS", `a${ESC}Xstart of string${ST}b`],
    ["PM", `a${ESC}^privacy message${ST}b`],
    ["APC", `a${ESC}_application command${ST}b`],
    ["two-byte RIS (full reset)", `a${ESC}cb`],
    ["two-byte save cursor", `a${ESC}7b`],
    ["charset designation", `a${ESC}(0b`],
    ["8-bit CSI", "a\u009b2Jb"],
    ["8-bit CSI color", "a\u009b31mb"],
    ["8-bit OSC, BEL", `a\u009d0;pwned${BEL}b`],
    ["8-bit OSC, 8-bit ST", "a\u009d52;c;ZXZpbA==\u009cb"],
    ["8-bit DCS", "a\u0090q#0\u009cb"],
    ["8-bit SOS", "a\u0098sos\u009cb"],
    ["8-bit PM", "a\u009epm\u009cb"],
    ["8-bit APC", "a\u009fapc\u009cb"],
  ])("%s", (_name, input) => {
    expect(safeText(input)).toBe("ab");
  });

  it("keeps the text of an OSC 8 hyperlink and drops the link", () => {
    expect(safeText(`see ${ESC}]8;;https://evil.example${ST}the docs${ESC}]8;;${ST}.`)).toBe("see the docs.");
  });

  it("a multi-line OSC payload is removed with its line breaks (a terminal would hide it too)", () => {
    expect(safeText(`a${ESC}]0;x\ny${BEL}b`)).toBe("ab");
  });
});

describe("safeText: what is not a complete sequence shows as a placeholder", () => {
  it.each([
    ["unterminated CSI at the end", `ok ${ESC}[2`, "ok ␛[2"],
    ["unterminated OSC at the end", `ok ${ESC}]0;pwned`, "ok ␛]0;pwned"],
    ["unterminated 8-bit OSC at the end", "ok \u009d0;pwned", "ok �0;pwned"],
    ["a lone ESC at the end", `ok ${ESC}`, "ok ␛"],
    ["a lone 8-bit CSI at the end", "ok \u009b", "ok �"],
    ["an OSC aborted by a CSI", `a${ESC}]0;x${ESC}[2Jb${BEL}c`, "a␛]0;xb␇c"],
    ["ESC ESC [ 2 J (the removal cannot assemble a new sequence)", `${ESC}${ESC}[2J[2J`, "␛[2J"],
  ])("%s", (_name, input, expected) => {
    expect(safeText(input)).toBe(expected);
  });

  it("a sequence split over two strings (two streamed deltas) is harmless in each half", () => {
    const halves = [`copy ${ESC}]52;c;`, `ZXZpbA==${BEL} done`, `x ${ESC}[`, "2J y", "z \u009d0;", `t${BEL}`];
    const shown = halves.map(safeText);
    expect(shown).toEqual(["copy ␛]52;c;", "ZXZpbA==␇ done", "x ␛[", "2J y", "z �0;", "t␇"]);
  });
});

describe("safeText: control characters", () => {
  it("replaces C0 controls but TAB and LF by their control pictures, DEL by ␡", () => {
    expect(safeText("nul\u0000 bel\u0007 bs\u0008 vt\u000b ff\u000c so\u000e us\u001f del\u007f")).toBe(
      "nul␀ bel␇ bs␈ vt␋ ff␌ so␎ us␟ del␡",
    );
  });

  it("keeps TAB and LF; CRLF becomes LF; a lone CR (which would overwrite the line) shows as ␍", () => {
    expect(safeText("a\tb\nc\r\nd")).toBe("a\tb\nc\nd");
    expect(safeText("progress 10%\rprogress 99%\r")).toBe("progress 10%␍progress 99%␍");
  });

  it("replaces C1 controls outside sequences (NEL, IND, …) by U+FFFD", () => {
    expect(safeText("a\u0080b\u0085c\u0084d\u009ce")).toBe("a�b�c�d�e");
  });

  it("replaces every bidi embedding, override and isolate control by U+FFFD; keeps LRM/RLM/ALM", () => {
    const bidi = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"];
    for (const ch of bidi) expect(safeText(`if (x${ch} ok)`)).toBe("if (x� ok)");
    // The Trojan Source shape: an RLO makes "admin" display reversed.
    expect(safeText("user\u202enimda\u202c")).toBe("user�nimda�");
    expect(safeText("a\u200eb\u200fc\u061cd")).toBe("a\u200eb\u200fc\u061cd");
  });

  it("leaves ordinary Unicode untouched (emoji, ZWJ sequences, flags, CJK, combining marks, RTL)", () => {
    const text =
      "déjà vu — 漢字かな交じり文 한국어 👩‍💻 🇫🇷 👍🏽 e\u0301 שלום עולם مرحبا \u00a0nbsp ½ € ✓ ␛ (a real picture)";
    expect(safeText(text)).toBe(text);
  });

  it("no character a terminal acts on survives, whatever the mix (seeded fuzz)", () => {
    const alphabet = [ESC, "[", "]", "P", "X", "^", "_", "\\", BEL, "\u009b", "\u009c", "\u009d", "\u0090"];
    alphabet.push(
      "\u0000",
      "\r",
      "\n",
      "\t",
      "\u007f",
      "\u0085",
      "\u202e",
      "\u2066",
      "0",
      ";",
      "m",
      "J",
      "a",
      "é",
    );
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 3000; i++) {
      const len = next() % 40;
      let s = "";
      for (let j = 0; j < len; j++) s += alphabet[next() % alphabet.length];
      const out = safeText(s);
      expect(ACTIVE.test(out), JSON.stringify(s)).toBe(false);
      // Printable characters of the input other than sequence parts are not invented.
      for (const ch of out) expect(alphabet.includes(ch) || "␛␇␀␍␡�".includes(ch), ch).toBe(true);
    }
  });

  it("is quick on long adversarial input (no catastrophic backtracking)", () => {
    const inputs = [
      `${ESC}]`.repeat(100_000),
      `${ESC}[${"1;".repeat(200_000)}`,
      `\u009d${"x".repeat(200_000)}`,
      `${ESC}]0;${"y".repeat(100)}`.repeat(10_000),
    ];
    const t0 = performance.now();
    for (const s of inputs) expect(ACTIVE.test(safeText(s))).toBe(false);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe("singleLine", () => {
  it("shows line breaks as ␤ and tabs as spaces; colors are kept", () => {
    expect(singleLine("a\nb\r\nc\td")).toBe("a␤b␤c d");
    expect(singleLine(`${ESC}[1mbold${ESC}[22m`)).toBe(`${ESC}[1mbold${ESC}[22m`);
  });
});

describe("safeData", () => {
  it("sanitizes every string of nested data, keys included, and leaves the rest and the input alone", () => {
    const input = {
      name: `evil${ESC}[2J`,
      count: 3,
      ok: true,
      none: null,
      list: [`x${ESC}]0;t${BEL}`, 7, { [`k${ESC}[1m`]: "\u009b2J" }],
    };
    const copy = structuredClone(input);
    expect(safeData(input)).toEqual({
      name: "evil",
      count: 3,
      ok: true,
      none: null,
      list: ["x", 7, { k: "" }],
    });
    expect(input).toEqual(copy);
  });
});

describe("safeJson", () => {
  const value = {
    label: `a${ESC}[2J\u0000b`,
    c1: "x\u009b2J\u009d0;t\u0007\u0085",
    bidi: "user\u202enimda\u202c \u2066i\u2069",
    del: "\u007f",
    unicode: "漢字 👩‍💻 é",
  };

  it("escapes C1, DEL and bidi controls as \\uXXXX; C0 stays escaped by JSON.stringify", () => {
    for (const indent of [0, 2]) {
      const text = safeJson(value, indent);
      expect(ACTIVE.test(text.replace(/\n/g, ""))).toBe(false);
      expect(text).toContain("\\u009b2J\\u009d0;t\\u0007\\u0085");
      expect(text).toContain("user\\u202enimda\\u202c \\u2066i\\u2069");
      expect(text).toContain("\\u001b[2J\\u0000b");
      expect(text).toContain('"\\u007f"');
      expect(text).toContain("漢字 👩‍💻 é");
      // Still valid JSON that parses to the very same value.
      expect(JSON.parse(text)).toEqual(value);
    }
    expect(safeJson(value, 2)).toBe(
      JSON.stringify(value, null, 2).replace(
        /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
      ),
    );
  });

  it("throws a TypeError for a value without a JSON form", () => {
    expect(() => safeJson(undefined)).toThrow(TypeError);
    expect(() => safeJson(() => 1)).toThrow(/no JSON form/);
  });
});

describe("table", () => {
  it("a value with a line break stays on its row; colored cells keep their colors", () => {
    const c = pc.createColors(true);
    const out = table(
      [c.dim("NAME"), c.dim("ROOT")],
      [[c.bold("a"), safeText("/x\ndemo  HEALTHY  /forged")]],
    );
    const lines = out.split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(c.dim("NAME"));
    expect(lines[1]).toBe(`${c.bold("a")}     /x␤demo  HEALTHY  /forged`);
  });
});

describe("TimelineRenderer sanitizes what agents and users wrote", () => {
  const base = {
    id: "gid",
    cursor: "c",
    ts: "2026-11-29T12:00:00.000Z",
    streamKey: "a",
    workspace: "demo",
    agentId: "a",
  };
  const attack = `${ESC}[2J${ESC}]0;pwned${BEL}${ESC}]52;c;ZXZpbA==${BEL}\u0000\u009b2J`;

  it("agent text, tool input and result, prompt, input and names: visible text kept, no escapes but our colors", () => {
    const events: AgentEvent[] = [
      {
        ...base,
        __typename: "AgentSpawnedEvent",
        seq: 1,
        name: `lbl${attack}`,
        spec: {
          prompt: `do it${attack} now`,
          model: null,
          provider: null,
          toolAllowlist: null,
          source: null,
          label: null,
          frontmatterPath: null,
          isolated: true,
          interactive: false,
        },
      } as AgentEvent,
      {
        ...base,
        __typename: "TurnStartedEvent",
        seq: 2,
        turnIndex: 0,
        turnModel: `m${attack}`,
      } as AgentEvent,
      {
        ...base,
        __typename: "OutputEvent",
        seq: 3,
        turnIndex: 0,
        blockIndex: 0,
        stream: "TEXT",
        text: `Hello${attack} world\r\nnext`,
      },
      {
        ...base,
        __typename: "ToolFinishedEvent",
        seq: 4,
        turnIndex: 0,
        toolUseId: "t1",
        name: `Bash${attack}`,
        ok: true,
        input: { [`cmd${ESC}[1m`]: `echo${attack}`, n: "\u009d0;x\u0007" },
        inputRaw: "{}",
        resultText: `line1${attack}\nline2\u202e`,
        truncated: false,
        durationMs: 5,
      } as AgentEvent,
      { ...base, __typename: "InputSentEvent", seq: 5, text: `you${attack}` } as AgentEvent,
    ];
    for (const colors of [false, true]) {
      let s = "";
      const c = pc.createColors(colors);
      const r = new TimelineRenderer((t) => (s += t), c);
      for (const e of events) r.event(e);
      r.end();
      // Only our own SGR color codes may remain.
      // eslint-disable-next-line no-control-regex
      const withoutOurColors = s.replace(/\u001b\[\d+m/g, "");
      expect(ACTIVE.test(withoutOurColors), JSON.stringify(s)).toBe(false);
      expect(s).not.toContain("pwned");
      expect(s).not.toContain("ZXZpbA==");
      const plain = withoutOurColors;
      expect(plain).toContain("▶ spawned lbl␀ in demo");
      expect(plain).toContain("prompt: do it␀ now");
      expect(plain).toContain("Hello␀ world\n         next");
      expect(plain).toContain('✓ Bash␀ {"cmd":"echo␀","n":""}');
      expect(plain).toContain("│ line1␀\n");
      expect(plain).toContain("│ line2�\n");
      expect(plain).toContain("» you: you␀");
      if (colors) expect(s).toContain(c.bold("Bash␀"));
    }
  });
});
