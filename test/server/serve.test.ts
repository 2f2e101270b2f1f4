import fs from "node:fs";
import path from "node:path";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import {
  runProspero,
  serveToken,
  startServe,
  waitForStatus,
  type ServeProcess,
} from "../helpers/serve-process.js";
import { tmpDir } from "../helpers/tmp.js";

const running: ServeProcess[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill("SIGKILL");
      await p.exited;
    }
  }
});

async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const p = await startServe(args, env);
  running.push(p);
  return p;
}

async function logged(p: ServeProcess, re: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const m = re.exec(p.stderr());
    if (m) return m[0];
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`log never matched ${re}:\n${p.stderr()}`);
}

async function gql(url: string, query: string, token?: string): Promise<unknown> {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  return res.json();
}

describe("prospero serve", () => {
  it("boots on an empty data dir: /healthz, /readyz JSON, { __typename } over HTTP and graphql-ws, GraphiQL", async () => {
    const data = path.join(tmpDir(), "nested", "data");
    const p = await serve(["--data-dir", data]);
    expect((await (await fetch(`${p.url}/healthz`)).text()).trim()).toBe("ok");
    const ready = await waitForStatus(`${p.url}/readyz`, 200);
    expect(await ready.json()).toMatchObject({ ready: true, migrationsApplied: true, storeWritable: true });
    expect(fs.existsSync(path.join(data, "prospero.db"))).toBe(true);

    // Closed by default: nothing without the token, which the first start created (mode 0600).
    const token = await serveToken(p);
    expect(fs.readFileSync(path.join(data, "admin-token"), "utf8").trim()).toBe(token);
    expect(fs.statSync(path.join(data, "admin-token")).mode & 0o777).toBe(0o600);
    expect(await gql(p.url, "{ __typename }")).toMatchObject({
      errors: [{ extensions: { code: "UNAUTHENTICATED" } }],
    });
    expect(await gql(p.url, "{ __typename }", token)).toEqual({ data: { __typename: "Query" } });
    // Not a TTY: the log names the token file but does not print the token.
    expect(p.stderr()).not.toContain(token);

    const client = createClient({
      url: `${p.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${token}` },
    });
    const viaWs = await new Promise((resolve, reject) => {
      let result: unknown;
      client.subscribe(
        { query: "{ __typename readiness { ready } }" },
        { next: (v) => (result = v), error: reject, complete: () => resolve(result) },
      );
    });
    await client.dispose();
    expect(viaWs).toEqual({ data: { __typename: "Query", readiness: { ready: true } } });

    const page = await fetch(`${p.url}/graphql`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<title>Prospero GraphiQL<\/title>[\s\S]*graphiql/i);
  });

  it("exits 0 on SIGTERM, keeps the data across a restart, and applies no migration twice", async () => {
    const data = tmpDir();
    const first = await serve(["--data-dir", data]);
    await waitForStatus(`${first.url}/readyz`, 200);
    expect(await logged(first, /"applied":\[[^\]]*\]/)).toMatch(/"applied":\["\d+_init",/);
    const token = await serveToken(first);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const second = await serve(["--data-dir", data]);
    await waitForStatus(`${second.url}/readyz`, 200);
    expect(await logged(second, /"applied":\[[^\]]*\]/)).toBe('"applied":[]');
    // The admin token survives the restart (same file, same secret, still accepted).
    expect(await serveToken(second)).toBe(token);
    expect(await gql(second.url, "{ viewer { name role } }", token)).toEqual({
      data: { viewer: { name: "admin", role: "ADMIN" } },
    });
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
  });

  it("SIGTERM with a WebSocket client that stopped reading: exits 0 after the 5 s grace, not ws's 30 s close timeout", async () => {
    const p = await serve(["--data-dir", tmpDir()]);
    await waitForStatus(`${p.url}/readyz`, 200);
    const token = await serveToken(p);
    const ws = new WebSocket(`${p.url.replace("http", "ws")}/graphql`, "graphql-transport-ws", {
      headers: { authorization: `Bearer ${token}` },
    });
    const acked = new Promise<void>((resolve) =>
      ws.on("message", (d: Buffer) => {
        if (d.toString().includes("connection_ack")) resolve();
      }),
    );
    ws.on("error", () => {}); // the server ends the connection without a close handshake
    await new Promise((r) => ws.once("open", r));
    ws.send(JSON.stringify({ type: "connection_init" }));
    await acked;
    // The client stops reading: it never sees the server's close frame, so never answers it.
    (ws as unknown as { _socket: Socket })._socket.pause();
    const t0 = Date.now();
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(4_500); // it did wait for the client during the grace
    expect(took).toBeLessThan(20_000); // and did not wait for ws's 30 s close timeout
    ws.terminate();
  }, 45_000);

  it("a bad setting exits 2 naming the setting and the accepted form", async () => {
    const res = await runProspero(["serve", "--port", "99999"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/invalid --port \/ PROSPERO_PORT.*expected an integer port 0–65535/);
    const env = await runProspero(["serve"], { PROSPERO_LOG_LEVEL: "chatty" });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/PROSPERO_LOG_LEVEL/);
    const unknown = await runProspero(["serve", "--frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option '--frobnicate'/);
  });

  it("a database file that is not SQLite: clear message, exit 1, file untouched", async () => {
    const data = tmpDir();
    fs.writeFileSync(path.join(data, "prospero.db"), "not a database");
    const res = await runProspero(["serve", "--port", "0", "--data-dir", data]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/is not a SQLite database; refusing to use or overwrite it/);
    expect(fs.readFileSync(path.join(data, "prospero.db"), "utf8")).toBe("not a database");
  });

  it("an address already in use: clear message, exit 1", async () => {
    const p = await serve(["--data-dir", tmpDir()]);
    const port = new URL(p.url).port;
    const res = await runProspero(["serve", "--port", port, "--data-dir", tmpDir()]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/EADDRINUSE/);
  });
});
