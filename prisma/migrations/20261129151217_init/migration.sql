-- CreateTable
CREATE TABLE "Workspace" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "root" TEXT NOT NULL,
    "provider" TEXT,
    "baseUrl" TEXT,
    "apiKeyFromEnv" TEXT,
    "env" JSONB NOT NULL,
    "model" TEXT,
    "pendingConfig" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "removedAt" DATETIME
);

-- CreateTable
CREATE TABLE "Event" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "streamKey" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "ts" DATETIME NOT NULL,
    "workspace" TEXT NOT NULL,
    "agentId" TEXT,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    CONSTRAINT "Event_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "StreamHead" (
    "streamKey" TEXT NOT NULL PRIMARY KEY,
    "lastSeq" INTEGER NOT NULL
);

-- CreateTable
CREATE TABLE "Frame" (
    "agentId" TEXT NOT NULL,
    "line" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "ts" DATETIME NOT NULL,

    PRIMARY KEY ("agentId", "line")
);

-- CreateTable
CREATE TABLE "IngestCursor" (
    "agentId" TEXT NOT NULL PRIMARY KEY,
    "workspace" TEXT NOT NULL,
    "byteOffset" INTEGER NOT NULL DEFAULT 0,
    "lineCount" INTEGER NOT NULL DEFAULT 0,
    "mode" TEXT NOT NULL DEFAULT 'file',
    "state" JSONB,
    "finished" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Agent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "interactive" BOOLEAN NOT NULL DEFAULT false,
    "isolated" BOOLEAN NOT NULL DEFAULT false,
    "spec" JSONB NOT NULL,
    "sessionDir" TEXT NOT NULL DEFAULT '',
    "workingDir" TEXT NOT NULL DEFAULT '',
    "startedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    "model" TEXT,
    "outcome" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cacheReadTokens" INTEGER NOT NULL DEFAULT 0,
    "cacheCreationTokens" INTEGER NOT NULL DEFAULT 0,
    "turns" INTEGER NOT NULL DEFAULT 0,
    "costUsd" REAL,
    "respawnedFrom" TEXT,
    "goneAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Agent_workspace_fkey" FOREIGN KEY ("workspace") REFERENCES "Workspace" ("name") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Agent_respawnedFrom_fkey" FOREIGN KEY ("respawnedFrom") REFERENCES "Agent" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Workspace_root_idx" ON "Workspace"("root");

-- CreateIndex
CREATE INDEX "Event_ts_idx" ON "Event"("ts");

-- CreateIndex
CREATE INDEX "Event_workspace_ts_idx" ON "Event"("workspace", "ts");

-- CreateIndex
CREATE INDEX "Event_agentId_seq_idx" ON "Event"("agentId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "Event_streamKey_seq_key" ON "Event"("streamKey", "seq");

-- CreateIndex
CREATE INDEX "Agent_workspace_startedAt_idx" ON "Agent"("workspace", "startedAt");

-- CreateIndex
CREATE INDEX "Agent_status_idx" ON "Agent"("status");

