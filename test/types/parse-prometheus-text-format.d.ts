/**
 * Types of parse-prometheus-text-format 1.1.1 (it ships none), as its README documents the output
 * (prom2json's shape): one family per metric name, values as strings, histograms with `buckets`.
 */
declare module "parse-prometheus-text-format" {
  /** A sample of a counter, gauge or untyped family. */
  export interface PrometheusSample {
    value: string;
    labels?: Record<string, string>;
  }
  /** A histogram sample: cumulative counts by upper bound (`le`), plus count and sum. */
  export interface PrometheusHistogramSample {
    buckets: Record<string, string>;
    count: string;
    sum: string;
    labels?: Record<string, string>;
  }
  /** A summary sample. */
  export interface PrometheusSummarySample {
    quantiles?: Record<string, string>;
    count: string;
    sum: string;
    labels?: Record<string, string>;
  }
  /** One metric family. */
  export interface PrometheusFamily {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: (PrometheusSample | PrometheusHistogramSample | PrometheusSummarySample)[];
  }
  /** Parse the Prometheus text exposition format. */
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
