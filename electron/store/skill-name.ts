/**
 * How skill names (and bundled file paths) are compared. Names keep the form their author typed;
 * every comparison goes through {@link skillNameKey}, so `ÉTUDE`, `Étude` and `étude`, or
 * `STRASSE` and `straße`, or `ﬁle` and `FILE`, are one name in every store and scope.
 */

// U+0131 (dotless i) is the one character a round trip through upper case folds wrongly (to "i");
// Unicode's default case folding keeps it distinct.
const DOTLESS_I = '\u0131';
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

function foldChars(s: string): string {
  let out = '';
  for (const ch of s) {
    // Upper then lower case of each code point is Unicode's full case folding for every character
    // but dotless i: ß → SS → ss, ς → Σ → σ, ᾳ → ΑΙ → αι, ᲀ → В → в. Doing it per code point keeps
    // toLowerCase's final-sigma rule out.
    out += ch === DOTLESS_I ? ch : ch.toUpperCase().toLowerCase();
  }
  return out;
}

/**
 * The comparison key of a skill name: Unicode's NFKC_Casefold (NFKC, full case folding, default
 * ignorable characters removed). Two names are the same skill exactly when their keys are equal.
 * Use it for every name comparison: lookups, override detection, duplicate checks.
 */
export function skillNameKey(name: string): string {
  // Printable ASCII: folding is plain lower-casing (the common case, kept cheap for big catalogs).
  if (/^[\x20-\x7e]*$/.test(name)) return name.toLowerCase();
  let s = name.normalize('NFKC');
  // Two rounds: folding can decompose (ΐ) and NFKC can recompose into a foldable character.
  for (let i = 0; i < 2; i++) s = foldChars(s).replace(DEFAULT_IGNORABLE, '').normalize('NFKC');
  return s;
}

/** True when two names denote the same skill (see {@link skillNameKey}). */
export function sameSkillName(a: string, b: string): boolean {
  return a === b || skillNameKey(a) === skillNameKey(b);
}

const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
// Control and format characters, default-ignorable (invisible) code points, line and paragraph
// separators, and lone surrogates: none has a place in a name, and each can make two different
// names look alike or make a name display as something it is not.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\p{Cs}]/u;

/** `U+202E` for one code point. */
export function codePointLabel(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Why a skill name cannot be used, or null when it can: names must not hold bidirectional-text
 * controls (which reorder what is displayed), zero-width or other invisible characters, or control
 * characters. The message names the offending code point and its position.
 */
export function skillNameProblem(name: string): string | null {
  let i = 0;
  for (const ch of name) {
    i++;
    if (BIDI_CONTROLS.test(ch)) {
      return `must not contain bidirectional-text controls (${codePointLabel(ch)} at character ${i}): they change how the name is displayed; retype the name without it`;
    }
    if (INVISIBLE.test(ch)) {
      return `must not contain invisible, zero-width or control characters (${codePointLabel(ch)} at character ${i}); retype the name without it`;
    }
  }
  return null;
}
