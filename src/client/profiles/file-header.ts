/**
 * The optional JSON header of version 1.1 persistor files: `{...header...}\r\n\r\n<body>`.
 * Version 1.0 files have no header; their first bytes are a random IV.
 */
import { stringifySorted } from './sorted-json.js';

export const FILE_HEADER_DELIMITER = '\r\n\r\n';
export const PROFILES_FILE_TYPE_ID = 'ionic-device-profiles';

export interface PersistorFileHeader {
  extra?: unknown;
  fileTypeId?: unknown;
  format?: unknown;
  version?: unknown;
  [field: string]: unknown;
}

export interface SplitFile {
  header: PersistorFileHeader | undefined;
  body: Buffer;
}

/** Far above the header the SDKs write (about 80 bytes). */
const HEADER_MAX_BYTES = 64 * 1024;

/**
 * The SDKs look for the first `\r\n\r\n` anywhere in the file. Random IV bytes of a 1.0 file can
 * contain that sequence, so a header is only taken when the file also starts with `{` and the
 * text before the delimiter is a JSON object: both together do not happen by chance.
 */
export function splitFileHeader(bytes: Buffer): SplitFile {
  const noHeader = { header: undefined, body: bytes };
  if (bytes[0] !== 0x7b /* '{' */) {
    return noHeader;
  }
  const end = bytes.indexOf(FILE_HEADER_DELIMITER);
  // A header is a salt and a version: one far larger is no header, and is not parsed.
  if (end < 0 || end > HEADER_MAX_BYTES) {
    return noHeader;
  }
  let header: unknown;
  try {
    header = JSON.parse(bytes.subarray(0, end).toString('utf8'));
  } catch {
    return noHeader;
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    return noHeader;
  }
  return {
    header: header as PersistorFileHeader,
    body: bytes.subarray(end + FILE_HEADER_DELIMITER.length),
  };
}

/** Header bytes plus delimiter, compact with sorted keys as the SDKs write it. */
export function formatFileHeader(format: string, version: string, extra: object): Buffer {
  const header = { extra, fileTypeId: PROFILES_FILE_TYPE_ID, format, version };
  return Buffer.from(stringifySorted(header) + FILE_HEADER_DELIMITER, 'utf8');
}
