-- CreateTable
CREATE TABLE "RunCapture" (
    "agentId" TEXT NOT NULL PRIMARY KEY,
    "workspace" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "reason" TEXT,
    "gitDir" TEXT,
    "workingDir" TEXT,
    "baseCommit" TEXT,
    "headCommit" TEXT,
    "agentHead" TEXT,
    "trigger" TEXT,
    "turnIndex" INTEGER,
    "snapshots" INTEGER NOT NULL DEFAULT 0,
    "final" BOOLEAN NOT NULL DEFAULT false,
    "capturedAt" DATETIME,
    "fileCount" INTEGER NOT NULL DEFAULT 0,
    "additions" INTEGER NOT NULL DEFAULT 0,
    "deletions" INTEGER NOT NULL DEFAULT 0,
    "skippedFiles" INTEGER NOT NULL DEFAULT 0,
    "skippedBytes" REAL NOT NULL DEFAULT 0,
    "capNote" TEXT,
    "appliedBranch" TEXT,
    "appliedCommit" TEXT,
    "appliedAt" DATETIME,
    "appliedBy" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CapturedFile" (
    "agentId" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "workspace" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "additions" INTEGER,
    "deletions" INTEGER,

    PRIMARY KEY ("agentId", "path"),
    CONSTRAINT "CapturedFile_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "RunCapture" ("agentId") ON DELETE CASCADE ON UPDATE CASCADE
);

-- AlterTable (issue 16): columns with constant defaults, added in place.
ALTER TABLE "Workspace" ADD COLUMN "captureChanges" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "Agent" ADD COLUMN "searchText" TEXT NOT NULL DEFAULT '';

-- Backfill: what agents(filter: {search}) matches for runs stored before this migration.
UPDATE "Agent" SET "searchText" = lower(
    "name" || char(10) || coalesce(json_extract("spec", '$.label'), '') || char(10) ||
    substr(coalesce(json_extract("spec", '$.initial_prompt'), ''), 1, 4096)
);

-- CreateIndex
CREATE INDEX "RunCapture_workspace_state_idx" ON "RunCapture"("workspace", "state");

-- CreateIndex
CREATE INDEX "CapturedFile_workspace_path_idx" ON "CapturedFile"("workspace", "path");

