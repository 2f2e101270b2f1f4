-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN "endpoint" TEXT;
ALTER TABLE "Workspace" ADD COLUMN "serverName" TEXT;
