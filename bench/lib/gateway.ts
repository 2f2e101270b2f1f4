/**
 * The gateway under test as its own process (`prospero serve`), so its CPU and RSS are measured
 * apart from the simulator and the benchmark's clients; plus the GraphQL calls benchmarks need.
 */
import { waitFor } from "../../test/helpers/fleet-harness.js";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { REPO, startNode, type Child } from "./procs.js";

/** A free TCP port on 127.0.0.1 (bound and released; the gateway binds it right after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

/** GraphQL response body. */
export interface GqlResult<T> {
  data?: T;
  errors?: { message: string }[];
}

/** Gateway counters read through the `metrics` query (names as in the schema). */
export interface GatewayMetrics {
  activeAttaches: number;
  busDroppedTotal: number;
  busSubscribers: number;
  eventsAppendedTotal: number;
  framesIngestedTotal: number;
  ingestLagBytes: number;
  pollsTotal: number;
  pollFailuresTotal: number;
}

/** A running gateway process. */
export interface Gateway {
  child: Child;
  pid: number;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** `ws://127.0.0.1:<port>/graphql`. */
  wsUrl: string;
  /** The admin token the bench gave the gateway (PROSPERO_ADMIN_TOKEN); pass it to subscribers. */
  token: string;
  dataDir: string;
  /** Wall time from process start to `/readyz` answering 200, ms. */
  readyMs: number;
  /**
   * POST a GraphQL operation.
   * @throws Error with the GraphQL error messages when the response has errors, or naming the
   *   gateway's exit and stderr when the request could not be made.
   */
  gql<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  metrics(): Promise<GatewayMetrics>;
  /** Register a workspace (caliband must already be running: the gateway runs with --no-autostart). */
  addWorkspace(name: string, root: string): Promise<void>;
  /** Spawn an agent (not isolated: no worktree); resolves with its caliband id. */
  spawn(workspace: string, prompt: string): Promise<string>;
  stop(): Promise<void>;
}

/** Options of {@link startGateway}. */
export interface GatewayOptions {
  dataDir: string;
  /** CALIBAN_DAEMON_RUNTIME_DIR shared with the simulator. */
  runtimeDir: string;
  /** Poll interval, ms (default: the gateway's own default, 2000). */
  pollIntervalMs?: number;
  /** Extra `node` flags, e.g. `--max-old-space-size`. */
  nodeArgs?: string[];
  /** Store in this PostgreSQL database (`PROSPERO_DATABASE_URL`) instead of the data dir's SQLite file. */
  databaseUrl?: string;
  timeoutMs?: number;
}

/**
 * Start `prospero serve` on a free port with `--no-autostart --log-level warn` and wait for
 * `/readyz` 200.
 * @throws (rejects) when the process exits or is not ready within `timeoutMs` (default 120 s).
 */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const port = await freePort();
  const args = [
    "serve",
    "--data-dir",
    opts.dataDir,
    "--port",
    String(port),
    "--no-autostart",
    "--log-level",
    "warn",
    // Benchmarks open up to thousands of subscriber connections.
    "--max-connections",
    "100000",
  ];
  if (opts.pollIntervalMs !== undefined) args.push("--poll-interval-ms", String(opts.pollIntervalMs));
  const t0 = performance.now();
  // The bench chooses the admin token, so it can authenticate without reading the data dir.
  const token = `bench_${randomBytes(32).toString("base64url")}`;
  const child = startNode(path.join(REPO, "bin/prospero.js"), args, {
    env: {
      CALIBAN_DAEMON_RUNTIME_DIR: opts.runtimeDir,
      NODE_ENV: "production",
      PROSPERO_ADMIN_TOKEN: token,
      XDG_RUNTIME_DIR: opts.dataDir,
      ...(opts.databaseUrl !== undefined ? { PROSPERO_DATABASE_URL: opts.databaseUrl } : {}),
    },
    // BENCH_GATEWAY_NODE_ARGS: extra node flags for every gateway of a run, e.g. to profile it
    // (`--cpu-prof --cpu-prof-dir=/tmp/prof`; bench/README.md).
    nodeArgs: [
      ...(opts.nodeArgs ?? []),
      ...(process.env.BENCH_GATEWAY_NODE_ARGS ?? "").split(" ").filter(Boolean),
    ],
  });
  const url = `http://127.0.0.1:${port}`;
  let exited: string | null = null;
  void child.exited.then((code) => (exited = String(code)));
  let state: "ready" | "exited";
  try {
    // Ends as soon as the gateway answers 200 or exits (no waiting out the timeout for a dead one).
    state = await waitFor(
      async (): Promise<"ready" | "exited" | null> => {
        if (exited !== null) return "exited";
        const res = await fetch(`${url}/readyz`).catch(() => null);
        return res?.status === 200 ? "ready" : null;
      },
      opts.timeoutMs ?? 120_000,
      "gateway /readyz 200",
      10,
    );
  } catch (err) {
    await child.stop();
    throw err;
  }
  if (state === "exited") throw new Error(`gateway exited (${String(exited)}):\n${child.stderr()}`);
  const readyMs = performance.now() - t0;

  async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    let res: Response;
    const post = () =>
      fetch(`${url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, variables }),
      });
    try {
      try {
        res = await post();
      } catch (err) {
        // A kept-alive connection the server closed just as it was reused: retry once on a new
        // one (every call here is safe to repeat; spawns carry a clientRequestId).
        const code = (err as { cause?: { code?: string } }).cause?.code;
        if (exited !== null || (code !== "ECONNRESET" && code !== "UND_ERR_SOCKET")) throw err;
        res = await post();
      }
    } catch (err) {
      // Say why: a gateway that died (its exit and stderr) or one that stopped answering.
      await Promise.race([child.exited, new Promise((r) => setTimeout(r, 500))]);
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? String(err);
      throw new Error(
        exited !== null
          ? `gateway exited (${exited}) — its stderr:\n${child.stderr()}`
          : `gateway request failed (${cause}); the gateway is still running — stderr so far:\n${child.stderr()}`,
        { cause: err },
      );
    }
    const body = (await res.json()) as GqlResult<T>;
    if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join("; "));
    if (body.data === undefined) throw new Error(`HTTP ${res.status}: no data`);
    return body.data;
  }

  return {
    child,
    pid: child.pid,
    url,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    token,
    dataDir: opts.dataDir,
    readyMs,
    gql,
    async metrics() {
      const d = await gql<{ metrics: GatewayMetrics }>(
        "{ metrics { activeAttaches busDroppedTotal busSubscribers eventsAppendedTotal framesIngestedTotal ingestLagBytes pollsTotal pollFailuresTotal } }",
      );
      return d.metrics;
    },
    async addWorkspace(name, root) {
      const d = await gql<{ addWorkspace: { __typename: string; message?: string } }>(
        `mutation($name: String!, $root: String!) { addWorkspace(input: { name: $name, root: $root }) {
           __typename ... on Error { message } } }`,
        { name, root },
      );
      if (d.addWorkspace.__typename !== "AddWorkspacePayload") {
        throw new Error(
          `addWorkspace ${name}: ${d.addWorkspace.__typename}: ${d.addWorkspace.message ?? ""}`,
        );
      }
    },
    async spawn(workspace, prompt) {
      const d = await gql<{
        spawnAgent: { __typename: string; message?: string; agent?: { agentId: string } };
      }>(
        `mutation($input: SpawnAgentInput!) { spawnAgent(input: $input) {
           __typename ... on SpawnAgentPayload { agent { agentId } } ... on Error { message } } }`,
        { input: { workspace, prompt, isolated: false, clientRequestId: randomUUID() } },
      );
      if (d.spawnAgent.agent === undefined) {
        throw new Error(`spawnAgent: ${d.spawnAgent.__typename}: ${d.spawnAgent.message ?? ""}`);
      }
      return d.spawnAgent.agent.agentId;
    },
    stop: () => child.stop(),
  };
}
