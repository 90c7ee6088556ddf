/**
 * The console's charts (`GET /_mock/console/api/stats`): for each of the last 600 seconds, the
 * requests of each side, the median and 95th percentile of their answer times, and the errors by
 * status. A ring of 600 one-second buckets, written as each request is recorded: a few additions
 * and one logarithm a request, no allocation but for the first error of a status in a second.
 * Answer times are counted in logarithmic bins 10 % wide, so a percentile is right within 5 %.
 */
import { REQUEST_SIDES, type RequestSide } from '../../../common/mock/wire.js';
import type { ConsoleSecond } from '../../../common/mock/wire.js';

export const STATS_SECONDS = 600;
/** The lowest bin holds answers up to this many milliseconds; each next one is 10 % wider. */
const FIRST_BIN_MS = 0.05;
const BIN_RATIO = 1.1;
/** Enough bins for answers up to about 15 minutes. */
const BINS = 200;
const LOG_RATIO = Math.log(BIN_RATIO);

interface Bucket {
  /** The epoch second it holds, or -1. */
  t: number;
  counts: number[];
  total: number;
  errors: Map<number, number> | undefined;
}

function binOf(ms: number): number {
  if (!(ms > FIRST_BIN_MS)) return 0;
  return Math.min(BINS - 1, 1 + Math.floor(Math.log(ms / FIRST_BIN_MS) / LOG_RATIO));
}

/** The middle of a bin, in milliseconds rounded to 0.01. */
function binMiddle(bin: number): number {
  const ms = bin === 0 ? FIRST_BIN_MS : FIRST_BIN_MS * BIN_RATIO ** (bin - 0.5);
  return Math.round(ms * 100) / 100;
}

export class RequestStats {
  private readonly buckets: Bucket[] = [];
  /** BINS counters a second, all seconds in one array. */
  private readonly times = new Uint32Array(STATS_SECONDS * BINS);

  constructor(private readonly now: () => number = Date.now) {
    for (let i = 0; i < STATS_SECONDS; i++)
      this.buckets.push({ t: -1, counts: [0, 0, 0, 0], total: 0, errors: undefined });
  }

  add(side: RequestSide, status: number, durationMs: number): void {
    const second = Math.floor(this.now() / 1000);
    const index = second % STATS_SECONDS;
    const bucket = this.buckets[index]!;
    if (bucket.t !== second) this.restart(bucket, index, second);
    bucket.counts[REQUEST_SIDES.indexOf(side)]!++;
    bucket.total++;
    this.times[index * BINS + binOf(durationMs)]!++;
    if (status >= 400) {
      bucket.errors ??= new Map();
      bucket.errors.set(status, (bucket.errors.get(status) ?? 0) + 1);
    }
  }

  /** Every second of the last ten minutes after `since` (epoch seconds), oldest first. */
  seconds(since = 0): ConsoleSecond[] {
    const current = Math.floor(this.now() / 1000);
    const out: ConsoleSecond[] = [];
    for (let t = Math.max(current - STATS_SECONDS + 1, since + 1); t <= current; t++) {
      const index = t % STATS_SECONDS;
      const bucket = this.buckets[index]!;
      if (bucket.t !== t) {
        out.push({
          t,
          markings: 0,
          enrollment: 0,
          device: 0,
          admin: 0,
          p50: 0,
          p95: 0,
          errors: {},
        });
        continue;
      }
      const [markings, enrollment, device, admin] = bucket.counts as [
        number,
        number,
        number,
        number,
      ];
      out.push({
        t,
        markings,
        enrollment,
        device,
        admin,
        p50: this.percentile(index, bucket.total, 0.5),
        p95: this.percentile(index, bucket.total, 0.95),
        errors: Object.fromEntries(
          [...(bucket.errors ?? [])].map(([status, n]) => [String(status), n]),
        ),
      });
    }
    return out;
  }

  private percentile(index: number, total: number, fraction: number): number {
    const rank = Math.ceil(total * fraction);
    let seen = 0;
    for (let bin = 0; bin < BINS; bin++) {
      seen += this.times[index * BINS + bin]!;
      if (seen >= rank) return binMiddle(bin);
    }
    return 0;
  }

  private restart(bucket: Bucket, index: number, second: number): void {
    bucket.t = second;
    bucket.counts.fill(0);
    bucket.total = 0;
    bucket.errors = undefined;
    this.times.fill(0, index * BINS, (index + 1) * BINS);
  }
}
