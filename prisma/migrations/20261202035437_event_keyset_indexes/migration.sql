-- CreateIndex
CREATE INDEX "Event_agentId_id_idx" ON "Event"("agentId", "id");

-- CreateIndex
CREATE INDEX "Event_workspace_id_idx" ON "Event"("workspace", "id");

