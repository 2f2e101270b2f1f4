-- CreateTable
CREATE TABLE "InboxItem" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "openedAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "snoozedUntil" DATETIME,
    "closedAt" DATETIME,
    "resolution" TEXT,
    "closedBy" TEXT,
    "closeReason" TEXT,
    "escalations" INTEGER NOT NULL DEFAULT 0,
    "lastNotifiedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "InboxAction" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "itemId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "actor" TEXT,
    "detail" TEXT,
    "at" DATETIME NOT NULL,
    CONSTRAINT "InboxAction_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "InboxItem" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "HealthThreshold" (
    "check" TEXT NOT NULL PRIMARY KEY,
    "value" REAL NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT
);

-- CreateTable
CREATE TABLE "Webhook" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "events" JSONB NOT NULL,
    "secret" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" DATETIME NOT NULL,
    "createdBy" TEXT,
    "deletedAt" DATETIME
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "webhookId" TEXT NOT NULL,
    "notificationId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME,
    "lastAttemptAt" DATETIME,
    "lastStatus" INTEGER,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL,
    "deliveredAt" DATETIME,
    CONSTRAINT "WebhookDelivery_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

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

