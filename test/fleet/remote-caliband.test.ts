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
 * refused with typed errors and register nothing; an endpoint the operator did not provision (no
 * credentials directory of its own) is refused, so one daemon's token is never sent to another host.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createServer as tlsServer } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { initGitRepo } from "../support/temp-workspace.js";
import { makeTestTls, type TestTls } from "../support/tls.js";
import { credentialsKey, tokenEnvName } from "../../src/fleet/remote.js";

const TOKEN = "tok-remote-7f3a9c";

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
  ... on AddWorkspacePayload { created workspace { name root remote { endpoint serverName credentials { directory caFile tokenFile tokenFromEnv } } } }
  ... on ValidationError { message fieldErrors { path message } }
  ... on Error { message }
} }`;

interface AddResult {
  addWorkspace: {
    __typename: string;
    message?: string;
    fieldErrors?: { path: string[]; message: string }[];
    workspace?: { name: string; root: string; remote: Record<string, unknown> | null };
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

/**
 * Provision the credentials of `127.0.0.1:<p>` as an operator does: its own directory with a CA
 * and, unless `token` is `{ env }`, a token file (mode 0600); `{ env }` sets the endpoint's variable.
 */
function provision(
  p: number,
  opts: { ca?: string; token?: string | { env: string }; serverName?: string } = {},
): string {
  const addr = `127.0.0.1:${p}`;
  const dir = path.join(creds, credentialsKey(addr));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "ca.pem"), opts.ca ?? tls.caPem);
  if (opts.serverName !== undefined) fs.writeFileSync(path.join(dir, "server-name"), `${opts.serverName}\n`);
  const token = opts.token ?? TOKEN;
  if (typeof token === "string") fs.writeFileSync(path.join(dir, "token"), `${token}\n`, { mode: 0o600 });
  else {
    // The gateway reads the environment it was started with.
    h.env[tokenEnvName(addr)] = token.env;
  }
  return dir;
}

function remote(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { endpoint: `tcp://127.0.0.1:${port}`, ...over };
}

beforeAll(async () => {
  tls = makeTestTls();
  otherTls = makeTestTls();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prospero-remote-"));
  creds = path.join(tmp, "creds");
  fs.mkdirSync(creds, { mode: 0o700 });
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
  // The double's certificate is for localhost (and 127.0.0.1): the operator pins that name.
  provision(port, { serverName: "localhost" });
  h = await startAppHarness({ register: false, config: { calibandCredentialsDirs: [creds] } });
}, 60_000);

afterAll(async () => {
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
    const dir = path.join(fs.realpathSync(creds), `127.0.0.1_${port}`);
    expect(r.data?.addWorkspace.workspace?.remote).toEqual({
      endpoint: `tcp://127.0.0.1:${port}`,
      serverName: "localhost",
      credentials: {
        directory: dir,
        caFile: path.join(dir, "ca.pem"),
        tokenFile: path.join(dir, "token"),
        tokenFromEnv: null,
      },
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
      `{ workspaces { name remote { endpoint serverName credentials { directory caFile tokenFile tokenFromEnv } } config { apiKeyFromEnv env { name } } } }`,
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

  it("a token from the endpoint's own environment variable works too", async () => {
    const p = await proxyPort();
    provision(p, { token: { env: TOKEN } });
    const r = await add({
      name: "remote-env",
      root: "/srv/elsewhere",
      remote: remote({ endpoint: `tcp://127.0.0.1:${p}` }),
    });
    expect(r.data?.addWorkspace.__typename, JSON.stringify(r)).toBe("AddWorkspacePayload");
    expect(r.data?.addWorkspace.workspace?.remote?.credentials).toMatchObject({
      tokenFile: null,
      tokenFromEnv: `PROSPERO_CALIBAND_TOKEN_127_0_0_1_${p}`,
    });
    await waitFor(
      async () => (await healthOf("remote-env")).state === "HEALTHY",
      15_000,
      "remote-env healthy",
    );
  }, 30_000);

  it("one daemon's token is never sent to another host: an endpoint without its own credentials is refused", async () => {
    // A TLS listener of "the attacker": it records every connection it gets.
    const seen: string[] = [];
    const attacker = tlsServer({ cert: tls.certPem, key: tls.keyPem }, (sock) => {
      sock.on("data", (d) => seen.push(d.toString()));
    });
    await new Promise<void>((r) => attacker.listen(0, "127.0.0.1", r));
    const ap = (attacker.address() as net.AddressInfo).port;
    try {
      const r = await add({
        name: "evil",
        root: "/srv/evil",
        remote: remote({ endpoint: `tcp://127.0.0.1:${ap}` }),
      });
      expect(r.data?.addWorkspace.__typename, JSON.stringify(r)).toBe("ValidationError");
      expect(r.data?.addWorkspace.fieldErrors?.[0]).toMatchObject({
        path: ["input", "remote", "endpoint"],
        message: expect.stringMatching(
          new RegExp(`no credentials for this endpoint: .*127\\.0\\.0\\.1_${ap}/ca\\.pem`),
        ),
      });
      expect(h.app.fleet.registry.find("evil")).toBeUndefined();
      await new Promise((res) => setTimeout(res, 300));
      expect(seen).toEqual([]);
    } finally {
      await new Promise<void>((r) => attacker.close(() => r()));
    }
  }, 30_000);

  it("a wrong CA, a certificate for another name, a wrong token, a closed port and a peer that is no TLS server each give their reason", async () => {
    const wrongCa = await proxyPort();
    provision(wrongCa, { ca: otherTls.caPem });
    const wrongName = await proxyPort();
    // The operator names the certificate's expected name; the daemon's certificate has another.
    provision(wrongName, { serverName: "caliband.example" });
    const wrongToken = await proxyPort();
    provision(wrongToken, { token: "not-the-token" });
    const closed = await closedPort();
    provision(closed);
    // Peers that drop the connection before TLS: one closes at once, one talks another protocol.
    const open = new Set<net.Socket>();
    const track = (sock: net.Socket) => {
      open.add(sock);
      sock.on("close", () => open.delete(sock));
      sock.on("error", () => undefined);
    };
    const dropper = net.createServer((sock) => {
      track(sock);
      sock.destroy();
    });
    const banner = net.createServer((sock) => {
      track(sock);
      sock.end("SSH-2.0-OpenSSH_9.2\r\n");
    });
    for (const srv of [dropper, banner]) await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const dp = (dropper.address() as net.AddressInfo).port;
    const bp = (banner.address() as net.AddressInfo).port;
    provision(dp);
    provision(bp);
    const at = (p: number) => `tcp://127.0.0.1:${p}`;
    const cases: { name: string; remote: Record<string, unknown>; reason: RegExp }[] = [
      {
        name: "wrong-ca",
        remote: remote({ endpoint: at(wrongCa) }),
        reason:
          /^TLS: the daemon's certificate at tls:\/\/127\.0\.0\.1:\d+ is not trusted by the CA in 127\.0\.0\.1_\d+\/ca\.pem/,
      },
      {
        name: "wrong-name",
        remote: { endpoint: at(wrongName) },
        reason: /^TLS: the daemon's certificate at .* is not for the server name caliband\.example/,
      },
      {
        name: "wrong-token",
        remote: remote({ endpoint: at(wrongToken) }),
        reason: new RegExp(
          `refused the bearer token \\(check its token: 127\\.0\\.0\\.1_${wrongToken}/token or PROSPERO_CALIBAND_TOKEN_127_0_0_1_${wrongToken}\\)`,
        ),
      },
      {
        name: "closed-port",
        remote: remote({ endpoint: at(closed) }),
        reason: /^connection refused at tls:\/\/127\.0\.0\.1:\d+: nothing listens there/,
      },
      {
        name: "dropper",
        remote: remote({ endpoint: at(dp) }),
        reason:
          /^the connection to tls:\/\/127\.0\.0\.1:\d+ failed before TLS was established .*is it a caliband with --listen and TLS\?/s,
      },
      {
        name: "not-tls",
        remote: remote({ endpoint: at(bp) }),
        reason:
          /^the connection to tls:\/\/127\.0\.0\.1:\d+ failed before TLS was established .*is it a caliband with --listen and TLS\?/s,
      },
    ];
    try {
      for (const c of cases) {
        const r = await add({ name: c.name, root: `/srv/${c.name}`, remote: c.remote });
        expect(r.data?.addWorkspace.__typename, JSON.stringify(r)).toBe("AddWorkspacePayload");
      }
      const reasons = new Map<string, string>();
      for (const c of cases) reasons.set(c.name, await unreachableReason(c.name));
      for (const c of cases) expect(reasons.get(c.name), c.name).toMatch(c.reason);
      // Different causes give different reasons (the two pre-TLS peers share theirs), none with the token.
      for (const c of cases)
        for (const o of cases)
          if (
            o !== c &&
            !(["dropper", "not-tls"].includes(c.name) && ["dropper", "not-tls"].includes(o.name))
          )
            expect(reasons.get(c.name), `${c.name} vs ${o.name}`).not.toMatch(o.reason);
      for (const r of reasons.values()) expect(r).not.toContain(TOKEN);
      // The healthy one stayed healthy.
      expect((await healthOf("remote")).state).toBe("HEALTHY");
    } finally {
      for (const c of cases)
        await h.gql(`mutation($w: String!) { removeWorkspace(input: { workspace: $w }) { __typename } }`, {
          w: c.name,
        });
      for (const sock of open) sock.destroy();
      for (const srv of [dropper, banner]) await new Promise<void>((r) => srv.close(() => r()));
    }
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
        input: { remote: remote({ endpoint: "tcp://127.0.0.1\u0000:1" }) },
        field: "endpoint",
        message: /tcp:\/\/host:port/,
      },
      {
        input: { remote: remote({ endpoint: "tcp://::1:7070" }) },
        field: "endpoint",
        message: /bracketed IPv6/,
      },
      {
        input: { remote: remote({ serverName: "bad name!" }) },
        field: "serverName",
        message: /DNS name or an IP/,
      },
      {
        // The name a certificate must match is the operator's (server-name file, else the host):
        // with a CA shared by several hosts, a name of the caller's choice would let any of them in.
        input: { remote: remote({ serverName: "other.example" }) },
        field: "serverName",
        message:
          /not the one the operator set for this endpoint \(localhost: .*server-name, else the endpoint's host\)/,
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
