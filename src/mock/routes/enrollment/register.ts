/**
 * `POST /v2.3/register/{keyspace}` (service interface 4.2, docs/design.md 2.3) and the same at
 * `/v2.4/register/{keyspace}`, where the Java SDK registers: the answer carries, besides the
 * device id and the SEP keys, the `cid` that SDK requires (spec/device-requests-sdks.md 1).
 *
 * Order of the checks, cheapest and most general first:
 *   1. X-Conversation-ID (40009): without it no answer can be quoted.
 *   2. The path keyspace: malformed (40004), unknown (40401), enrollment disabled (41707),
 *      offline (50302). Routing comes before the body, and needs no crypto.
 *   3. Replay of this exact `p` (40005), once the body has the request's shape, before any RSA
 *      work, so replays cost nothing. A package counts as seen from then on, whatever the
 *      request's fate; a retry after a fault still works, since faults answer before this handler.
 *   4. openRegistration: shape, `k`, Base64, sizes, decryption, device key, signature, AUTH
 *      (40001 40004 41703 41704 41706 40007 40102 40104 40002 40103 40008).
 *   5. The token pair (40008, 40105, 45102), and that it was minted for this keyspace and its
 *      tenant (40105).
 *   6. The pair has already enrolled a device (40902): a replay whatever the user's state.
 *   7. The user: unknown (40901, or created when just-in-time users are on), disabled (40101).
 * The package and the pair are marked in the same synchronous step as their check, so of many
 * identical requests racing exactly one succeeds; the only wait after the body is read is step 4,
 * the RSA work, which runs on the crypto pool. A pair is given back when a later check fails: it
 * has not enrolled anything.
 */
import { randomBytes } from 'node:crypto';
import type { RegisterRequest } from '../../../common/enrollment/wire.js';
import { CauseCode } from '../../../common/enrollment/causes.js';
import { AES_KEY_BYTES } from '../../../common/enrollment/crypto.js';
import { isJsonObject } from '../../../common/encoding/json.js';
import { isKeyspace, newDeviceId } from '../../../common/enrollment/device-id.js';
import { sealResponse, validateConversationId } from '../../model/enrollment/service-side.js';
import type { CryptoPool } from '../../model/enrollment/crypto-pool.js';
import { causeError } from '../../model/enrollment/errors.js';
import { verifyTokenPair } from '../../model/enrollment/tokens.js';
import { json, MockHttpError, type MockRequest, type MockResponse } from '../../kit/http.js';
import type { MockKeyspace, MockState, MockUser } from '../../model/state.js';
import { type Route, route } from '../../request/route.js';

export function registerRoutes(state: MockState, crypto: CryptoPool): Route[] {
  return (['2.3', '2.4'] as const).map((version) =>
    route('POST', `/v${version}/register/:keyspace`, 'device', async (req) => {
      try {
        return await register(state, crypto, req, version);
      } catch (error) {
        // Expected answers pass; anything else is a bug in the mock, answered, never a crash.
        if (error instanceof MockHttpError) throw error;
        throw causeError(CauseCode.internalError);
      }
    }),
  );
}

async function register(
  state: MockState,
  crypto: CryptoPool,
  req: MockRequest,
  version: '2.3' | '2.4',
): Promise<MockResponse> {
  const conversation = validateConversationId(req.headers['x-conversation-id']);
  if (!conversation.ok) throw causeError(CauseCode.conversationIdInvalid);
  const keyspace = enrollableKeyspace(state, req.params.keyspace!);
  const { privateKey } = await state.enrollment.keyServer();
  // Bounded and, when large, parsed off the main thread; not JSON (or too deep) is 40001.
  const parsed = await req.parsedBody();
  const body = parsed.ok && isJsonObject(parsed.value) ? parsed.value : undefined;
  if (!body) throw causeError(CauseCode.invalidJson);
  if (hasRequestShape(body) && !state.enrollment.markPackageSeen(body.p)) {
    throw causeError(CauseCode.replayDetected);
  }
  const opened = await crypto.open(body, keyspace.id, privateKey);
  if (!opened.ok) throw causeError(opened.code);

  const verified = verifyTokenPair(opened.stoken, opened.uidauth, state.enrollment.portalSecret);
  if (!verified.ok) throw causeError(verified.code);
  const { claims } = verified;
  if (claims.keyspace !== keyspace.id || claims.tenant !== keyspace.tenant) {
    throw causeError(CauseCode.tokenIncorrect);
  }
  if (!state.enrollment.claimPair(claims.jti)) throw causeError(CauseCode.replay);

  try {
    const user = enrollingUser(state, claims.uid, keyspace.tenant);
    const deviceId = newDeviceId(keyspace.id);
    const keys = { cdEi: randomBytes(AES_KEY_BYTES), cdIdc: randomBytes(AES_KEY_BYTES) };
    const answer = sealResponse({
      deviceId,
      devicePublicKey: opened.devicePublicKey,
      aesKey: opened.aesKey,
      keys,
    });
    const record = {
      deviceId,
      keyspace: keyspace.id,
      tenant: keyspace.tenant,
      user: user.name,
      createdAt: new Date().toISOString(),
    };
    try {
      state.enrollment.addDevice(record, keys);
    } catch {
      throw causeError(CauseCode.deviceNotStored);
    }
    const uuid = conversation.conversationId.replace(/^Basic /, '');
    const cid = ['CID', 'ENROLLMENT', uuid, keyspace.id, Date.now(), `${version}.0`].join('|');
    return json(200, { ...answer, cid });
  } catch (error) {
    state.enrollment.releasePair(claims.jti);
    throw error;
  }
}

/** The keyspace of the path, if a device can enroll into it now. */
function enrollableKeyspace(state: MockState, id: string): MockKeyspace {
  if (!isKeyspace(id)) throw causeError(CauseCode.invalidKeyspace);
  const keyspace = state.keyspaces.get(id);
  if (!keyspace) throw causeError(CauseCode.keyspaceNotFound);
  if (!keyspace.enrollment) throw causeError(CauseCode.enrollmentTypeUnsupported);
  if (!keyspace.online) throw causeError(CauseCode.noKeyServerForKeyspace);
  return keyspace;
}

/** The user named by the token, in the keyspace's tenant; created just in time if allowed. */
function enrollingUser(state: MockState, uid: string, tenant: string): MockUser {
  let user = state.users.get(uid);
  if (!user && state.justInTimeUsers) {
    user = { name: uid, tenant, enabled: true };
    state.users.set(uid, user);
  }
  // User names are global in the mock: one of another tenant is not found here.
  if (!user || user.tenant !== tenant) throw causeError(CauseCode.userNotFound);
  if (!user.enabled) throw causeError(CauseCode.userDisabled);
  return user;
}

/** The four string members openRegistration requires; anything else is its 40001. */
function hasRequestShape(value: unknown): value is RegisterRequest {
  if (!isJsonObject(value)) return false;
  const { k, p, s, g } = value;
  return [k, p, s, g].every((member) => typeof member === 'string');
}
