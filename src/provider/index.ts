/** The provider: the service's rules, framework-free. Re-exports only. */
// The records the provider hands out, and the store outages it lets through (a database
// away; a secret sealed under a key not configured): http and web name them from here (they
// never import the store).
export type { Client, ClientChanges, Owner, TokenCredential } from '../store/records.ts';
export type { AuditEvent } from '../store/types.ts';
export { StoreUnavailableError } from '../store/types.ts';
export { SealedValueError } from '../store/sealing.ts';
// The provider and what its callers name: http (the routes, the gateway, the middleware),
// web (the pages), cli, and the tests and benches that build one.
export { createProvider } from './provider.ts';
export type { Provider, ResourceOptions } from './provider.ts';
export type { Approval, AuthorizationRequest } from './flow/authorization.ts';
export type { ProviderEventName, ProviderEventPayloads, ProviderEvents } from './events.ts';
export { isRegisteredCallback } from './flow/callbacks.ts';
export type { VerifiedCaller, VerifiedResourceRequest } from './caller.ts';
export type { UsageDay } from '../store/usage.ts';
export { DEFAULT_USAGE_DAYS, USAGE_RETENTION_DAYS } from './clients/usage.ts';
export { RateLimitError } from './verify/rate-limits.ts';
export type { RateLimitStanding } from './verify/rate-limits.ts';
export { DEFAULT_NAME_CLAIMS, DEFAULT_OIDC_SCOPES } from './accounts/identity.ts';
export type { IdentityOptions, OidcIdentity } from './accounts/identity.ts';
export { InputError, NotFoundError } from './input-error.ts';
export { isLoopback } from './loopback.ts';
export type { PolicyOverrides, SignInLimits } from './policy.ts';
export type { IncomingRequest } from './request.ts';
export type { ClientRegistration } from './clients/clients.ts';
export { MAX_OVERLAP_SECONDS } from './clients/rotation.ts';
export type { RotationOptions } from './clients/rotation.ts';
export { isRememberConsent, REMEMBER_CONSENT_MODES } from './clients/client-fields.ts';
export type { TokenIssue } from './flow/tokens.ts';
export type { OwnedToken } from './flow/owned-tokens.ts';
export { describeDevice } from './flow/device-hint.ts';
export type { ExportedRecord, ExportOptions } from './transfer/export.ts';
export { UnreadableLine } from './transfer/import.ts';
export type {
  ImportOptions,
  ImportSession,
  LineProblem,
  NumberedValue,
  RecordOutcome,
} from './transfer/import.ts';
export type { TransferRecord } from './transfer/records.ts';
export type { ExternalIdentity, OwnerDirectory } from './accounts/owners.ts';
export { LOGIN_CHALLENGE_LIFETIME_SECONDS, LoginRefusedError } from './accounts/logins.ts';
export type { LoginDesk, LoginRefusal, LoginStart } from './accounts/logins.ts';
export type { ActiveSession, SessionBook } from './accounts/sessions.ts';
export type { SignInThrottle } from './accounts/sign-in-throttle.ts';
export type { Connection, ConnectionBook } from './flow/connections.ts';
export type { IssuedTemporaryCredentials } from './flow/temporary-credentials.ts';
export type { IssuedTokenCredentials } from './flow/token-credentials.ts';
export { usableUntil } from './flow/session-extension.ts';
export type { SessionGrant } from './flow/session-extension.ts';
export { LaunchRefusal, LTI_MESSAGE_TYPE, LTI_VERSION } from './lti/lti-launch.ts';
export type { LtiLaunch } from './lti/lti-launch.ts';
export type { WebhookDelivery } from '../store/types.ts';
export type { WebhookDesk, WebhookSummary } from './webhooks/webhooks.ts';
export type { WebhookWorker } from './webhooks/worker.ts';
export type { WebhookDeliveryOptions } from './webhooks/options.ts';
export { webhookEventTypes, webhookEventNames } from './webhooks/event-types.ts';
export { AdminRefusal } from './admin/admin-errors.ts';
export { ADMIN_AUTH_FAILURES_PER_MINUTE } from './admin/admin-tokens.ts';
export type { AdminIdentity, AdminTokenView } from './admin/admin-tokens.ts';
export { actionsOf, adminActions, adminRoles, isAdminRole } from './admin/roles.ts';
export { keyReport } from './admin/sealing-keys.ts';
export type { KeyReport, SealingKeySource } from './admin/sealing-keys.ts';
export type { WebhookChangeRequest } from './webhooks/webhook-admin.ts';
export type { AdminAction, AdminRole } from './admin/roles.ts';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './admin/paging.ts';
export type { Page, PageRequest } from './admin/paging.ts';
export { tokenStatus } from './admin/admin-desk.ts';
export type { AdminDesk, Grant, TokenStatus } from './admin/admin-desk.ts';
