// Control-connection plumbing of the caliband double: the daemon's NDJSON line framing (§1.2 —
// strictly sequential, 1 MiB cap, final line at EOF) and the one-shot client a fake worker uses to
// send `report_status` to the daemon (§3.5, worker.rs `ControlSocketStatus`).
import * as net from "node:net";
import type { Duplex } from "node:stream";
import * as tls from "node:tls";

/** Longest accepted control line in bytes, newline included (§1.2, caliban #401). */
export const MAX_CTL_LINE = 1 << 20;

/** Callbacks of {@link serveControlLines}. */
export interface ControlLineHandler {
  /** One line (bytes incl. `\n`, or the final partial line at EOF); resolves once answered. `stop()` ends reading. */
  onLine(bytes: Buffer, stop: () => void): Promise<void>;
  /** A line reached {@link MAX_CTL_LINE} bytes without `\n` (`head` = its first bytes); the connection is then destroyed. */
  onTooLong(head: Buffer): void;
}

/**
 * Reads NDJSON lines from `conn` (plus `leftover` bytes already read, e.g. after a bearer preamble)
 * and hands them to `handler` one at a time, in order. At EOF a trailing partial line is still
 * handled, then the connection is ended.
 */
export function serveControlLines(conn: Duplex, leftover: Buffer, handler: ControlLineHandler): void {
  let buf = leftover;
  let stopped = false;
  const stop = (): void => {
    stopped = true;
  };
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (job: () => Promise<void> | void): void => {
    queue = queue.then(job).catch(() => {
      conn.destroy();
    });
  };
  const tooLong = (): void => {
    stopped = true;
    const head = buf.subarray(0, 256);
    buf = Buffer.alloc(0);
    enqueue(() => {
      handler.onTooLong(head);
      conn.destroy(); // closed without a reply
    });
  };
  const extract = (): void => {
    while (!stopped) {
      const nl = buf.indexOf(10);
      if (nl < 0) {
        if (buf.length >= MAX_CTL_LINE) tooLong();
        return;
      }
      if (nl >= MAX_CTL_LINE) return tooLong();
      const line = buf.subarray(0, nl + 1);
      buf = buf.subarray(nl + 1);
      enqueue(() => handler.onLine(line, stop));
    }
  };
  conn.on("error", () => conn.destroy());
  conn.on("data", (chunk: Buffer) => {
    if (stopped) return;
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    extract();
  });
  conn.on("end", () => {
    enqueue(async () => {
      // A final line without `\n` is still a request (tokio `read_line` at EOF).
      if (!stopped && buf.length > 0) await handler.onLine(buf, stop);
      stopped = true;
      conn.end();
    });
  });
  extract();
  conn.resume();
}

/** Where a worker reaches the daemon: its Unix control socket, or the TLS listener + token. */
export type ControlTarget =
  { kind: "unix"; path: string } | { kind: "tcp"; host: string; port: number; token: string };

/**
 * Sends one request line on a fresh connection and waits for one reply line, at most `timeoutMs`
 * (caliban's client waits 5 s). Never rejects: resolves with the reply, or `null` on any failure.
 * TCP: TLS without verifying the daemon's certificate, then the bearer preamble (§6).
 * `track` sees the socket so the owner can destroy it during teardown.
 */
export function sendControlLine(
  target: ControlTarget,
  line: string,
  timeoutMs: number,
  track: (s: net.Socket, done: () => void) => void,
): Promise<string | null> {
  return new Promise((resolve) => {
    let sock: net.Socket;
    if (target.kind === "unix") {
      sock = net.createConnection(target.path, () => sock.write(`${line}\n`));
    } else {
      sock = tls.connect(
        { host: target.host, port: target.port, rejectUnauthorized: false, servername: "localhost" },
        () => sock.write(`${JSON.stringify({ bearer: target.token })}\n${line}\n`),
      );
    }
    let got = "";
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      const nl = got.indexOf("\n");
      resolve(nl < 0 ? null : got.slice(0, nl));
    };
    const timer = setTimeout(finish, timeoutMs);
    track(sock, finish);
    sock.on("data", (d: Buffer) => {
      got += d.toString("utf8");
      if (got.includes("\n")) finish();
    });
    sock.on("error", finish);
    sock.on("close", finish);
  });
}

/** Resolves a currently free TCP port on `host` (bind :0, read it, close). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, host, () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}
