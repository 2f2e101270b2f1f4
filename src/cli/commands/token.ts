/**
 * `prospero token create|ls|revoke`: API tokens (issue 11 item 3; admin role, not limited to
 * workspaces). `create` prints the secret once — it cannot be shown again; `ls` never shows one;
 * `revoke` takes effect at once, closing the token's open connections.
 */
import type { Command } from "commander";
import {
  CreateTokenDocument,
  RevokeTokenDocument,
  TokensDocument,
  type Role,
  type TokenFieldsFragment,
} from "../../sdk/index.js";
import { clientAction, clientOptions, type CliContext } from "../context.js";
import { present, unwrapResult } from "../exit.js";
import { age } from "../format.js";
import { table } from "../output.js";
import { collectWorkspaces, parseExpiry, parseRole } from "../parse.js";
import { safeData } from "../sanitize.js";

function when(iso: string | null | undefined, never = "never"): string {
  return iso ? `${iso.slice(0, 16).replace("T", " ")}Z` : never;
}

function printTokens(ctx: CliContext, list: readonly TokenFieldsFragment[]): void {
  const { c } = ctx.out;
  if (list.length === 0) {
    ctx.out.line(c.dim("no tokens"));
    return;
  }
  const rows = list.map((t) => [
    c.bold(t.name) + (t.bootstrap ? c.dim(" (bootstrap)") : ""),
    t.tokenId,
    t.role.toLowerCase(),
    t.workspaces ? t.workspaces.join(",") : c.dim("all"),
    when(t.createdAt),
    t.lastUsedAt ? `${age(t.lastUsedAt)} ago` : c.dim("never"),
    t.revokedAt ? c.red(`revoked ${when(t.revokedAt)}`) : t.active ? when(t.expiresAt) : c.red("expired"),
  ]);
  ctx.out.line(
    table(
      ["NAME", "ID", "ROLE", "WORKSPACES", "CREATED", "LAST USED", "EXPIRES"].map((h) => c.dim(h)),
      rows,
    ),
  );
}

/** Register `token` and its subcommands on `program`. */
export function registerTokenCommands(program: Command): void {
  const tokens = program
    .command("token")
    .description("create, list and revoke API tokens (admin role, not limited to workspaces)");

  clientOptions(
    tokens
      .command("create")
      .description("create a token and print its secret (shown once: store it now)")
      .requiredOption("--name <name>", "unique name, e.g. ci or alice@laptop")
      .requiredOption("--role <role>", "viewer | operator | admin", parseRole)
      .option(
        "--workspace <names>",
        "limit it to these workspaces (comma-separated, repeatable)",
        collectWorkspaces,
      )
      .option("--expires <when>", "expiry: a duration (12h, 30d, 2w) or an ISO date; default never", (v) =>
        parseExpiry(v),
      ),
    "print the token and its secret as JSON on stdout",
  ).action(
    clientAction(async (ctx, flags: { name: string; role: Role; workspace?: string[]; expires?: string }) => {
      const data = await ctx.client.request(CreateTokenDocument, {
        input: {
          name: flags.name,
          role: flags.role,
          ...(flags.workspace ? { workspaces: flags.workspace } : {}),
          ...(flags.expires ? { expiresAt: flags.expires } : {}),
        },
      });
      if (ctx.json) ctx.out.json(data);
      const r = unwrapResult(`token create ${flags.name}`, data.createToken);
      if (ctx.json) return;
      const t = safeData(r.token);
      const { c } = ctx.out;
      ctx.out.note(
        `created token ${c.bold(t.name)} (${t.tokenId}): ${t.role.toLowerCase()}, ${t.workspaces ? `workspaces ${t.workspaces.join(",")}` : "all workspaces"}, expires ${when(t.expiresAt)}`,
      );
      ctx.out.note(c.yellow("its secret follows on stdout; it is shown this once"));
      // The secret alone on stdout, so `prospero token create … > file` captures just it.
      ctx.out.line(r.secret);
    }),
  );

  clientOptions(
    tokens
      .command("ls")
      .description("list tokens (never their secrets)")
      .option("--all", "include revoked tokens"),
  ).action(
    clientAction(async (ctx, flags: { all?: boolean }) => {
      const data = await ctx.client.request(TokensDocument, { includeRevoked: flags.all === true });
      if (ctx.json) ctx.out.json(data);
      else printTokens(ctx, safeData(present(data.tokens, "tokens")));
    }),
  );

  clientOptions(
    tokens
      .command("revoke")
      .description("revoke a token at once (its open connections are closed)")
      .argument("<token>", "the token's name or id"),
  ).action(
    clientAction(async (ctx, token: string) => {
      const data = await ctx.client.request(RevokeTokenDocument, { token });
      if (ctx.json) ctx.out.json(data);
      // Never echo a secret pasted by mistake.
      const shown = token.startsWith("prospero_") ? "<a token secret>" : token;
      const r = unwrapResult(`token revoke ${shown}`, data.revokeToken);
      if (!ctx.json) ctx.out.line(`revoked ${ctx.out.c.bold(safeData(r.token).name)}`);
    }),
  );
}
