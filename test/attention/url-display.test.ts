import { describe, expect, it } from "vitest";
import { displayUrl } from "../../src/attention/url-policy.js";

describe("webhook URLs as the API shows them", () => {
  it("hides token-like path segments and query values (a Slack hook URL is its own secret)", () => {
    expect(displayUrl("https://hooks.slack.com/services/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")).toBe(
      "https://hooks.slack.com/services/T0AB12CD3/B0AB12CD3/…",
    );
    expect(displayUrl("https://discord.com/api/webhooks/123456789012345678/AbC-dEf_123456789012345678")).toBe(
      "https://discord.com/api/webhooks/123456789012345678/…",
    );
    expect(displayUrl("http://127.0.0.1:9000/hooks/prospero?token=s3cr3t&x=1")).toBe(
      "http://127.0.0.1:9000/hooks/prospero?token=…&x=…",
    );
  });

  it("keeps ordinary paths readable", () => {
    expect(displayUrl("http://127.0.0.1:9000/hooks/prospero-notifications")).toBe(
      "http://127.0.0.1:9000/hooks/prospero-notifications",
    );
    expect(displayUrl("not a url")).toBe("…");
  });
});
