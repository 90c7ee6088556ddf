/** Where a marking was defined, for messages that send the user back to the file (1-based). */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export interface DesiredValue {
  name: string;
  /** Absent: keep the service's description (an existing value) or leave it empty (a new one). */
  description?: string;
}

/**
 * One marking as the files describe it. An absent field keeps what the service has; `values`,
 * when present, is the complete set (values not listed are deleted).
 */
export interface DesiredMarking {
  name: string;
  description?: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string | null;
  values?: DesiredValue[];
  source: SourcePosition;
}

export function formatPosition(position: SourcePosition): string {
  return `${position.file}:${position.line}:${position.column}`;
}

/**
 * Names are compared by UTF-16 code units, not by locale, so every order ksctl prints or writes
 * is the same on every machine.
 */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
