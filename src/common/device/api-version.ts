/**
 * The dialects of the device request format, named by the version in their paths. Apart from
 * cid.ts (which needs node:crypto) so that the command line can check `--api-version` without
 * loading it at start-up.
 */
export const API_VERSIONS = ['2.3', '2.4'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

export function isApiVersion(text: string): text is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(text);
}
