-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN "endpoint" TEXT;
ALTER TABLE "Workspace" ADD COLUMN "caFile" TEXT;
ALTER TABLE "Workspace" ADD COLUMN "serverName" TEXT;
ALTER TABLE "Workspace" ADD COLUMN "tokenFromEnv" TEXT;
ALTER TABLE "Workspace" ADD COLUMN "tokenFile" TEXT;
