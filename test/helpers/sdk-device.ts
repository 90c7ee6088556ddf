/**
 * A device client written from the vendor SDK page (spec/device-requests-sdks.md), not from the
 * mock's code: its own crypto on node:crypto, its own cid, envelope and AAD code, and nothing
 * imported from src/. It speaks both dialects and can behave like each SDK where they differ:
 * the Java SDK's unpadded nonce and its answer-cid check on registration, the JS SDK's lowercase
 * `tkRespPubKDERB64`, its `hfp` on the first call, its index matching of modify answers and its
 * request without a Content-Type. Every check an SDK makes on an answer is made here too, so a
 * test that passes shows the SDK would accept the answer.
 */
import {
  constants,
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPublicKey,
  type KeyObject,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
  randomUUID,
  sign,
} from 'node:crypto';

export type Dialect = '2.3' | '2.4';
export type Attrs = Record<string, string[]>;

/** How the client behaves where the SDKs differ. */
export interface Quirks {
  /** Java: the cid's nonce without its `=` padding. */
  unpaddedNonce?: boolean;
  /** JS: the full fingerprint on the very first call, never a 4001 retry. */
  hfpFirst?: boolean;
  /** JS in a browser: the request goes out as text/plain. */
  textPlain?: boolean;
}

export interface Sep {
  deviceId: string;
  /** SEP.CD:IDC: the envelope key. */
  idc: Buffer;
  /** SEP.CD:KS: signs attributes, wraps data keys. */
  ks: Buffer;
}

/** What a device holds of a key after create or fetch. */
export interface HeldKey {
  id: string;
  key: Buffer;
  cattrs: Attrs;
  mattrs: Attrs;
  /** The service's signatures: what a guarded update quotes. */
  csig: string;
  msig: string;
}

export class SdkProtocolError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

// --- crypto, as the SDK page gives it -------------------------------------------------------

function gcmSeal(key: Buffer, aad: string, plain: Buffer): Buffer {
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

function gcmOpen(key: Buffer, aad: string, sealed: Buffer): Buffer {
  if (sealed.length < 32) throw new SdkProtocolError('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 16));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  try {
    return Buffer.concat([
      decipher.update(sealed.subarray(16, sealed.length - 16)),
      decipher.final(),
    ]);
  } catch {
    throw new SdkProtocolError(`GCM does not open (AAD ${aad})`);
  }
}

function hmac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('base64');
}

/** csig/msig of a request: SHA-256 of the attribute text, sealed under SEP.CD:KS. */
function attrSig(ks: Buffer, aad: string, text: string): string {
  return gcmSeal(ks, aad, createHash('sha256').update(text, 'utf8').digest()).toString('base64');
}

/** Attribute text; `ionic-protected-*` values sealed under SEP.CD:KS with the name as AAD. */
function attrText(ks: Buffer, attrs: Attrs): string {
  const out: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(attrs)) {
    out[name] = name.startsWith('ionic-protected-')
      ? [gcmSeal(ks, name, Buffer.from(JSON.stringify(values))).toString('base64')]
      : values;
  }
  return JSON.stringify(out);
}

/** Attributes of a fetch answer: values are lists; protected ones open with the data key, AAD id. */
function readAttrs(text: string, dataKey: Buffer, id: string): Attrs {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const out: Attrs = {};
  for (const [name, values] of Object.entries(parsed)) {
    if (!Array.isArray(values)) throw new SdkProtocolError(`attribute ${name} is not an array`);
    out[name] = name.startsWith('ionic-protected-')
      ? (JSON.parse(
          gcmOpen(dataKey, id, Buffer.from(values[0] as string, 'base64')).toString(),
        ) as string[])
      : (values as string[]);
  }
  return out;
}

/** The SDKs' hex decoding: the Java SDK reads only lowercase digits. */
function fromLowerHex(text: unknown): Buffer {
  if (typeof text !== 'string' || !/^(?:[0-9a-f]{2})+$/.test(text)) {
    throw new SdkProtocolError(`key is not lowercase hex: ${String(text).slice(0, 20)}`);
  }
  return Buffer.from(text, 'hex');
}

/**
 * How the client sends a request: the global fetch by default; a test of HTTPS trust passes one
 * that goes through curl or another Node process (test/helpers/tls-transports.ts).
 */
export type Transport = (url: string, init?: RequestInit) => Promise<Response>;

// --- enrollment -----------------------------------------------------------------------------

export interface Enrollment {
  apiUrl: string;
  enrollmentUrl: string;
  keyspace: string;
  stoken: string;
  uidauth: string;
  /** The device's RSA key pair (3072 bits), generated once by the caller. */
  devicePublic: KeyObject;
  devicePrivate: KeyObject;
  dialect: Dialect;
  /** The JS SDK's spelling of the public key member. */
  lowercaseField?: boolean;
  transport?: Transport;
}

/** Registers as the SDKs do, checking the answer as Java does (its cid) and JS does (status 200). */
export async function register(e: Enrollment): Promise<Sep> {
  const send = e.transport ?? fetch;
  const pubText = await (await send(`${e.enrollmentUrl}/keyspace/${e.keyspace}/pubkey`)).text();
  const serverKey = createPublicKey({
    key: Buffer.from(pubText.replace(/[\r\n]/g, ''), 'base64'),
    format: 'der',
    type: 'spki',
  });
  const session = randomBytes(32);
  const iv = randomBytes(16);
  const field = e.lowercaseField ? 'tkRespPubKDERB64' : 'TKRespPubKDERB64';
  const payload = JSON.stringify({
    [field]: e.devicePublic.export({ format: 'der', type: 'spki' }).toString('base64'),
    AUTH: Buffer.from(`${e.stoken},${e.uidauth}`).toString('base64'),
  });
  const ctr = createCipheriv('aes-256-ctr', session, iv);
  const p = Buffer.concat([iv, ctr.update(payload), ctr.final()]).toString('base64');
  const s = publicEncrypt(
    { key: serverKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
    session,
  ).toString('base64');
  const g = sign('sha256', Buffer.from(p, 'ascii'), {
    key: e.devicePrivate,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength: 32,
  }).toString('base64');
  const conversation = randomUUID();
  const response = await send(`${e.apiUrl}/v${e.dialect}/register/${e.keyspace}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-conversation-id': conversation },
    body: JSON.stringify({ g, k: e.keyspace, p, s }),
  });
  const answer = (await response.json()) as Record<string, string>;
  if (response.status !== 200) {
    throw new SdkProtocolError(`register answered ${response.status}: ${JSON.stringify(answer)}`);
  }
  // Java: CID|ENROLLMENT|<the request's uuid>|<keyspace>|<digits>|<version>.
  const cid = /^CID\|ENROLLMENT\|(\S+)\|\S+\|\d+\|\S+$/.exec(answer.cid ?? '');
  if (!cid || cid[1] !== conversation) {
    throw new SdkProtocolError(`register answer cid ${answer.cid} does not quote ${conversation}`);
  }
  const sepaesk = Buffer.from(answer.SEPAESK!, 'base64');
  const dctr = createDecipheriv('aes-256-ctr', session, sepaesk.subarray(0, 16));
  const ks = Buffer.concat([dctr.update(sepaesk.subarray(16)), dctr.final()]);
  const idc = privateDecrypt(
    { key: e.devicePrivate, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
    Buffer.from(answer['SEPAESK-IDC']!, 'base64'),
  );
  if (ks.length !== 32 || idc.length !== 32)
    throw new SdkProtocolError('SEP keys are not 32 bytes');
  return { deviceId: answer.deviceID!, idc, ks };
}

// --- device requests ------------------------------------------------------------------------

const HFP = JSON.stringify({ sdk: 'independent test client', host: 'loopback' });
const HFPHASH = createHash('sha256').update(HFP).digest('hex');

export class SdkDevice {
  private hfpSent = false;
  /** Every cid this device sent, newest last. */
  readonly cids: string[] = [];

  constructor(
    readonly sep: Sep,
    private readonly apiUrl: string,
    private readonly quirks: Quirks = {},
    private readonly transport: Transport = fetch,
  ) {}

  get keyspace(): string {
    return this.sep.deviceId.slice(0, this.sep.deviceId.indexOf('.'));
  }

  cid(dialect: Dialect): string {
    let nonce = randomBytes(4).toString('base64');
    if (this.quirks.unpaddedNonce) nonce = nonce.replace(/=+$/, '');
    const parts = ['CID', this.sep.deviceId, String(Date.now()), nonce];
    return (dialect === '2.4' ? [...parts, '2.4.0'] : parts).join('|');
  }

  /**
   * One enveloped call: the answer must carry the request's cid and open under it; a 4001 is
   * answered once with the full fingerprint and a new cid (the JS quirk sends it at once).
   * Returns the opened inner answer; an inner `error` with a code throws.
   */
  async call(
    path: string,
    dialect: Dialect,
    data: (cid: string) => unknown,
  ): Promise<{ cid: string; status: number; inner: Record<string, unknown> }> {
    let withHfp = this.quirks.hfpFirst === true && !this.hfpSent;
    for (let attempt = 0; attempt < 2; attempt++) {
      const cid = this.cid(dialect);
      this.cids.push(cid);
      const meta: Record<string, string> = { hfphash: HFPHASH };
      if (withHfp) meta.hfp = HFP;
      const envelope = gcmSeal(
        this.sep.idc,
        cid,
        Buffer.from(JSON.stringify({ data: data(cid), meta })),
      );
      const response = await this.transport(this.apiUrl + path, {
        method: 'POST',
        headers: this.quirks.textPlain
          ? { 'content-type': 'text/plain;charset=UTF-8' }
          : {
              'content-type': 'application/json; charset=utf-8',
              'user-agent': 'Ionic Fusion Agent',
            },
        body: JSON.stringify({ cid, envelope: envelope.toString('base64') }),
      });
      if (withHfp) this.hfpSent = true;
      const type = response.headers.get('content-type') ?? '';
      if (!type.includes('application/json')) throw new SdkProtocolError(`answer is ${type}`);
      if (response.headers.get('content-encoding'))
        throw new SdkProtocolError('answer is compressed');
      const outer = (await response.json()) as Record<string, unknown>;
      if (outer.cid !== cid || typeof outer.envelope !== 'string') {
        throw new SdkProtocolError(
          `answer ${response.status} has no envelope under the request's cid: ${JSON.stringify(outer)}`,
          (outer.error as { code?: number } | undefined)?.code,
        );
      }
      if (response.status >= 500) throw new SdkProtocolError(`answer status ${response.status}`);
      const inner = JSON.parse(
        gcmOpen(this.sep.idc, cid, Buffer.from(outer.envelope, 'base64')).toString('utf8'),
      ) as Record<string, unknown>;
      const error = inner.error as { code?: unknown; message?: unknown } | undefined;
      if (typeof error?.code === 'number' && error.code === 4001 && !withHfp) {
        withHfp = true;
        continue;
      }
      if (typeof error?.code === 'number') {
        throw new SdkProtocolError(
          `service error ${error.code}: ${String(error.message)}`,
          error.code,
        );
      }
      return { cid, status: response.status, inner };
    }
    throw new SdkProtocolError('4001 twice');
  }

  /** Create keys under one ref; v2.4 with mutable attributes too. */
  async create(
    dialect: Dialect,
    ref: string,
    qty: number,
    cattrs: Attrs,
    mattrs: Attrs = {},
  ): Promise<HeldKey[]> {
    const sent: { cattrs?: string; mattrs?: string; csig?: string; msig?: string } = {};
    const { cid, inner } = await this.call(`/v${dialect}/keys/create`, dialect, (cid) => {
      sent.cattrs = attrText(this.sep.ks, cattrs);
      sent.csig = attrSig(this.sep.ks, `${cid}:${ref}`, sent.cattrs);
      if (dialect === '2.3') {
        return { 'protection-keys': [{ ref, qty, cattrs: sent.cattrs, csig: sent.csig }] };
      }
      sent.mattrs = attrText(this.sep.ks, mattrs);
      sent.msig = attrSig(this.sep.ks, `${cid}:m:${ref}`, sent.mattrs);
      return { 'protection-keys': [{ ref, qty, ...sent }] };
    });
    const data = inner.data as { 'protection-keys'?: Record<string, unknown>[] };
    const keys = data['protection-keys'] ?? [];
    if (keys.length !== qty)
      throw new SdkProtocolError(`asked for ${qty} keys, got ${keys.length}`);
    return keys.map((k) => {
      if (k.ref !== ref)
        throw new SdkProtocolError(`answer ref ${String(k.ref)} was not asked for`);
      const id = k.id as string;
      const aad =
        dialect === '2.3' ? [cid, ref, id, sent.csig] : [cid, ref, id, sent.csig, sent.msig];
      const key = gcmOpen(this.sep.ks, aad.join(':'), fromLowerHex(k.key));
      if (
        typeof k.csig !== 'string' ||
        k.csig === '' ||
        typeof k.msig !== 'string' ||
        k.msig === ''
      ) {
        throw new SdkProtocolError('create answer lacks csig/msig');
      }
      return { id, key, cattrs, mattrs, csig: k.csig, msig: k.msig };
    });
  }

  /** Fetch by ids; per-key errors from `data.errorMap` (v2.4) or the inner `error` (v2.3). */
  async fetch(
    dialect: Dialect,
    ids: string[],
    queries?: Record<string, Record<string, unknown>>,
  ): Promise<{
    keys: HeldKey[];
    errors: Record<string, { code: number; message: string }>;
    queryResults?: Record<string, { ids?: string[] }>;
  }> {
    const { cid, inner } = await this.call(`/v${dialect}/keys/fetch`, dialect, () => ({
      'protection-keys': ids,
      ...(queries ? { 'protection-key-queries': queries } : {}),
    }));
    const data = inner.data as Record<string, unknown>;
    const keys = ((data['protection-keys'] ?? []) as Record<string, string>[]).map((k) => {
      // JS skips falsy sigs, Java null ones; the mock must send them all, non-empty.
      for (const member of ['cattrs', 'mattrs', 'csig', 'msig']) {
        if (typeof k[member] !== 'string' || k[member] === '') {
          throw new SdkProtocolError(`fetch answer lacks ${member} for ${k.id}`);
        }
      }
      const aad = dialect === '2.3' ? [cid, k.id, k.csig] : [cid, k.id, k.csig, k.msig];
      const key = gcmOpen(this.sep.ks, aad.join(':'), fromLowerHex(k.key));
      if (hmac(key, k.cattrs!) !== k.csig || hmac(key, k.mattrs!) !== k.msig) {
        throw new SdkProtocolError(`signatures of ${k.id} do not verify`);
      }
      return {
        id: k.id!,
        key,
        cattrs: readAttrs(k.cattrs!, key, k.id!),
        mattrs: readAttrs(k.mattrs!, key, k.id!),
        csig: k.csig!,
        msig: k.msig!,
      };
    });
    const errors = (dialect === '2.4' ? data.errorMap : inner.error) ?? {};
    return {
      keys,
      errors: errors as Record<string, { code: number; message: string }>,
      queryResults: data['query-results'] as Record<string, { ids?: string[] }> | undefined,
    };
  }

  /**
   * v2.4 modify. Java's item shape (`csig: ""`, prev* empty when forced) or the JS one (no csig,
   * absent prev* dropped); answers checked by index as JS does and by id as Java does, each
   * with its `sigs`.
   */
  async modify(
    changes: { key: HeldKey; mattrs: Attrs; force?: boolean; stalePrev?: boolean }[],
    shape: 'java' | 'js' = 'java',
  ): Promise<{
    modified: { id: string; csig: string; msig: string }[];
    errors: Record<string, { code: number; message: string }>;
  }> {
    const sent: Record<string, string | boolean>[] = [];
    const { inner } = await this.call('/v2.4/keys/modify', '2.4', (cid) => {
      sent.length = 0;
      for (const { key, mattrs, force = false, stalePrev } of changes) {
        const text = attrText(this.sep.ks, mattrs);
        const msig = attrSig(this.sep.ks, `${cid}:m:${key.id}${force ? ':force' : ''}`, text);
        const prevcsig = force ? '' : key.csig;
        const prevmsig = force ? '' : stalePrev ? hmac(randomBytes(32), 'x') : key.msig;
        const item: Record<string, string | boolean> =
          shape === 'java'
            ? { id: key.id, force, csig: '', prevcsig, prevmsig, mattrs: text, msig }
            : force
              ? { id: key.id, force, mattrs: text, msig }
              : { id: key.id, prevcsig, prevmsig, force, mattrs: text, msig };
        sent.push(item);
      }
      return { 'protection-keys': sent };
    });
    const data = inner.data as Record<string, unknown>;
    const answered = (data['protection-keys'] ?? []) as Record<string, string>[];
    const modified = answered.map((k, i) => {
      // JS takes the answer at index i for request i; Java looks the id up.
      const request = shape === 'js' ? sent[i] : sent.find((item) => item.id === k.id);
      if (request?.id !== k.id) {
        throw new SdkProtocolError(`answer ${i} is ${k.id}, not ${String(request?.id)}`);
      }
      const values = [request!.prevcsig, request!.csig, request!.prevmsig, request!.msig].map(
        (v) => (v === undefined ? '' : String(v)),
      );
      const expected = hmac(this.sep.ks, `${k.id}:${values.join(',')}`);
      if (k.sigs !== expected) throw new SdkProtocolError(`sigs of ${k.id} do not verify`);
      return { id: k.id!, csig: k.csig!, msig: k.msig! };
    });
    return {
      modified,
      errors: (data.errorMap ?? {}) as Record<string, { code: number; message: string }>,
    };
  }
}
