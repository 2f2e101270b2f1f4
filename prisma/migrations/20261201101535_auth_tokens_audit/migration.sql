-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "workspaces" JSONB,
    "secretHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "createdBy" TEXT,
    "expiresAt" DATETIME,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME,
    "bootstrap" BOOLEAN NOT NULL DEFAULT false
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tokenId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "revokedAt" DATETIME,
    CONSTRAINT "Session_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "ApiToken" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "ts" DATETIME NOT NULL,
    "tokenId" TEXT,
    "tokenName" TEXT,
    "role" TEXT,
    "remoteAddress" TEXT,
    "operation" TEXT NOT NULL,
    "operationName" TEXT,
    "workspace" TEXT,
    "agentId" TEXT,
    "args" JSONB,
    "result" TEXT NOT NULL,
    "denied" BOOLEAN NOT NULL DEFAULT false
);

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_secretHash_key" ON "ApiToken"("secretHash");

-- CreateIndex
CREATE INDEX "ApiToken_name_idx" ON "ApiToken"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Session_secretHash_key" ON "Session"("secretHash");

-- CreateIndex
CREATE INDEX "Session_tokenId_idx" ON "Session"("tokenId");

-- CreateIndex
CREATE INDEX "AuditEntry_ts_idx" ON "AuditEntry"("ts");

-- CreateIndex
CREATE INDEX "AuditEntry_tokenName_id_idx" ON "AuditEntry"("tokenName", "id");

-- CreateIndex
CREATE INDEX "AuditEntry_operation_id_idx" ON "AuditEntry"("operation", "id");


-- The audit log is append-only: rows are never changed (retention may delete old ones).
CREATE TRIGGER "AuditEntry_append_only" BEFORE UPDATE ON "AuditEntry"
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;
