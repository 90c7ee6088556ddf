import { randomBytes } from 'node:crypto';

const randomPart = () => randomBytes(5).toString('hex');

/**
 * 24 lower-case hex ids that are never reused: seconds, a per-process random part, and a counter
 * (the layout of a MongoDB ObjectId, which the public Ionic API uses). A durable state remembers
 * the random parts of earlier runs, so a restarted mock never takes one of them again.
 */
export class IdGenerator {
  private counter = randomBytes(3).readUIntBE(0, 3);
  private part = randomPart();
  private readonly retired = new Set<string>();
  private second = Number.NaN;
  private secondHex = '';

  /** The random part of this run's ids. */
  get processPart(): string {
    return this.part;
  }

  /** Marks a random part as used by an earlier run; this run then picks another. */
  retire(part: string): void {
    this.retired.add(part);
    while (this.retired.has(this.part)) this.part = randomPart();
  }

  /** The parts of earlier runs, then this run's. */
  usedParts(): string[] {
    return [...this.retired, this.part];
  }

  next(now = Date.now()): string {
    this.counter = (this.counter + 1) % 0x1000000;
    // A bulk request takes 50,000 ids within the same second: its hex digits are spelt once.
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.secondHex = second.toString(16).padStart(8, '0').slice(-8);
    }
    return `${this.secondHex}${this.part}${this.counter.toString(16).padStart(6, '0')}`;
  }
}
