/**
 * What the newcomer/attacker review of issue 11 found, each as the attack it tried: the audit log
 * as a disk filler, arguments validated before the role was checked, the local token sent to
 * whatever listens on a loopback port, token-less WebSockets crowding out the CLI/SDK, secrets in
 * arguments and base URLs, roots above the data dir, key redirection by a workspace-limited
 * admin, revoking one's own token mid-request, and session rows per visit.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { findVerifiedLocalToken, writeEndpointRecord } from "../../src/auth/local-credentials.js";
import { MAX_AUDIT_ARGS_BYTES, REDACTED, REFUSALS_PER_WINDOW } from "../../src/auth/audit.js";
import { createProsperoClient, WorkspacesDocument } from "../../src/sdk/index.js";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { sqliteOf } from "../helpers/store.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { tmpDir } from "../helpers/tmp.js";
import { auditAfter, lastAuditId } from "./support.js";

let h: AppHarness;
let viewer = "";
beforeAll(async () => {
  h = await startAppHarness();
  viewer = await h.createToken({ name: "rv-viewer", role: "VIEWER" });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

type Result = { __typename: string; code?: string; message?: string };
const RESULT = "__typename ... on Error { code message }";

describe("the audit log is no disk filler", () => {
  it("a viewer's oversized, aliased mutation is FORBIDDEN before validation; rows stay small and bounded per token", async () => {
    const huge = "x".repeat(300_000);
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: spawnAgent(input: $i) { ${RESULT} }`).join(
      " ",
    );
    const input = {
      workspace: "demo",
      prompt: huge,
      label: "y".repeat(250), // over the 200-character limit: invalid input
      toolAllowlist: Array.from({ length: 300 }, () => "z".repeat(1_900)),
    };
    const since = await lastAuditId(h);
    const bytesBefore = fs.statSync(sqliteOf(h.app.db).file).size;
    for (let n = 0; n < 3; n++) {
      const r = await h.gql<Record<string, Result>>(
        `mutation M($i: SpawnAgentInput!) { ${aliases} }`,
        { i: input },
        viewer,
      );
      // Refused for the role, not for the over-long label: who may call it is decided first.
      for (const v of Object.values(r.data ?? {}))
        expect(v).toMatchObject({ __typename: "ForbiddenError", code: "FORBIDDEN" });
    }
    await h.app.writer.flush();
    const rows = (await auditAfter(h, since)).filter((e) => e.operation === "spawnAgent");
    // 90 refused calls by one token: at most REFUSALS_PER_WINDOW rows, the rest only counted.
    expect(rows.length).toBeLessThanOrEqual(REFUSALS_PER_WINDOW);
    expect(rows.every((e) => e.denied && e.result === "FORBIDDEN" && e.tokenName === "rv-viewer")).toBe(true);
    for (const e of rows)
      expect(JSON.stringify(e.args).length).toBeLessThanOrEqual(MAX_AUDIT_ARGS_BYTES + 200);
    expect(h.app.audit.stats.suppressed).toBeGreaterThan(0);
    // Tens of megabytes were posted; the database grew by far less than one of them.
    expect(fs.statSync(sqliteOf(h.app.db).file).size - bytesBefore).toBeLessThan(2_000_000);
  });

  it("an operator's long arguments are stored cut: strings, lists and the whole row bounded", async () => {
    const op = await h.createToken({ name: "rv-operator", role: "OPERATOR" });
    const since = await lastAuditId(h);
    const r = await h.gql<{ spawnAgent: Result }>(
      `mutation($i: SpawnAgentInput!) { spawnAgent(input: $i) { ${RESULT} } }`,
      { i: { workspace: "demo", prompt: `p${"q".repeat(50_000)}`, source: "../nope" } },
      op,
    );
    expect(r.data?.spawnAgent.__typename).toBe("ValidationError");
    const [row] = (await auditAfter(h, since)).filter((e) => e.operation === "spawnAgent");
    const args = row!.args as { input: { prompt: string } };
    expect(args.input.prompt).toMatch(/^pq+… \(50001 characters\)$/);
    expect(args.input.prompt.length).toBeLessThan(1_100);
  });
});

describe("secrets stay out of arguments and configs", () => {
  it("revoking with a secret instead of a name is refused, and the secret is not stored", async () => {
    const since = await lastAuditId(h);
    const r = await h.gql<{ revokeToken: Result }>(
      `mutation($t: String!) { revokeToken(input: { token: $t }) { ${RESULT} } }`,
      { t: viewer },
    );
    expect(r.data?.revokeToken).toMatchObject({ __typename: "ValidationError", code: "BAD_USER_INPUT" });
    expect(r.data?.revokeToken.message).not.toContain(viewer);
    const rows = await auditAfter(h, since);
    expect(JSON.stringify(rows)).not.toContain(viewer);
    expect(JSON.stringify(rows)).toContain(REDACTED);
    // The token still works: nothing was revoked.
    expect((await h.gql(`{ viewer { name } }`, {}, viewer)).data).toEqual({ viewer: { name: "rv-viewer" } });
  });

  it("a base URL with user info or a query is refused (base URLs are shown to viewers)", async () => {
    for (const baseUrl of [
      "https://user:s3cret@api.example.com/",
      "https://api.example.com/?api_key=s3cret",
    ]) {
      const r = await h.gql<{ updateWorkspaceConfig: Result & { fieldErrors?: { path: string[] }[] } }>(
        `mutation($c: ProviderConfigInput!) { updateWorkspaceConfig(input: { workspace: "demo", config: $c }) { ${RESULT} ... on ValidationError { fieldErrors { path } } } }`,
        { c: { provider: "ANTHROPIC", baseUrl } },
      );
      expect(r.data?.updateWorkspaceConfig.__typename, baseUrl).toBe("ValidationError");
      expect(r.data?.updateWorkspaceConfig.fieldErrors?.[0]?.path).toEqual(["input", "config", "baseUrl"]);
    }
    const cfg = await h.gql<{ workspace: { config: { baseUrl: string | null } } }>(
      `{ workspace(name: "demo") { config { baseUrl } } }`,
    );
    expect(cfg.data?.workspace.config.baseUrl).toBeNull();
  });
});

describe("roots and keys", () => {
  it("a root at, inside or above the gateway's data dir is refused", async () => {
    const dataDir = h.app.dataDir;
    for (const root of [dataDir, path.dirname(dataDir)]) {
      const r = await h.gql<{ addWorkspace: Result }>(
        `mutation($r: String!) { addWorkspace(input: { name: "near-data", root: $r }) { ${RESULT} } }`,
        { r: root },
      );
      expect(r.data?.addWorkspace, root).toMatchObject({
        __typename: "ValidationError",
        code: "BAD_USER_INPUT",
      });
      expect(r.data?.addWorkspace.message).toMatch(/data dir/);
    }
  });

  it("only an admin not limited to workspaces may change where API keys are read from or sent", async () => {
    const scoped = await h.createToken({ name: "rv-demo-admin", role: "ADMIN", workspaces: ["demo"] });
    const update = (config: Record<string, unknown>, token?: string) =>
      h.gql<{ updateWorkspaceConfig: Result & { requiredRole?: string } }>(
        `mutation($c: ProviderConfigInput!) { updateWorkspaceConfig(input: { workspace: "demo", config: $c }) { ${RESULT} ... on ForbiddenError { requiredRole } } }`,
        { c: config },
        token,
      );
    const redirect = {
      provider: "ANTHROPIC",
      apiKeyFromEnv: "ANTHROPIC_API_KEY",
      baseUrl: "http://attacker.example/",
    };
    expect((await update(redirect, scoped)).data?.updateWorkspaceConfig).toMatchObject({
      __typename: "ForbiddenError",
      requiredRole: "ADMIN",
    });
    // A change that leaves keys where they are is the scoped admin's to make.
    expect((await update({ model: "m-2" }, scoped)).data?.updateWorkspaceConfig.__typename).not.toBe(
      "ForbiddenError",
    );
    expect(h.app.fleet.registry.get("demo").config.baseUrl).toBeNull();
  });
});

describe("tokens in use", () => {
  it("revoking the token a request is made with still answers that request", async () => {
    const self = await h.createToken({ name: "rv-self", role: "ADMIN" });
    const r = await h.gql<{ revokeToken: Result }>(
      `mutation { revokeToken(input: { token: "rv-self" }) { ${RESULT} } }`,
      {},
      self,
    );
    expect(r.data?.revokeToken.__typename).toBe("RevokeTokenPayload");
    const after = await fetch(`${h.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${self}` },
      body: JSON.stringify({ query: "{ version }" }),
    });
    expect(after.status).toBe(401);
  });

  it("token names that look like an id or a secret are refused (revoke takes names and ids)", async () => {
    for (const name of ["0123456789ab", "prospero_abc"]) {
      const r = await h.gql<{ createToken: Result }>(
        `mutation($n: String!) { createToken(input: { name: $n, role: VIEWER }) { ${RESULT} } }`,
        { n: name },
      );
      expect(r.data?.createToken.__typename, name).toBe("ValidationError");
    }
  });

  it("opening the sign-in URL again keeps the browser's session instead of adding one", async () => {
    const open = (cookie?: string) =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        const u = new URL(`${h.url}/?token=${encodeURIComponent(h.token)}`);
        http
          .get(
            {
              host: u.hostname,
              port: u.port,
              path: u.pathname + u.search,
              headers: cookie ? { cookie } : {},
            },
            resolve,
          )
          .on("error", reject);
      });
    const first = await open();
    const cookie = String(first.headers["set-cookie"]?.[0]).split(";")[0]!;
    const sessions = await h.app.db.prisma.session.count();
    const second = await open(cookie);
    expect(second.statusCode).toBe(303);
    expect(second.headers["set-cookie"]).toBeUndefined();
    expect(await h.app.db.prisma.session.count()).toBe(sessions);
  });
});

describe("the local token goes only to the gateway that owns it", () => {
  it("a program listening on the port gets nothing; the real gateway proves itself; a stale file is not sent", async () => {
    const seen: string[] = [];
    const fake = http.createServer((req, res) => {
      seen.push(String(req.headers.authorization ?? ""));
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ proof: "00".repeat(32) }));
    });
    await new Promise<void>((r) => fake.listen(0, "127.0.0.1", r));
    const port = (fake.address() as AddressInfo).port;
    const base = tmpDir("lt-");
    const runtime = path.join(base, "run");
    fs.mkdirSync(runtime, { mode: 0o700 });
    const tokenFile = path.join(base, "admin-token");
    fs.writeFileSync(tokenFile, `${h.token}\n`, { mode: 0o600 });
    const env = { HOME: base, XDG_RUNTIME_DIR: runtime, PROSPERO_DATA_DIR: path.join(base, "none") };
    // A record for the fake's port naming a live process (ours) and a real token file.
    writeEndpointRecord({ url: `http://127.0.0.1:${port}`, port, pid: process.pid, tokenFile }, env);
    expect(await findVerifiedLocalToken(`http://127.0.0.1:${port}`, env)).toBeNull();
    fake.close();
    expect(seen.every((a) => a === "")).toBe(true);
    // The harness's real gateway answers the challenge for its own admin token.
    expect(await findVerifiedLocalToken(h.url, h.env)).toBe(h.token);
    // A token file that no longer matches the gateway's admin token is not sent.
    const staleDir = tmpDir("lt-stale-");
    const staleRun = path.join(staleDir, "run");
    fs.mkdirSync(staleRun, { mode: 0o700 });
    const stale = path.join(staleDir, "admin-token");
    fs.writeFileSync(stale, "prospero_stale_stale_stale_stale_stale_stale_xx\n", { mode: 0o600 });
    const staleEnv = { HOME: staleDir, XDG_RUNTIME_DIR: staleRun };
    writeEndpointRecord(
      { url: h.url, port: h.app.gateway.port, pid: process.pid, tokenFile: stale },
      staleEnv,
    );
    expect(await findVerifiedLocalToken(h.url, staleEnv)).toBeNull();
  });
});

describe("connections that never authenticate", () => {
  it("cannot crowd out the SDK: it sends its token with the upgrade", async () => {
    const url = `${h.url.replace("http", "ws")}/graphql`;
    const holders: WebSocket[] = [];
    for (let i = 0; i < 40; i++) {
      const ws = new WebSocket(url, "graphql-transport-ws");
      ws.on("error", () => {});
      holders.push(ws);
    }
    await waitFor(
      () => holders.every((w) => w.readyState !== WebSocket.CONNECTING),
      5_000,
      "holders settled",
    );
    try {
      const c = createProsperoClient({ url: h.url, token: h.token, retry: false });
      const names = await new Promise<string[]>((resolve, reject) => {
        // A query over the WebSocket (graphql-ws runs queries too).
        c.subscribe(
          WorkspacesDocument,
          {},
          {
            onNext: (d) => resolve(d.workspaces.map((w) => w.name)),
            onError: reject,
          },
        );
      });
      expect(names).toEqual(["demo"]);
      await c.dispose();
    } finally {
      for (const w of holders) w.terminate();
    }
  });
});
