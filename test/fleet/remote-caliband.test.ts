/**
 * Calibands on other hosts (issue 18 item 5): a workspace served by a caliband in `--listen` mode
 * (TCP + TLS + bearer token, protocol §6), registered and driven through the GraphQL API of a real
 * gateway on a real port. The double serves TLS with a throwaway CA; TCP proxies give the same
 * daemon other addresses, so one daemon answers a right and a wrong client.
 *
 * What a user sees: the workspace is healthy, a run on it is spawned, streamed and stored (through
 * the socket only: frames equal the worker's transcript byte for byte), its changes are not
 * captured with the reason said, and no response holds the token. A wrong CA, a certificate for
 * another name, a wrong token and a closed port each give their own health reason. Bad settings are
 * refused with typed errors and register nothing; a token variable outside PROSPERO_CALIBAND_TOKEN…
 * or a credential file outside the credentials directory is refused (they would be sent to a host
 * an admin names).
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { initGitRepo } from "../support/temp-workspace.js";
import { makeTestTls, type TestTls } from "../support/tls.js";

const TOKEN = "tok-remote-7f3a9c";
const TOKEN_VAR = "PROSPERO_CALIBAND_TOKEN_REMOTE_TEST";
const WRONG_VAR = "PROSPERO_CALIBAND_TOKEN_WRONG_TEST";

let h: AppHarness;
let tls: TestTls;
let otherTls: TestTls;
let daemon: FakeCaliband;
let tmp: string;
let creds: string;
let port: number;
const proxies: TcpProxy[] = [];

/** A free port with nothing listening on it (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const p = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return p;
}

/** Another address for the same daemon. */
async function proxyPort(): Promise<number> {
  const p = await startTcpProxy(port);
  proxies.push(p);
  return Number(new URL(p.url).port);
}

const ADD = `mutation($input: AddWorkspaceInput!) { addWorkspace(input: $input) {
  __typename
  ... on AddWorkspacePayload { created workspace { name root remote { endpoint caFile serverName tokenFromEnv tokenFile } } }
  ... on ValidationError { message fieldErrors { path message } }
  ... on Error { message }
} }`;

interface AddResult {
  addWorkspace: {
    __typename: string;
    message?: string;
    fieldErrors?: { path: string[]; message: string }[];
    workspace?: { name: string; root: string; remote: Record<string, string | null> | null };
  };
}

function add(input: Record<string, unknown>, as?: string) {
  return h.gql<AddResult>(ADD, { input }, as);
}

/** The workspace's health as the API reports it. */
async function healthOf(name: string): Promise<{ state: string; reason: string | null }> {
  const r = await h.gql<{ workspace: { health: { state: string; reason: string | null } } | null }>(
    `query($n: String!) { workspace(name: $n) { health { state reason } } }`,
    { n: name },
  );
  return r.data!.workspace!.health;
}

/** Wait until `name` is unreachable and return its reason. */
async function unreachableReason(name: string): Promise<string> {
  const health = await waitFor(
    async () => {
      const hl = await healthOf(name);
      return hl.state === "UNREACHABLE" && hl.reason ? hl : null;
    },
    15_000,
    `${name} unreachable`,
  );
  return health.reason!;
}

function remote(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    endpoint: `tcp://127.0.0.1:${port}`,
    caFile: path.join(creds, "ca.pem"),
    serverName: "localhost",
    tokenFile: path.join(creds, "remote.token"),
    ...over,
  };
}

beforeAll(async () => {
  tls = makeTestTls();
  otherTls = makeTestTls();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prospero-remote-"));
  creds = path.join(tmp, "creds");
  fs.mkdirSync(creds, { mode: 0o700 });
  fs.writeFileSync(path.join(creds, "ca.pem"), tls.caPem);
  fs.writeFileSync(path.join(creds, "other-ca.pem"), otherTls.caPem);
  fs.writeFileSync(path.join(creds, "remote.token"), `${TOKEN}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(tmp, "outside.token"), `${TOKEN}\n`);
  fs.symlinkSync(path.join(tmp, "outside.token"), path.join(creds, "link.token"));
  // The daemon's "host": a root of its own, not a registered local root.
  const remoteRoot = path.join(tmp, "remote-host", "repo");
  fs.mkdirSync(remoteRoot, { recursive: true });
  initGitRepo(remoteRoot);
  daemon = await FakeCaliband.start({
    workspaceRoot: remoteRoot,
    dataBase: path.join(tmp, "remote-host", "agents"),
    frameDelayMs: 1,
    tcp: { listen: "127.0.0.1:0", cert: tls.certPem, key: tls.keyPem, token: TOKEN, agentPortBase: 0 },
  });
  const ep = daemon.endpoint;
  port = Number(ep.scheme === "tcp" ? ep.addr.split(":").pop() : 0);
  process.env[TOKEN_VAR] = TOKEN;
  process.env[WRONG_VAR] = "not-the-token";
  h = await startAppHarness({ register: false, config: { calibandCredentialsDirs: [creds] } });
}, 60_000);

afterAll(async () => {
  delete process.env[TOKEN_VAR];
  delete process.env[WRONG_VAR];
  await h?.close();
  for (const p of proxies) await p.close();
  await daemon?.close();
  tls?.cleanup();
  otherTls?.cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("a workspace on a TLS caliband (issue 18 item 5)", () => {
  it("is healthy through the API, runs an agent over TLS, and stores its frames equal to the transcript", async () => {
    const r = await add({ name: "remote", root: daemon.workspaceRoot, remote: remote() });
    expect(r.data?.addWorkspace.__typename, JSON.stringify(r)).toBe("AddWorkspacePayload");
    expect(r.data?.addWorkspace.workspace?.remote).toEqual({
      endpoint: `tcp://127.0.0.1:${port}`,
      caFile: path.join(creds, "ca.pem"),
      serverName: "localhost",
      tokenFromEnv: null,
      tokenFile: path.join(creds, "remote.token"),
    });
    await waitFor(async () => (await healthOf("remote")).state === "HEALTHY", 15_000, "remote healthy");

    const spawned = await h.gql<{ spawnAgent: { __typename: string; agent?: { agentId: string } } }>(
      `mutation { spawnAgent(input: { workspace: "remote", prompt: "hello over tls" }) {
        __typename ... on SpawnAgentPayload { agent { agentId } } ... on Error { message } } }`,
    );
    const id = spawned.data?.spawnAgent.agent?.agentId;
    expect(id ?? JSON.stringify(spawned)).toMatch(/^[0-9a-f]{12}$/);
    await waitFor(() => h.app.fleet.state.agent(id!)?.status === "done", 20_000, "remote run done");
    // The daemon advertised a TCP endpoint for the agent, and ingest followed it with the token.
    expect(daemon.record(id!)?.endpoint.scheme).toBe("tcp");
    const transcript = fs.readFileSync(path.join(daemon.record(id!)!.session_dir, "stdout.ndjson"));
    await waitFor(
      async () => (await h.app.db.prisma.frame.count({ where: { agentId: id! } })) === lines(transcript),
      10_000,
      "every line stored",
    );
    const rows = await h.app.db.prisma.frame.findMany({ where: { agentId: id! }, orderBy: { line: "asc" } });
    const stored = Buffer.concat(
      rows.flatMap((f) => [f.bytes ? Buffer.from(f.bytes) : Buffer.from(f.text, "utf8"), Buffer.from("\n")]),
    );
    expect(stored.equals(transcript)).toBe(true);
    // Its session dir is on the daemon's host: ingest used the socket only.
    const cursor = await h.app.db.prisma.ingestCursor.findUnique({ where: { agentId: id! } });
    expect(cursor?.mode).toBe("socket");

    const ws = await h.gql<{
      workspace: { sources: unknown[]; changeCapture: { active: boolean; reason: string | null } };
    }>(`{ workspace(name: "remote") { sources { name } changeCapture { active reason } } }`);
    expect(ws.data?.workspace.sources).toEqual([]);
    expect(ws.data?.workspace.changeCapture).toEqual({
      active: false,
      reason: expect.stringContaining("another host"),
    });
    // No response ever holds the token.
    const all = await h.gql(
      `{ workspaces { name remote { endpoint caFile serverName tokenFromEnv tokenFile } config { apiKeyFromEnv env { name } } } }`,
    );
    expect(JSON.stringify(all)).not.toContain(TOKEN);
  }, 60_000);

  it("an interactive agent takes input over its TLS endpoint", async () => {
    const spawned = await h.gql<{ spawnAgent: { agent?: { agentId: string } } }>(
      `mutation { spawnAgent(input: { workspace: "remote", prompt: "chat with me", interactive: true }) {
        __typename ... on SpawnAgentPayload { agent { agentId } } ... on Error { message } } }`,
    );
    const id = spawned.data?.spawnAgent.agent?.agentId;
    expect(id ?? JSON.stringify(spawned)).toMatch(/^[0-9a-f]{12}$/);
    await waitFor(() => h.app.fleet.state.agent(id!)?.status === "idle", 20_000, "remote run idle");
    for (const m of [
      `mutation($id: String!) { sendAgentInput(input: { agentId: $id, text: "ping" }) { __typename ... on Error { message } } }`,
      `mutation($id: String!) { endAgentInput(input: { agentId: $id }) { __typename ... on Error { message } } }`,
    ]) {
      const r = await h.gql<Record<string, { __typename: string }>>(m, { id });
      expect(Object.values(r.data ?? {})[0]?.__typename, JSON.stringify(r)).toMatch(/Payload$/);
    }
    await waitFor(() => h.app.fleet.state.agent(id!)?.status === "done", 20_000, "remote run done");
    await waitFor(
      async () =>
        (await h.app.db.prisma.frame.findMany({ where: { agentId: id! } })).some((f) =>
          f.text.includes("You said: ping"),
        ),
      10_000,
      "the answer stored",
    );
  }, 60_000);

  it("a token from an allowed environment variable works too", async () => {
    const r = await add({
      name: "remote-env",
      root: "/srv/elsewhere",
      remote: remote({
        endpoint: `tcp://127.0.0.1:${await proxyPort()}`,
        tokenFile: null,
        tokenFromEnv: TOKEN_VAR,
      }),
    });
    expect(r.data?.addWorkspace.__typename, JSON.stringify(r)).toBe("AddWorkspacePayload");
    await waitFor(
      async () => (await healthOf("remote-env")).state === "HEALTHY",
      15_000,
      "remote-env healthy",
    );
  }, 30_000);

  it("a wrong CA, a certificate for another name, a wrong token and a closed port each give their reason", async () => {
    const cases: { name: string; remote: Record<string, unknown>; reason: RegExp }[] = [
      {
        name: "wrong-ca",
        remote: remote({
          endpoint: `tcp://127.0.0.1:${await proxyPort()}`,
          caFile: path.join(creds, "other-ca.pem"),
        }),
        reason:
          /^TLS: the daemon's certificate at tls:\/\/127\.0\.0\.1:\d+ is not trusted by the CA in .*other-ca\.pem/,
      },
      {
        name: "wrong-name",
        remote: remote({ endpoint: `tcp://127.0.0.1:${await proxyPort()}`, serverName: "caliband.example" }),
        reason: /^TLS: the daemon's certificate at .* is not for the server name caliband\.example/,
      },
      {
        name: "wrong-token",
        remote: remote({
          endpoint: `tcp://127.0.0.1:${await proxyPort()}`,
          tokenFile: null,
          tokenFromEnv: WRONG_VAR,
        }),
        reason: new RegExp(`refused the bearer token \\(check the variable ${WRONG_VAR}\\)`),
      },
      {
        name: "closed-port",
        remote: remote({ endpoint: `tcp://127.0.0.1:${await closedPort()}` }),
        reason: /^connection refused at tls:\/\/127\.0\.0\.1:\d+: nothing listens there/,
      },
    ];
    for (const c of cases) {
      const r = await add({ name: c.name, root: `/srv/${c.name}`, remote: c.remote });
      expect(r.data?.addWorkspace.__typename, JSON.stringify(r)).toBe("AddWorkspacePayload");
    }
    const reasons = new Map<string, string>();
    for (const c of cases) reasons.set(c.name, await unreachableReason(c.name));
    for (const c of cases) expect(reasons.get(c.name), c.name).toMatch(c.reason);
    // Four different reasons: each matches its own pattern only, and none holds the token.
    for (const c of cases)
      for (const o of cases)
        if (o !== c) expect(reasons.get(c.name), `${c.name} vs ${o.name}`).not.toMatch(o.reason);
    for (const r of reasons.values()) expect(r).not.toContain(TOKEN);
    // The healthy one stayed healthy.
    expect((await healthOf("remote")).state).toBe("HEALTHY");
  }, 60_000);

  it("refuses bad settings with typed errors and registers nothing", async () => {
    const before = (await h.gql<{ workspaces: { name: string }[] }>(`{ workspaces { name } }`)).data!
      .workspaces;
    const bad: { input: Record<string, unknown>; field: string; message: RegExp }[] = [
      {
        input: { remote: remote({ endpoint: "http://127.0.0.1:1" }) },
        field: "endpoint",
        message: /tcp:\/\/host:port/,
      },
      {
        input: { remote: remote({ endpoint: "tcp://127.0.0.1:1/path" }) },
        field: "endpoint",
        message: /tcp:\/\/host:port/,
      },
      {
        // An API key (or any secret of the gateway) may never become a bearer sent to a named host.
        input: { remote: remote({ tokenFile: null, tokenFromEnv: "ANTHROPIC_API_KEY" }) },
        field: "tokenFromEnv",
        message: /PROSPERO_CALIBAND_TOKEN/,
      },
      {
        input: { remote: remote({ tokenFromEnv: TOKEN_VAR }) },
        field: "tokenFromEnv",
        message: /exactly one of tokenFromEnv and tokenFile/,
      },
      {
        input: { remote: remote({ tokenFile: null, tokenFromEnv: "PROSPERO_CALIBAND_TOKEN_UNSET_X" }) },
        field: "tokenFromEnv",
        message: /unset or empty/,
      },
      {
        input: { remote: remote({ tokenFile: path.join(tmp, "outside.token") }) },
        field: "tokenFile",
        message: /not inside a credentials directory/,
      },
      {
        // A symbolic link inside the directory to a file outside it is judged by its target.
        input: { remote: remote({ tokenFile: path.join(creds, "link.token") }) },
        field: "tokenFile",
        message: /not inside a credentials directory/,
      },
      {
        input: { remote: remote({ caFile: "/etc/hostname" }) },
        field: "caFile",
        message: /not inside a credentials directory/,
      },
      {
        input: { remote: remote({ caFile: path.join(creds, "remote.token") }) },
        field: "caFile",
        message: /CA certificate .* unusable/,
      },
      {
        input: { remote: remote({ serverName: "bad name!" }) },
        field: "serverName",
        message: /DNS name or an IP/,
      },
      {
        input: { remote: remote(), config: { provider: "ANTHROPIC", apiKeyFromEnv: "ANTHROPIC_API_KEY" } },
        field: "apiKeyFromEnv",
        message: /environment is set on its own host/,
      },
      { input: { root: "relative/path", remote: remote() }, field: "root", message: /absolute path/ },
    ];
    for (const [i, b] of bad.entries()) {
      const r = await add({ name: `bad-${i}`, root: "/srv/bad", ...b.input });
      const res = r.data?.addWorkspace;
      expect(res?.__typename, `${i}: ${JSON.stringify(r)}`).toBe("ValidationError");
      const issue = res?.fieldErrors?.find((f) => f.path[f.path.length - 1] === b.field);
      expect(issue?.message, `${i}: ${JSON.stringify(res)}`).toMatch(b.message);
    }
    // One endpoint is one daemon: a second workspace for it is a conflict.
    const dup = await add({ name: "remote-again", root: "/srv/again", remote: remote() });
    expect(dup.data?.addWorkspace.__typename).toBe("ConflictError");
    expect(dup.data?.addWorkspace.message).toMatch(/already registered as workspace remote/);
    const after = (await h.gql<{ workspaces: { name: string }[] }>(`{ workspaces { name } }`)).data!
      .workspaces;
    expect(after).toEqual(before);
  }, 30_000);

  it("needs an admin not limited to workspaces, and its daemon is not restarted from here", async () => {
    const limited = await h.createToken({ name: "ws-admin", role: "ADMIN", workspaces: ["limited"] });
    const r = await add(
      { name: "limited", root: "/srv/limited", remote: remote({ endpoint: "tcp://127.0.0.1:9" }) },
      limited,
    );
    expect(r.data?.addWorkspace.__typename, JSON.stringify(r)).toBe("ForbiddenError");
    expect(h.app.fleet.registry.find("limited")).toBeUndefined();

    const restart = await h.gql<{ restartWorkspaceDaemon: { __typename: string; message?: string } }>(
      `mutation { restartWorkspaceDaemon(input: { workspace: "remote" }) { __typename ... on Error { message } } }`,
    );
    expect(restart.data?.restartWorkspaceDaemon.__typename, JSON.stringify(restart)).toBe(
      "InvalidStateError",
    );
    expect(restart.data?.restartWorkspaceDaemon.message).toMatch(/runs on another host .*restart it there/);
  }, 30_000);

  it("stores where the daemon is and where its token comes from, never the token", async () => {
    const rows = await h.app.db.prisma.workspace.findUnique({ where: { name: "remote" } });
    expect(rows).toMatchObject({
      endpoint: `127.0.0.1:${port}`,
      serverName: "localhost",
      tokenFromEnv: null,
    });
    // The token itself is in no column.
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
  });
});

/** Newline-terminated lines in `buf`. */
function lines(buf: Buffer): number {
  let n = 0;
  for (const b of buf) if (b === 10) n++;
  return n;
}
