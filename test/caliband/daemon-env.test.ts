/**
 * The environment of an autostarted caliband (src/caliband/discovery.ts): the gateway's own
 * secrets never reach a daemon, and through it every agent it spawns.
 */
import { describe, expect, it } from "vitest";
import { daemonEnv } from "../../src/caliband/discovery.js";

describe("daemonEnv", () => {
  it("drops the database URL and password, the admin token and remote calibands' tokens; keeps the rest", () => {
    const env = daemonEnv({
      PATH: "/usr/bin",
      HOME: "/home/op",
      ANTHROPIC_API_KEY: "sk-provider",
      PROSPERO_DATABASE_URL: "postgres://u:pw@db/prospero",
      PGPASSWORD: "pw",
      PROSPERO_ADMIN_TOKEN: "prospero_x",
      PROSPERO_CALIBAND_TOKEN_BUILD1_EXAMPLE_7000: "t",
      PROSPERO_DATA_DIR: "/var/lib/prospero",
    });
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/op",
      ANTHROPIC_API_KEY: "sk-provider",
      PROSPERO_DATA_DIR: "/var/lib/prospero",
    });
  });
});
