/** Who is calling: resolved from the API key by the global AuthGuard and kept on the request. */
export interface Principal {
  /** `root` for SVC_API_KEY, the file's id otherwise, `anonymous` when auth is off. */
  keyId: string;
  /** The only tenant this key may act for; undefined means every tenant. */
  tenantId?: string;
  roles: readonly string[];
  permissions: readonly string[];
}

export const ANONYMOUS_ADMIN: Principal = {
  keyId: 'anonymous',
  roles: ['admin'],
  permissions: ['*'],
};

/** The request as the guard leaves it. */
export interface AuthenticatedRequest {
  principal?: Principal;
}
