"""Names people give: a table's, a tournament's, a player's (N1-N4).

A name is shown to others and compared with other names, so it must read as what it is:

- N1 A name is kept in Unicode normal form NFKC (a fullwidth "\\uff21" is an "A", a ligature
  "\\ufb01" is "fi") with its format characters (category Cf: zero-width space, zero-width
  joiner, byte order mark, soft hyphen) removed, and without surrounding spaces.
- N2 A name with a bidirectional control (which reorders what follows it: U+202A-U+202E,
  U+2066-U+2069, U+200E, U+200F, U+061C) or another invisible character (a control
  character, a separator other than the plain space, a filler such as U+3164 or
  U+2800) is refused, not repaired: it is not what its writer's screen shows.
- N3 A name's letters are of one script, or of the scripts one language writes together
  (Han with Hiragana and Katakana, Han with Hangul): "\\u0410nna" with a Cyrillic "\\u0410" is
  refused. Look-alike letters of two scripts are how a name impersonates another; names
  wholly in one script are not folded onto another (NFKC does not, and neither does this).
- N4 Two names are the same name when their normal forms (N1) are equal after case folding
  (`name_key`): "Anna", "ANNA", "Anna\\u200b" and "\\uff21nna" are one name.
"""

from __future__ import annotations

import unicodedata

from domain.errors import MixedScripts, UnseenCharacters

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""N2: the characters that reorder the text around them."""

FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")
"""N2: letters and symbols that draw nothing (Hangul fillers, the blank braille pattern, the
Mongolian vowel separator)."""

WRITTEN_TOGETHER = (
    frozenset({"CJK", "HIRAGANA", "KATAKANA"}),
    frozenset({"CJK", "HANGUL"}),
)
"""N3: scripts that one language writes in one name (Japanese, Korean)."""


def _script(char: str) -> str | None:
    """The script of a letter, as the first word of its Unicode name (``LATIN``,
    ``CYRILLIC``, ``CJK``, ...); None for what is not a letter (digits, spaces, marks)."""
    if not unicodedata.category(char).startswith("L"):
        return None
    return unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]


def _invisible(char: str) -> bool:
    """N2: draws nothing, or controls how the rest is drawn (the plain space excepted)."""
    if char in BIDI_CONTROLS or char in FILLERS:
        return True
    category = unicodedata.category(char)
    return category in ("Cc", "Zl", "Zp", "Co", "Cs", "Cn") or (category == "Zs" and char != " ")


def normal_name(text: str) -> str:
    """N1-N3: the name as it is kept; raises `UnseenCharacters` (N2) or `MixedScripts` (N3)."""
    if any(c in BIDI_CONTROLS for c in text):
        raise UnseenCharacters("a name holds no bidirectional control characters", rule="N2")
    kept = "".join(
        c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf"
    )
    kept = unicodedata.normalize("NFKC", kept).strip(" ")
    unseen = [c for c in kept if _invisible(c)]
    if unseen:
        raise UnseenCharacters(
            f"a name holds no invisible characters: U+{ord(unseen[0]):04X}", rule="N2"
        )
    scripts = {s for s in map(_script, kept) if s is not None}
    if len(scripts) > 1 and not any(scripts <= together for together in WRITTEN_TOGETHER):
        raise MixedScripts(
            f"a name's letters are of one script, not {', '.join(sorted(scripts))}",
            rule="N3",
        )
    return kept


def name_key(name: str) -> str:
    """N4: what two names are compared by: the normal form (N1, of a kept name) case-folded."""
    return unicodedata.normalize("NFKC", name.casefold())
