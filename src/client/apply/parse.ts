import { INPUT_MAX_BYTES } from '../../common/files/bounded-read.js';
import {
  countJsonNodes,
  KEYS_MAX,
  nodeBudget,
  NESTING_MAX,
  nestedTooDeeplyError,
  tooManyKeysError,
  tooManyValuesError,
} from '../../common/files/node-budget.js';
import { parseValidJson } from './parse-json.js';
import {
  MARKING_WEIGHT,
  type ParsedFile,
  type ParseOptions,
  POSITIONS_MAX_CHARS,
  type SourceText,
} from '../../common/markings/file-format.js';

/**
 * Reads one file's text: syntax (YAML, or JSON with JSON's own rules), then the structure. JSON
 * text (a `.json` file, or any text that starts with `{`, such as JSON on stdin) takes the fast
 * path first; a file it does not accept is read again, for the problems and their positions.
 * A file of up to POSITIONS_MAX_CHARS is read with a position for every problem (parse-yaml.ts);
 * a larger one within the node budget, each marking checked as it is read (parse-plain.ts).
 */
export async function parseMarkingsText(
  source: SourceText,
  options: ParseOptions = {},
): Promise<ParsedFile> {
  const small = source.text.length <= POSITIONS_MAX_CHARS;
  const budget = options.budget ?? nodeBudget({ bytes: INPUT_MAX_BYTES, what: 'markings file' });
  // A large text that JSON.parse read: given to the reader of large files as it is, not again.
  let parsed: { data: unknown } | undefined;
  if ((options.fast ?? true) && (/\.json$/i.test(source.label) || /^\s*\{/.test(source.text))) {
    if (!small) {
      // Counted before JSON.parse builds anything: `[0,0,0` takes ~25 bytes a value parsed.
      const count = countJsonNodes(source.text, budget.nodes);
      if (count.nodes + count.entries * MARKING_WEIGHT > budget.nodes) {
        throw tooManyValuesError(source.label, budget);
      }
      if (count.depth > NESTING_MAX) throw nestedTooDeeplyError(source.label, budget.what);
      if (count.widest > KEYS_MAX) throw tooManyKeysError(source.label, budget.what);
      try {
        parsed = { data: JSON.parse(source.text) };
      } catch {
        // Not JSON after all: the reader of large files tells why, or reads it as YAML.
      }
    }
    if (small || parsed !== undefined) {
      const markings = parseValidJson(source, options.single === true, parsed);
      if (markings !== undefined) return { markings, problems: [] };
    }
  }
  if (!small) {
    const { parsePlain } = await import('./parse-plain.js');
    return parsePlain(source, options, budget, parsed);
  }
  // The YAML library takes longer to load than most JSON files take to read: only when needed.
  const { parseWithPositions } = await import('./parse-yaml.js');
  return parseWithPositions(source, options);
}
