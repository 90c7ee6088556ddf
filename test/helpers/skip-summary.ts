/**
 * A vitest reporter that ends a run with how many tests were skipped and why: each reason given
 * to `context.skip(note)` (test/helpers/programs.ts gives the missing program and how to get it)
 * with its count, then those skipped without one (`.skip`, `.skipIf`). Nothing when none were.
 * A run narrowed by `-t` skips the rest on purpose: only the reasons given are listed then.
 */
import type { Reporter, TestModule } from 'vitest/node';
import type { Vitest } from 'vitest/node';

export default class SkipSummary implements Reporter {
  private filtered = false;

  onInit(vitest: Vitest): void {
    this.filtered = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const reasons = new Map<string, number>();
    let unexplained = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        if (result.note) reasons.set(result.note, (reasons.get(result.note) ?? 0) + 1);
        else unexplained += 1;
      }
    }
    if (this.filtered) unexplained = 0;
    const total = [...reasons.values()].reduce((a, b) => a + b, unexplained);
    if (total === 0) return;
    const lines = [`${total} ${total === 1 ? 'test' : 'tests'} skipped:`];
    for (const [note, count] of [...reasons].sort(
      (a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1),
    )) {
      lines.push(`  ${String(count).padStart(4)}  ${note}`);
    }
    if (unexplained > 0) {
      lines.push(
        `  ${String(unexplained).padStart(4)}  skipped in the test code (.skip, .skipIf, .todo)`,
      );
    }
    process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
