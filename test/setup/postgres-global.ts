/**
 * Global setup of the suite's `postgresql` project (vitest.config.ts): one throwaway PostgreSQL
 * cluster for the whole run (test/helpers/postgres.ts), handed to the test processes as
 * `PROSPERO_TEST_POSTGRES_URL`; each gateway under test makes its own database on it
 * (test/helpers/store.ts). With `PROSPERO_TEST_POSTGRES_URL` already set, that server is used.
 */
import { startPostgres } from "../helpers/postgres.js";

export default async function setup(): Promise<() => Promise<void>> {
  if (process.env.PROSPERO_TEST_POSTGRES_URL) return async () => undefined;
  const server = await startPostgres();
  process.env.PROSPERO_TEST_POSTGRES_URL = server.serverUrl;
  return async () => {
    delete process.env.PROSPERO_TEST_POSTGRES_URL;
    await server.stop();
  };
}
