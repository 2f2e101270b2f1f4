/**
 * Global setup of the suite's `postgresql` project (vitest.config.ts): one throwaway PostgreSQL
 * cluster for the whole run (test/helpers/postgres.ts), handed to the test processes as
 * `PROSPERO_TEST_MATRIX_POSTGRES_URL` (read by test/helpers/store.ts only: tests that start and
 * stop a cluster of their own keep doing so); each gateway under test makes its own database on
 * it. With `PROSPERO_TEST_POSTGRES_URL` set (a server of yours), that server is used.
 */
import { startPostgres } from "../helpers/postgres.js";

export default async function setup(): Promise<() => Promise<void>> {
  const server = await startPostgres();
  process.env.PROSPERO_TEST_MATRIX_POSTGRES_URL = server.serverUrl;
  return async () => {
    delete process.env.PROSPERO_TEST_MATRIX_POSTGRES_URL;
    await server.stop();
  };
}
