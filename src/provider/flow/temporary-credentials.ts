/** §2.1: the temporary credential request, verified, then answered with new credentials. */
import type { Store } from '../../store/types.ts';
import { checkCallback } from './callbacks.ts';
import type { Policy } from '../policy.ts';
import type { IncomingRequest } from '../request.ts';
import { checkRequestedScope, scopeWithinCeiling } from '../scope.ts';
import { newIdentifier, newSecret } from '../secrets.ts';
import { verifyRequest } from '../verify/verify-request.ts';
import type { VerifyDependencies } from '../verify/verify-request.ts';

export interface IssuedTemporaryCredentials {
  readonly token: string;
  readonly secret: string;
  readonly callbackConfirmed: true;
}

export async function issueTemporaryCredentials(
  deps: VerifyDependencies & { readonly store: Store; readonly policy: Policy },
  request: IncomingRequest,
): Promise<IssuedTemporaryCredentials> {
  const verified = await verifyRequest(deps, request, { kind: 'temporary', tokenRequired: false });
  const callback = checkCallback(verified.protocol.callback!, verified.client);
  // A client asks for a scope with a non-protocol `scope` parameter: form body, query, or the
  // Authorization header, where some libraries put their extra parameters (§3.4.1.3.1 signs it).
  const { form, query, header } = verified.parameters;
  const scopeParameter = [...form, ...query, ...header].find(([name]) => name === 'scope');
  const asked = scopeParameter !== undefined && scopeParameter[1].trim() !== '';
  // Beyond the client's ceiling: refused now, before the owner is asked for anything.
  const requestedScope = scopeWithinCeiling(
    checkRequestedScope(scopeParameter?.[1], deps.policy),
    asked,
    verified.client.scopes,
  );
  const now = deps.now();
  const credential = {
    token: newIdentifier(),
    secret: newSecret(),
    clientKey: verified.client.key,
    callback,
    requestedScope,
    createdAt: now,
    expiresAt: now + deps.policy.temporaryCredentialLifetimeSeconds * 1000,
  };
  await deps.store.temporaryCredentials.create(credential);
  return { token: credential.token, secret: credential.secret, callbackConfirmed: true };
}
