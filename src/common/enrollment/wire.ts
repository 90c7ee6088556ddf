/**
 * Wire types of enrollment (docs/design.md section 2): the registration, the portal's headers, the
 * key name service's answer and the tokens a user enrolls with. Imported by both the client
 * (src/client/enroll) and the mock (src/mock/enrollment), so the two cannot drift.
 */

export interface RegisterRequest {
  k: string;
  p: string;
  s: string;
  g: string;
}

export interface RegisterResponse {
  deviceID: string;
  SEPAESK: string;
  'SEPAESK-IDC': string;
  /**
   * `CID|ENROLLMENT|<X-Conversation-ID uuid>|<keyspace>|<epoch ms>|<version>`: the Java SDK
   * requires it and checks the uuid; the mock always sends it.
   */
  cid?: string;
}

/** The JSON object encrypted inside `p`. */
export interface EnrollmentPayload {
  TKRespPubKDERB64: string;
  AUTH: string;
}

/** Response headers of a portal login (docs/design.md 2.1). */
export const PORTAL_HEADERS = {
  stoken: 'x-ionic-reg-stoken',
  uidauth: 'x-ionic-reg-uidauth',
  apiUrl: 'x-ionic-reg-ionic-url',
  pubkeyUrl: 'x-ionic-reg-pubkey-url',
  keyspace: 'x-ionic-reg-enrollment-tag',
  /** Later SDKs: the API URL (comma-separated when several). */
  apiUrls: 'x-ionic-reg-ionic-api-urls',
  /** Later SDKs: the key server public key inline, Base64 DER. */
  pubkey: 'x-ionic-reg-pubkey',
} as const;

export interface KnsAnswer {
  keyspace: string;
  fqdn: string;
  ttlSeconds: number;
  answers: {
    enroll: string[];
    tenantid: string[];
    url: string[];
  };
}

/** The portal's tokens (docs/design.md 2.2): what the mock's `/_mock/tokens` hands out. */
export interface TokenPair {
  stoken: string;
  uidauth: string;
}
