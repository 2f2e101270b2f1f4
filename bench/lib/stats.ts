/** Latency summaries (HdrHistogram, microsecond resolution) and small number helpers. */
import * as hdr from "hdr-histogram-js";

/** p50/p99/max of a latency distribution, ms. */
export interface LatencySummary {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Records latencies in ms (kept at µs resolution, 1 µs – 10 min). */
export class LatencyRecorder {
  private readonly h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 600_000_000,
    numberOfSignificantValueDigits: 3,
  });

  /** Record one latency, ms (negative values — clock jitter between processes — count as 0). */
  record(ms: number): void {
    this.h.recordValue(Math.max(1, Math.round(ms * 1000)));
  }

  summary(): LatencySummary {
    return {
      count: this.h.totalCount,
      p50Ms: this.h.getValueAtPercentile(50) / 1000,
      p99Ms: this.h.getValueAtPercentile(99) / 1000,
      maxMs: this.h.maxValue / 1000,
    };
  }
}

/** Median of a non-empty list. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/** Bytes → MiB. */
export const mib = (bytes: number): number => bytes / 1048576;
