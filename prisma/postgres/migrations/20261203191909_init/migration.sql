-- CreateTable
CREATE TABLE "Workspace" (
    "name" TEXT NOT NULL,
    "root" TEXT NOT NULL,
    "provider" TEXT,
    "baseUrl" TEXT,
    "apiKeyFromEnv" TEXT,
    "env" JSONB NOT NULL,
    "model" TEXT,
    "pendingConfig" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "removedAt" TIMESTAMP(3),
    "launchTimeoutMs" INTEGER,
    "captureChanges" BOOLEAN NOT NULL DEFAULT true,
    "endpoint" TEXT,
    "serverName" TEXT,

    CONSTRAINT "Workspace_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "Event" (
    "id" SERIAL NOT NULL,
    "streamKey" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "ts" TIMESTAMP(3) NOT NULL,
    "workspace" TEXT NOT NULL,
    "agentId" TEXT,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StreamHead" (
    "streamKey" TEXT NOT NULL,
    "lastSeq" INTEGER NOT NULL,

    CONSTRAINT "StreamHead_pkey" PRIMARY KEY ("streamKey")
);

-- CreateTable
CREATE TABLE "Frame" (
    "agentId" TEXT NOT NULL,
    "line" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "ts" TIMESTAMP(3) NOT NULL,
    "bytes" BYTEA,

    CONSTRAINT "Frame_pkey" PRIMARY KEY ("agentId","line")
);

-- CreateTable
CREATE TABLE "IngestCursor" (
    "agentId" TEXT NOT NULL,
    "workspace" TEXT NOT NULL,
    "byteOffset" INTEGER NOT NULL DEFAULT 0,
    "lineCount" INTEGER NOT NULL DEFAULT 0,
    "mode" TEXT NOT NULL DEFAULT 'file',
    "state" JSONB,
    "finished" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IngestCursor_pkey" PRIMARY KEY ("agentId")
);

-- CreateTable
CREATE TABLE "Agent" (
    "id" TEXT NOT NULL,
    "workspace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "interactive" BOOLEAN NOT NULL DEFAULT false,
    "isolated" BOOLEAN NOT NULL DEFAULT false,
    "spec" JSONB NOT NULL,
    "sessionDir" TEXT NOT NULL DEFAULT '',
    "workingDir" TEXT NOT NULL DEFAULT '',
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),
    "model" TEXT,
    "outcome" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cacheReadTokens" INTEGER NOT NULL DEFAULT 0,
    "cacheCreationTokens" INTEGER NOT NULL DEFAULT 0,
    "turns" INTEGER NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION,
    "respawnedFrom" TEXT,
    "goneAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "exitCode" INTEGER,
    "failureLogTail" TEXT,
    "failureLogTruncated" BOOLEAN,
    "failureReason" TEXT,
    "searchText" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "Agent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "workspaces" JSONB,
    "secretHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "createdBy" TEXT,
    "expiresAt" TIMESTAMP(3),
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "bootstrap" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL,
    "tokenId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" SERIAL NOT NULL,
    "ts" TIMESTAMP(3) NOT NULL,
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
    "denied" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "AuditEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Launch" (
    "id" TEXT NOT NULL,
    "workspace" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "requestFingerprint" TEXT NOT NULL,
    "specProvider" TEXT,
    "specModel" TEXT,
    "dedupKey" TEXT,
    "activeDedupKey" TEXT,
    "priority" INTEGER NOT NULL DEFAULT 50,
    "notBefore" TIMESTAMP(3),
    "timeoutMs" INTEGER,
    "retryMaxAttempts" INTEGER NOT NULL DEFAULT 1,
    "retryBackoffMs" INTEGER NOT NULL DEFAULT 10000,
    "retryMaxBackoffMs" INTEGER NOT NULL DEFAULT 300000,
    "state" TEXT NOT NULL,
    "attemptCount" INTEGER NOT NULL DEFAULT 0,
    "agentId" TEXT,
    "retryAt" TIMESTAMP(3),
    "stopRequest" TEXT,
    "reason" TEXT,
    "scheduleId" TEXT,
    "afterLaunchId" TEXT,
    "createdBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "dispatchedAt" TIMESTAMP(3),
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Launch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LaunchAttempt" (
    "id" SERIAL NOT NULL,
    "launchId" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "workspace" TEXT NOT NULL,
    "specFingerprint" TEXT NOT NULL,
    "requestedAt" TIMESTAMP(3) NOT NULL,
    "kind" TEXT NOT NULL,
    "respawnOf" TEXT,
    "agentId" TEXT,
    "outcome" TEXT,
    "error" TEXT,
    "transient" BOOLEAN,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "LaunchAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LaunchTransition" (
    "id" SERIAL NOT NULL,
    "launchId" TEXT NOT NULL,
    "from" TEXT,
    "to" TEXT NOT NULL,
    "reason" TEXT,
    "attempt" INTEGER,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LaunchTransition_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Cap" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "max" INTEGER NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT,

    CONSTRAINT "Cap_pkey" PRIMARY KEY ("scope","key")
);

-- CreateTable
CREATE TABLE "Budget" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "limitUsd" DOUBLE PRECISION NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT,

    CONSTRAINT "Budget_pkey" PRIMARY KEY ("scope","key","period")
);

-- CreateTable
CREATE TABLE "Schedule" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "workspace" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timeZone" TEXT NOT NULL,
    "template" JSONB NOT NULL,
    "overlap" TEXT NOT NULL,
    "missed" TEXT NOT NULL,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "lastFireAt" TIMESTAMP(3),
    "nextFireAt" TIMESTAMP(3),
    "createdBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "deletedAt" TIMESTAMP(3),

    CONSTRAINT "Schedule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ScheduleFiring" (
    "id" SERIAL NOT NULL,
    "scheduleId" TEXT NOT NULL,
    "fireAt" TIMESTAMP(3) NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "trigger" TEXT NOT NULL,
    "launchId" TEXT,
    "skippedReason" TEXT,

    CONSTRAINT "ScheduleFiring_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InboxItem" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "workspace" TEXT,
    "agentId" TEXT,
    "launchId" TEXT,
    "check" TEXT,
    "subject" TEXT,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "activeKey" TEXT,
    "openedAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "snoozedUntil" TIMESTAMP(3),
    "closedAt" TIMESTAMP(3),
    "resolution" TEXT,
    "closedBy" TEXT,
    "closeReason" TEXT,
    "escalations" INTEGER NOT NULL DEFAULT 0,
    "lastNotifiedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "InboxItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InboxAction" (
    "id" SERIAL NOT NULL,
    "itemId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "actor" TEXT,
    "detail" TEXT,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "InboxAction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HealthThreshold" (
    "check" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT,

    CONSTRAINT "HealthThreshold_pkey" PRIMARY KEY ("check")
);

-- CreateTable
CREATE TABLE "Webhook" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "events" JSONB NOT NULL,
    "secret" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "createdBy" TEXT,
    "deletedAt" TIMESTAMP(3),

    CONSTRAINT "Webhook_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "webhookId" TEXT NOT NULL,
    "notificationId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "lastAttemptAt" TIMESTAMP(3),
    "lastStatus" INTEGER,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "deliveredAt" TIMESTAMP(3),

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunCapture" (
    "agentId" TEXT NOT NULL,
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
    "capturedAt" TIMESTAMP(3),
    "fileCount" INTEGER NOT NULL DEFAULT 0,
    "additions" INTEGER NOT NULL DEFAULT 0,
    "deletions" INTEGER NOT NULL DEFAULT 0,
    "skippedFiles" INTEGER NOT NULL DEFAULT 0,
    "skippedBytes" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "capNote" TEXT,
    "appliedBranch" TEXT,
    "appliedCommit" TEXT,
    "appliedAt" TIMESTAMP(3),
    "appliedBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RunCapture_pkey" PRIMARY KEY ("agentId")
);

-- CreateTable
CREATE TABLE "CapturedFile" (
    "agentId" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "workspace" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "additions" INTEGER,
    "deletions" INTEGER,

    CONSTRAINT "CapturedFile_pkey" PRIMARY KEY ("agentId","path")
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
CREATE INDEX "Event_agentId_id_idx" ON "Event"("agentId", "id");

-- CreateIndex
CREATE INDEX "Event_workspace_id_idx" ON "Event"("workspace", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Event_streamKey_seq_key" ON "Event"("streamKey", "seq");

-- CreateIndex
CREATE INDEX "Agent_workspace_startedAt_idx" ON "Agent"("workspace", "startedAt");

-- CreateIndex
CREATE INDEX "Agent_status_idx" ON "Agent"("status");

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

-- CreateIndex
CREATE UNIQUE INDEX "InboxItem_activeKey_key" ON "InboxItem"("activeKey");

-- CreateIndex
CREATE INDEX "InboxItem_state_openedAt_idx" ON "InboxItem"("state", "openedAt");

-- CreateIndex
CREATE INDEX "InboxItem_workspace_state_idx" ON "InboxItem"("workspace", "state");

-- CreateIndex
CREATE INDEX "InboxItem_agentId_idx" ON "InboxItem"("agentId");

-- CreateIndex
CREATE INDEX "InboxAction_itemId_id_idx" ON "InboxAction"("itemId", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_state_nextAttemptAt_idx" ON "WebhookDelivery"("state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_webhookId_createdAt_idx" ON "WebhookDelivery"("webhookId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_webhookId_notificationId_key" ON "WebhookDelivery"("webhookId", "notificationId");

-- CreateIndex
CREATE INDEX "RunCapture_workspace_state_idx" ON "RunCapture"("workspace", "state");

-- CreateIndex
CREATE INDEX "CapturedFile_workspace_path_idx" ON "CapturedFile"("workspace", "path");

-- AddForeignKey
ALTER TABLE "Event" ADD CONSTRAINT "Event_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_workspace_fkey" FOREIGN KEY ("workspace") REFERENCES "Workspace"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_respawnedFrom_fkey" FOREIGN KEY ("respawnedFrom") REFERENCES "Agent"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "ApiToken"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LaunchAttempt" ADD CONSTRAINT "LaunchAttempt_launchId_fkey" FOREIGN KEY ("launchId") REFERENCES "Launch"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LaunchTransition" ADD CONSTRAINT "LaunchTransition_launchId_fkey" FOREIGN KEY ("launchId") REFERENCES "Launch"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ScheduleFiring" ADD CONSTRAINT "ScheduleFiring_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "Schedule"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "InboxAction" ADD CONSTRAINT "InboxAction_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "InboxItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CapturedFile" ADD CONSTRAINT "CapturedFile_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "RunCapture"("agentId") ON DELETE CASCADE ON UPDATE CASCADE;

