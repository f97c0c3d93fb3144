/**
 * A signature that failed with the client's current credential, tried with its previous one
 * (clients/rotation.ts, docs/decisions.md "Rotation with overlap"). Reached only after the
 * current credential failed, so a request signed as it should be pays nothing for it. While
 * the overlap lasts the previous secret or key is accepted; after it, a request signed with
 * it is refused with advice saying it was rotated away (told only to whoever holds it).
 */
import type { PreviousCredential, PreviousCredentialUse } from '../../store/types.ts';
import type { SignatureKeys } from '../../protocol/index.ts';
import { signatureInvalid, signatureMatches } from './check-signature.ts';
import type { Verification } from './verification.ts';

/** Accepts a signature made with the previous credential in its overlap; throws otherwise. */
export async function checkPreviousCredential(v: Verification): Promise<void> {
  const protocol = v.protocol!;
  const loaded = v.loaded!;
  const method = protocol.signatureMethod;
  const publicKeyMethod = method.keyKind === 'public-key' ? method : undefined;
  const kind = publicKeyMethod === undefined ? 'secret' : 'public-key';
  const previous = (await v.deps.store.previousCredentials.find(loaded.client.key)).find(
    (credential) => credential.kind === kind,
  );
  if (previous === undefined) throw signatureInvalid();
  const keys: SignatureKeys =
    publicKeyMethod === undefined
      ? { clientSecret: previous.value, tokenSecret: loaded.tokenSecret }
      : { publicKey: v.deps.keys.publicKeyOf(previous.value, publicKeyMethod) };
  if (!signatureMatches(v.request, v.parameters(), protocol, keys)) throw signatureInvalid();
  if (v.nowMs < previous.until) {
    v.deps.previousUses?.record({ clientKey: previous.clientKey, kind, at: v.nowMs });
    return;
  }
  throw signatureInvalid(rotatedAway(previous));
}

/**
 * When each previous credential was last accepted, kept in memory and written by upkeep in
 * batches (as tokens' last use is), so the developer can tell whether anything still signs
 * with it before the overlap ends.
 */
export function createPreviousUses() {
  const uses = new Map<string, PreviousCredentialUse>();
  return {
    record(use: PreviousCredentialUse): void {
      uses.set(`${use.kind}/${use.clientKey}`, use);
    },
    /** The uses recorded since the last call, forgotten here. */
    take(): PreviousCredentialUse[] {
      const batch = [...uses.values()];
      uses.clear();
      return batch;
    },
  };
}

export type PreviousUses = ReturnType<typeof createPreviousUses>;

/** The advice for a request signed with a credential whose overlap is over. */
function rotatedAway(previous: PreviousCredential): string {
  const what = previous.kind === 'secret' ? 'secret' : 'public key';
  const replaced = new Date(previous.replacedAt).toISOString();
  const until = new Date(previous.until).toISOString();
  return (
    ` It was signed with this client's previous ${what}, replaced at ${replaced} and refused` +
    ` since ${until}: sign with the current ${what}.`
  );
}
