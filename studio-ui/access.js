// What the key may do, asked once per key (GET /v1/whoami), so the page shows only what the key
// may read and says in one line what it may not, instead of asking and collecting 403s.

/** What each permission lets the page do, as the explanation lines say it. */
const WHAT = {
  'studio:read': 'read the studio',
  'board:read': 'read the board',
  'runs:read': 'read runs',
  'runs:write': 'start or cancel runs',
  'approve:*': 'approve or deny',
  'audit:read': 'read the audit trail',
  'tools:read': 'list toolsets',
};

export function createAccess(api) {
  /** The whoami answer of the current key, or null before it came. */
  let who = null;

  return {
    /** Asks the gateway; `{ok, status, body}` as api.get answers. */
    async load() {
      who = null;
      const answer = await api.get('/v1/whoami');
      if (answer.ok && Array.isArray(answer.body?.permissions)) who = answer.body;
      return answer;
    },
    forget() {
      who = null;
    },
    get known() {
      return who !== null;
    },
    /** The tenant the key is bound to, or null. */
    get tenant() {
      return who?.tenant_id ?? null;
    },
    can(permission) {
      return who !== null && who.permissions.includes(permission);
    },
    /** The line that says what the key cannot do: `this key cannot read the board (board:read)`. */
    cannot(permission) {
      return `this key cannot ${WHAT[permission] ?? 'do this'} (${permission})`;
    },
    /** Who the key is, in one line. */
    describe() {
      if (!who) return '';
      if (!who.authenticated) return 'Authentication is off: every request may do everything.';
      const tenant = who.tenant_id ? `tenant ${who.tenant_id}` : 'every tenant';
      return `Key ${who.key_id} · ${tenant} · ${who.roles.join(', ') || 'no roles'}`;
    },
  };
}
