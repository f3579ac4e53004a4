/** Unicode property escapes of ECMAScript patterns, as RE2 spells them. */

/** Long General_Category names JavaScript accepts, as the short ones RE2 knows. */
const CATEGORY: Record<string, string> = {
  Letter: 'L',
  Cased_Letter: 'LC',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};

/**
 * `\p{…}` in RE2's spelling: general categories (short names) and scripts (long names), ASCII
 * as a range. Undefined for what RE2 has no equivalent of (Script_Extensions, …); a binary
 * property RE2 lacks passes through and is refused when RE2 compiles it.
 */
export function re2Property(body: string, negated: boolean): string | undefined {
  const [name, value] = body.includes('=') ? body.split('=', 2) : [undefined, body];
  let re2: string;
  if (name === undefined) {
    re2 = body === 'ASCII' ? '' : (CATEGORY[body] ?? body);
  } else if (name === 'General_Category' || name === 'gc') {
    re2 = CATEGORY[value] ?? value;
  } else if (name === 'Script' || name === 'sc') {
    re2 = value;
  } else {
    return undefined;
  }
  if (re2 === '') return negated ? '[^\\x00-\\x7f]' : '[\\x00-\\x7f]';
  return `\\${negated ? 'P' : 'p'}{${re2}}`;
}
