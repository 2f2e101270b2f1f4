/**
 * Public API of the caliband client (caliband-protocol.md): wire schemas and types, socket-path
 * derivation, transports, the control client, per-agent stream I/O and daemon discovery.
 */
export * from "./wire.js";
export * from "./errors.js";
export {
  workspaceHash,
  runtimeDir,
  controlSocketPath,
  canonicalizeRoot,
  rustJoin,
  type RuntimeEnv,
} from "./paths.js";
export {
  validateTransport,
  splitControlEndpoint,
  parseHostPort,
  describeEndpoint,
  openConnection,
  type TlsSettings,
  type Transport,
  type ControlEndpoint,
  type ConnectOptions,
} from "./transport.js";
export { DEFAULT_MAX_LINE_BYTES, LineSplitter, readLines, type LineReaderOptions } from "./ndjson.js";
export {
  CalibandClient,
  DEFAULT_DEADLINES,
  supervisorErrorToException,
  type CalibandClientOptions,
  type CallOptions,
  type RequestDeadlines,
  type SpawnResult,
} from "./client.js";
export {
  openAgentStream,
  sendInbound,
  connectWithRetry,
  DEFAULT_CONNECT_DEADLINE_MS,
  type AgentStreamOptions,
  type ConnectRetryOptions,
  type SendInboundOptions,
  type StreamLine,
} from "./stream.js";
export { checkRuntimeDir, checkSocketFile } from "./trust.js";
export {
  ensureDaemon,
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_KILL_GRACE_MS,
  type EnsureDaemonOptions,
  type DaemonHandle,
} from "./discovery.js";
