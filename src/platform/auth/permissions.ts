/**
 * Permission strings are `resource:action`. A granted `x:*` covers every `x:…` permission and `*`
 * covers all (CONTRACT section 2). Approving needs `approve:*` itself, which only `approve:*` or
 * `*` cover.
 */
export function permits(granted: readonly string[], required: string): boolean {
  for (const permission of granted) {
    if (permission === '*' || permission === required) return true;
    if (permission.endsWith(':*') && required.startsWith(permission.slice(0, -1))) return true;
  }
  return false;
}
