import { parseValidJson } from './parse-json.js';
import type { DesiredMarking, SourcePosition } from './types.js';

/** The text of one markings file, or of stdin (labelled `<stdin>`). */
export interface SourceText {
  label: string;
  text: string;
}

export interface Problem {
  position: SourcePosition;
  /** Offset in the file, to list a file's problems in reading order. */
  offset: number;
  reason: string;
}

/** A marking read from a file, with where its name is, for duplicate reports. */
export interface ParsedMarking {
  marking: DesiredMarking;
  nameOffset: number;
  namePosition: SourcePosition;
}

export interface ParsedFile {
  markings: ParsedMarking[];
  problems: Problem[];
}

/** The keys a markings file may use at each level (the JSON Schema must list the same). */
export const FILE_KEYS = {
  document: ['markings', '$schema'],
  marking: ['name', 'description', 'public', 'adminOnly', 'defaultValue', 'values'],
  value: ['name', 'description'],
} as const;

export interface ParseOptions {
  /** Try `JSON.parse` first for JSON text (default true); false always keeps positions. */
  fast?: boolean;
  /**
   * A marking document (`markings create|update -f`): the top level may be one marking itself,
   * `{name, description, ...}`, instead of a `markings` list.
   */
  single?: boolean;
}

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
