/**
 * The shape of a markings file as the readers see it: the keys each level may use, the text
 * read, and what reading it gives. The fast JSON reader (parse-json.ts) and the YAML reader with
 * positions (parse-yaml.ts) both work to it; parse.ts chooses between them.
 */
import type { NodeBudget } from '../files/node-budget.js';
import type { DesiredMarking, SourcePosition } from './desired.js';

/**
 * Files up to this many characters are read with positions for every problem (parse-yaml.ts);
 * larger ones by parse-plain.ts, problems placed at their marking and named by path.
 * 512 KiB of the worst YAML takes ~130 MiB that way (bench group hostile-inputs).
 */
export const POSITIONS_MAX_CHARS = 512 * 1024;
/**
 * What a marking costs kept (its desired state, positions and checks: ~600 bytes), in values of
 * the node budget, beside the values it is written with: a file of tiny markings is bounded too.
 */
export const MARKING_WEIGHT = 12;

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
  /** Problems found beyond those kept in `problems` (a large file keeps a thousand). */
  unlisted?: number;
  /** Read without positions inside markings (a large file): problems are named by path. */
  withoutPositions?: boolean;
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
  /** The most values a file may hold (node-budget.ts); the default goes with the 64 MiB cap. */
  budget?: NodeBudget;
}
