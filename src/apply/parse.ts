import { parseValidJson } from './parse-json.js';
import type { ParsedFile, ParseOptions, SourceText } from './file-format.js';

/**
 * Reads one file's text: syntax (YAML, or JSON with JSON's own rules), then the structure. JSON
 * text (a `.json` file, or any text that starts with `{`, such as JSON on stdin) takes the fast
 * path first; a file it does not accept is read again here, for the problems and their positions.
 */
export async function parseMarkingsText(
  source: SourceText,
  options: ParseOptions = {},
): Promise<ParsedFile> {
  if ((options.fast ?? true) && (/\.json$/i.test(source.label) || /^\s*\{/.test(source.text))) {
    const markings = parseValidJson(source, options.single === true);
    if (markings !== undefined) return { markings, problems: [] };
  }
  // The YAML library takes longer to load than most JSON files take to read: only when needed.
  const { parseWithPositions } = await import('./parse-yaml.js');
  return parseWithPositions(source, options);
}
