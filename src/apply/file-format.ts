/**
 * The shape of a markings file as the readers see it: the keys each level may use, the text
 * read, and what reading it gives. The fast JSON reader (parse-json.ts) and the YAML reader with
 * positions (parse-yaml.ts) both work to it; parse.ts chooses between them.
 */
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
