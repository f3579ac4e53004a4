/** `scheme://user:password@` and `scheme://user@` credentials inside URLs. */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;
/** `Bearer <token>` as quoted in an error message. */
const BEARER = /\b(Bearer\s+)[^\s"',]+/gi;

/** Removes credentials that driver and HTTP error messages may quote. */
export function scrubSecrets(text: string): string {
  return text.replace(URL_CREDENTIALS, '$1***@').replace(BEARER, '$1***');
}
