-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN "launchTimeoutMs" INTEGER;

-- CreateTable
CREATE TABLE "Launch" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspace" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "requestFingerprint" TEXT NOT NULL,
    "specProvider" TEXT,
    "specModel" TEXT,
    "dedupKey" TEXT,
    "activeDedupKey" TEXT,
    "priority" INTEGER NOT NULL DEFAULT 50,
    "notBefore" DATETIME,
    "timeoutMs" INTEGER,
    "retryMaxAttempts" INTEGER NOT NULL DEFAULT 1,
    "retryBackoffMs" INTEGER NOT NULL DEFAULT 10000,
    "retryMaxBackoffMs" INTEGER NOT NULL DEFAULT 300000,
    "state" TEXT NOT NULL,
    "attemptCount" INTEGER NOT NULL DEFAULT 0,
    "agentId" TEXT,
    "retryAt" DATETIME,
    "stopRequest" TEXT,
    "reason" TEXT,
    "scheduleId" TEXT,
    "afterLaunchId" TEXT,
    "createdBy" TEXT,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "dispatchedAt" DATETIME,
    "startedAt" DATETIME,
    "finishedAt" DATETIME
);

-- CreateTable
CREATE TABLE "LaunchAttempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "launchId" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "workspace" TEXT NOT NULL,
    "specFingerprint" TEXT NOT NULL,
    "requestedAt" DATETIME NOT NULL,
    "kind" TEXT NOT NULL,
    "respawnOf" TEXT,
    "agentId" TEXT,
    "outcome" TEXT,
    "error" TEXT,
    "transient" BOOLEAN,
    "endedAt" DATETIME,
    CONSTRAINT "LaunchAttempt_launchId_fkey" FOREIGN KEY ("launchId") REFERENCES "Launch" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "LaunchTransition" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "launchId" TEXT NOT NULL,
    "from" TEXT,
    "to" TEXT NOT NULL,
    "reason" TEXT,
    "attempt" INTEGER,
    "at" DATETIME NOT NULL,
    CONSTRAINT "LaunchTransition_launchId_fkey" FOREIGN KEY ("launchId") REFERENCES "Launch" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Cap" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "max" INTEGER NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT,

    PRIMARY KEY ("scope", "key")
);

-- CreateTable
CREATE TABLE "Budget" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "limitUsd" REAL NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT,

    PRIMARY KEY ("scope", "key", "period")
);

-- CreateTable
CREATE TABLE "Schedule" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "workspace" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timeZone" TEXT NOT NULL,
    "template" JSONB NOT NULL,
    "overlap" TEXT NOT NULL,
    "missed" TEXT NOT NULL,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "lastFireAt" DATETIME,
    "nextFireAt" DATETIME,
    "createdBy" TEXT,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "deletedAt" DATETIME
);

-- CreateTable
CREATE TABLE "ScheduleFiring" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "scheduleId" TEXT NOT NULL,
    "fireAt" DATETIME NOT NULL,
    "at" DATETIME NOT NULL,
    "trigger" TEXT NOT NULL,
    "launchId" TEXT,
    "skippedReason" TEXT,
    CONSTRAINT "ScheduleFiring_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "Schedule" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Launch_activeDedupKey_key" ON "Launch"("activeDedupKey");

-- CreateIndex
CREATE INDEX "Launch_state_priority_createdAt_idx" ON "Launch"("state", "priority" DESC, "createdAt");

-- CreateIndex
CREATE INDEX "Launch_workspace_createdAt_idx" ON "Launch"("workspace", "createdAt");

-- CreateIndex
CREATE INDEX "Launch_createdAt_idx" ON "Launch"("createdAt");

-- CreateIndex
CREATE INDEX "Launch_scheduleId_createdAt_idx" ON "Launch"("scheduleId", "createdAt");

-- CreateIndex
CREATE INDEX "Launch_agentId_idx" ON "Launch"("agentId");

-- CreateIndex
CREATE UNIQUE INDEX "LaunchAttempt_agentId_key" ON "LaunchAttempt"("agentId");

-- CreateIndex
CREATE UNIQUE INDEX "LaunchAttempt_launchId_n_key" ON "LaunchAttempt"("launchId", "n");

-- CreateIndex
CREATE INDEX "LaunchTransition_launchId_id_idx" ON "LaunchTransition"("launchId", "id");

-- CreateIndex
CREATE INDEX "Schedule_workspace_idx" ON "Schedule"("workspace");

-- CreateIndex
CREATE INDEX "ScheduleFiring_scheduleId_id_idx" ON "ScheduleFiring"("scheduleId", "id");

