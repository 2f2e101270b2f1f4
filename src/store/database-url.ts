/**
 * The PostgreSQL database URL of `--database-url` / `PROSPERO_DATABASE_URL` (issue 18 item 1):
 * its accepted form, and its redaction for logs and errors (the URL may hold a password, which is
 * never printed).
 */
import { z } from "zod";

/** URL schemes accepted for the PostgreSQL store (libpq's two spellings). */
export const DATABASE_URL_SCHEMES = ["postgres:", "postgresql:"] as const;

/**
 * A PostgreSQL connection URL: `postgres://` or `postgresql://`, parseable by WHATWG URL, with a
 * database name in its path; a host either in the authority or as `?host=/socket/dir`.
 */
export const databaseUrlSchema = z.string().refine((s) => {
  // Exactly as given: WHATWG URL would trim what node-postgres's parser does not.
  if (!/^postgres(?:ql)?:\/\/[^\s]*$/i.test(s)) return false;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return false;
  }
  if (!(DATABASE_URL_SCHEMES as readonly string[]).includes(u.protocol)) return false;
  let name: string;
  try {
    name = decodeURIComponent(u.pathname.replace(/^\//, ""));
  } catch {
    return false; // a malformed %-escape
  }
  if (name === "" || name.includes("/")) return false;
  return u.hostname !== "" || (u.searchParams.get("host") ?? "") !== "";
});

/**
 * `url` with its password (and any password-like query parameter) replaced by `***`, nothing else
 * changed: what logs and error messages show of a database URL. A string that is no URL (or has
 * no `scheme://` authority) reads as `(not a URL)`, so a malformed value with a secret in it is
 * not echoed either.
 */
export function redactDatabaseUrl(url: string): string {
  // Without `//` there is no authority: `postgres:user:secret@host/db` would parse as a path with
  // the secret in it.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return "(not a URL)";
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "***";
    for (const key of [...u.searchParams.keys()]) {
      if (/^(password|sslpassword)$/i.test(key)) u.searchParams.set(key, "***");
    }
    return u.toString();
  } catch {
    return "(not a URL)";
  }
}
