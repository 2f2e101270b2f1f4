-- The audit log is append-only (issue 11 item 4): an UPDATE of an AuditEntry row fails and changes
-- nothing, as the SQLite trigger of 20261201101535_auth_tokens_audit makes it there. Written by
-- hand (Prisma's datamodel has no triggers), like that one.
CREATE FUNCTION "AuditEntry_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only';
END;
$$;

CREATE TRIGGER "AuditEntry_append_only" BEFORE UPDATE ON "AuditEntry"
    FOR EACH ROW EXECUTE FUNCTION "AuditEntry_append_only"();
