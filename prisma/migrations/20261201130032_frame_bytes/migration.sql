-- AlterTable
ALTER TABLE "Frame" ADD COLUMN "bytes" BLOB;

