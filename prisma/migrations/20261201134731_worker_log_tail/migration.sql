-- AlterTable
ALTER TABLE "Agent" ADD COLUMN "exitCode" INTEGER;
ALTER TABLE "Agent" ADD COLUMN "failureLogTail" TEXT;
ALTER TABLE "Agent" ADD COLUMN "failureLogTruncated" BOOLEAN;
ALTER TABLE "Agent" ADD COLUMN "failureReason" TEXT;

