import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type OpenedDatabase } from "../../src/store/db.js";
import { StoreWriter } from "../../src/store/writer.js";
import { TokenService, hashSecret, SESSION_TTL_MS, ADMIN_TOKEN_FILE } from "../../src/auth/tokens.js";
import { authenticate, bearerOf, sessionCookieName } from "../../src/auth/authenticate.js";
import { ConfigError } from "../../src/errors.js";
import { Conflict, NotFound, ValidationFailed } from "../../src/errors.js";
import { tmpDir } from "../helpers/tmp.js";

const opened: { db: OpenedDatabase; writer: StoreWriter }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    await o.writer.close();
    await o.db.close();
  }
});

async function service(
  dataDir = tmpDir(),
): Promise<{ tokens: TokenService; db: OpenedDatabase; dataDir: string }> {
  const db = await openDatabase(dataDir);
  const writer = new StoreWriter(db.prisma);
  opened.push({ db, writer });
  const tokens = new TokenService(db.prisma, writer);
  await tokens.load();
  return { tokens, db, dataDir };
}

describe("TokenService", () => {
  it("stores only a hash; the secret verifies until revoked, at once", async () => {
    const { tokens, db } = await service();
    const { token, secret } = await tokens.create({
      name: "ci",
      role: "operator",
      workspaces: ["demo"],
      createdBy: "admin",
    });
    expect(secret).toMatch(/^prospero_[A-Za-z0-9_-]{43}$/);
    const row = await db.prisma.apiToken.findUniqueOrThrow({ where: { id: token.id } });
    expect(row.secretHash).toBe(hashSecret(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
    const ok = tokens.verify(secret);
    expect(ok).toMatchObject({
      ok: true,
      principal: { name: "ci", role: "operator", workspaces: ["demo"], credential: "bearer" },
    });
    expect(tokens.verify(`${secret}x`)).toEqual({ ok: false, reason: "unknown" });
    expect(tokens.verify("x".repeat(10_000))).toEqual({ ok: false, reason: "unknown" });
    const revokedIds: string[] = [];
    tokens.onRevoked((id) => revokedIds.push(id));
    await tokens.revoke("ci");
    expect(revokedIds).toEqual([token.id]);
    expect(tokens.verify(secret)).toEqual({ ok: false, reason: "revoked" });
    await expect(tokens.revoke("ci")).rejects.toBeInstanceOf(NotFound);
    // A revoked token survives a reload as revoked; its name can be used again.
    const reloaded = new TokenService(db.prisma, new StoreWriter(db.prisma));
    await reloaded.load();
    expect(reloaded.verify(secret)).toEqual({ ok: false, reason: "revoked" });
    await expect(tokens.create({ name: "ci", role: "viewer", createdBy: null })).resolves.toBeTruthy();
  });

  it("refuses bad input, duplicate active names and the reserved bootstrap name, changing nothing", async () => {
    const { tokens, db } = await service();
    await tokens.create({ name: "alice", role: "viewer", createdBy: null });
    await expect(tokens.create({ name: "alice", role: "admin", createdBy: null })).rejects.toBeInstanceOf(
      Conflict,
    );
    await expect(tokens.create({ name: "admin", role: "admin", createdBy: null })).rejects.toBeInstanceOf(
      Conflict,
    );
    await expect(
      tokens.create({ name: "bad name!", role: "viewer", createdBy: null }),
    ).rejects.toBeInstanceOf(ValidationFailed);
    await expect(
      tokens.create({ name: "w", role: "viewer", workspaces: ["../etc"], createdBy: null }),
    ).rejects.toBeInstanceOf(ValidationFailed);
    await expect(
      tokens.create({
        name: "past",
        role: "viewer",
        expiresAt: new Date(Date.now() - 1000),
        createdBy: null,
      }),
    ).rejects.toThrow(/future/);
    expect(await db.prisma.apiToken.count()).toBe(1);
  });

  it("an expired token stops working at its expiry; sessions never outlive their token", async () => {
    const { tokens } = await service();
    const now = Date.now();
    const { token, secret } = await tokens.create(
      { name: "short", role: "viewer", expiresAt: new Date(now + 60_000), createdBy: null },
      now,
    );
    expect(tokens.verify(secret, now + 59_000).ok).toBe(true);
    expect(tokens.verify(secret, now + 60_000)).toEqual({ ok: false, reason: "expired" });
    const session = await tokens.createSession(token.id, now);
    expect(session.expiresAt.getTime()).toBe(now + 60_000);
    expect(tokens.verifySession(session.secret, now + 1000)).toMatchObject({
      ok: true,
      principal: { credential: "cookie" },
    });
    expect(tokens.verifySession(session.secret, now + 61_000).ok).toBe(false);
    const long = await tokens.create({ name: "long", role: "viewer", createdBy: null }, now);
    const s2 = await tokens.createSession(long.token.id, now);
    expect(s2.expiresAt.getTime()).toBe(now + SESSION_TTL_MS);
    await tokens.endSession(s2.secret, now + 1);
    expect(tokens.verifySession(s2.secret, now + 2)).toEqual({ ok: false, reason: "revoked" });
  });

  it("revoking a token ends its sessions", async () => {
    const { tokens } = await service();
    const { token } = await tokens.create({ name: "t", role: "viewer", createdBy: null });
    const s = await tokens.createSession(token.id);
    expect(tokens.verifySession(s.secret).ok).toBe(true);
    await tokens.revoke(token.id);
    expect(tokens.verifySession(s.secret)).toEqual({ ok: false, reason: "revoked" });
  });

  it("bootstrap: issues an admin token into <data dir>/admin-token (0600), keeps it across starts, rotates a lost one", async () => {
    const dir = tmpDir();
    const first = await service(dir);
    const a = await first.tokens.ensureBootstrapAdmin(dir);
    expect(a.issued).toBe(true);
    const file = path.join(dir, ADMIN_TOKEN_FILE);
    expect(fs.readFileSync(file, "utf8")).toBe(`${a.secret}\n`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(first.tokens.verify(a.secret)).toMatchObject({
      ok: true,
      principal: { name: "admin", role: "admin", workspaces: null },
    });
    const again = await first.tokens.ensureBootstrapAdmin(dir);
    expect(again).toMatchObject({ secret: a.secret, issued: false });
    fs.rmSync(file);
    const rotated = await first.tokens.ensureBootstrapAdmin(dir);
    expect(rotated.issued).toBe(true);
    expect(rotated.secret).not.toBe(a.secret);
    expect(first.tokens.verify(a.secret)).toEqual({ ok: false, reason: "revoked" });
    expect(first.tokens.list().filter((t) => t.bootstrap)).toHaveLength(1);
  });

  it("bootstrap: PROSPERO_ADMIN_TOKEN supplies the admin token; a weak one is a ConfigError", async () => {
    const dir = tmpDir();
    const { tokens } = await service(dir);
    const supplied = "s3cret-s3cret-s3cret-s3cret-s3cret-42";
    const r = await tokens.ensureBootstrapAdmin(dir, supplied);
    expect(r).toMatchObject({ secret: supplied, issued: true });
    expect(tokens.verify(supplied).ok).toBe(true);
    expect((await tokens.ensureBootstrapAdmin(dir, supplied)).issued).toBe(false);
    await expect(tokens.ensureBootstrapAdmin(dir, "short")).rejects.toBeInstanceOf(ConfigError);
    // Once revoked, the same supplied secret stays refused, and says why.
    await tokens.revoke("admin");
    await expect(tokens.ensureBootstrapAdmin(dir, supplied)).rejects.toThrow(/has been revoked/);
    await expect(
      tokens.ensureBootstrapAdmin(dir, "has spaces in it and is long enough......"),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});

describe("authenticate", () => {
  it("reads Authorization: Bearer; a bad header is never rescued by a cookie; cookies need the own Origin", async () => {
    const { tokens } = await service();
    const { token, secret } = await tokens.create({ name: "op", role: "operator", createdBy: null });
    const session = await tokens.createSession(token.id);
    const deps = { tokens, cookieName: sessionCookieName(7878, false), insecure: false };
    expect(bearerOf(undefined)).toBeNull();
    expect(bearerOf("Basic abc")).toBe("malformed");
    expect(bearerOf(`bearer ${secret}`)).toBe(secret);
    const cookie = `${deps.cookieName}=${session.secret}`;
    expect(
      authenticate({ authorization: `Bearer ${secret}`, cookie: undefined, origin: "absent" }, deps),
    ).toMatchObject({ ok: true });
    expect(authenticate({ authorization: "Bearer nope", cookie, origin: "same-origin" }, deps)).toMatchObject(
      { ok: false, status: 401 },
    );
    expect(authenticate({ authorization: undefined, cookie, origin: "same-origin" }, deps)).toMatchObject({
      ok: true,
      principal: { credential: "cookie", name: "op" },
    });
    for (const origin of ["absent", "allowed-cross-origin", "forbidden"] as const) {
      expect(authenticate({ authorization: undefined, cookie, origin }, deps)).toMatchObject({
        ok: false,
        status: 403,
      });
    }
    // Another port's cookie is not this gateway's.
    expect(
      authenticate(
        {
          authorization: undefined,
          cookie: `prospero_session_9999=${session.secret}`,
          origin: "same-origin",
        },
        deps,
      ),
    ).toMatchObject({ ok: false, status: 401 });
    expect(
      authenticate({ authorization: undefined, cookie: undefined, origin: "absent" }, deps, true),
    ).toEqual({ ok: true, principal: null });
    expect(
      authenticate(
        { authorization: undefined, cookie: undefined, origin: "absent" },
        { ...deps, insecure: true },
      ),
    ).toMatchObject({
      ok: true,
      principal: { credential: "insecure-no-auth", role: "admin" },
    });
    expect(sessionCookieName(8443, true)).toBe("__Host-prospero_session_8443");
  });
});
