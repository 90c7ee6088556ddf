import { randomBytes } from 'node:crypto';

/**
 * 24 lower-case hex ids that are never reused: seconds, a per-process random part, and a counter
 * (the layout of a MongoDB ObjectId, which the public Ionic API uses).
 */
export class IdGenerator {
  private counter = randomBytes(3).readUIntBE(0, 3);
  private readonly processPart = randomBytes(5).toString('hex');

  next(now = Date.now()): string {
    this.counter = (this.counter + 1) % 0x1000000;
    const seconds = Math.floor(now / 1000)
      .toString(16)
      .padStart(8, '0')
      .slice(-8);
    return `${seconds}${this.processPart}${this.counter.toString(16).padStart(6, '0')}`;
  }
}
