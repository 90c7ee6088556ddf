/** Markdown for one group's results; targets are information, never pass/fail. */

export function ms(value) {
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${value.toFixed(0)} ms`;
}

export function bytes(value) {
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${(value / 1024 / 1024).toFixed(1)} MiB`;
}

function ratio(value) {
  return `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`;
}

/** `{ atMost: 1.5 }` or `{ atLeast: 10 }`, applied to the time ratio A/B. */
export function targetText(target, value) {
  if (!target) return '';
  const met = target.atMost !== undefined ? value <= target.atMost : value >= target.atLeast;
  const goal = target.atMost !== undefined ? `≤ ${target.atMost}×` : `≥ ${target.atLeast}×`;
  return `${goal} ${met ? '✓' : '✗'}`;
}

const cell = (text) => String(text).replace(/\|/g, '\\|');

export function groupTable(group, rows, notes) {
  const lines = [
    `### ${group.name}: ${group.title}`,
    '',
    '| benchmark | A | median A (IQR) | B | median B (IQR) | A/B | bytes A | bytes B | target A/B |',
    '|---|---|--:|---|--:|--:|--:|--:|---|',
  ];
  for (const { benchmark, result, error } of rows) {
    if (error) {
      lines.push(`| ${cell(benchmark.name)} | failed: ${cell(error.split('\n')[0])} ||||||||`);
      continue;
    }
    lines.push(
      `| ${[
        benchmark.name,
        `\`${benchmark.a.label}\``,
        `${ms(result.medianA)} (${ms(result.iqrA)})`,
        `\`${benchmark.b.label}\``,
        `${ms(result.medianB)} (${ms(result.iqrB)})`,
        ratio(result.ratio),
        bytes(result.bytesA),
        bytes(result.bytesB),
        targetText(benchmark.target, result.ratio),
      ]
        .map(cell)
        .join(' | ')} |`,
    );
  }
  lines.push('');
  for (const note of notes) lines.push(`- ${note}`);
  if (notes.length > 0) lines.push('');
  return `${lines.join('\n')}\n`;
}
