"""Rust items hidden in a crate's wrapper macros, read past in the parser's copy."""

from __future__ import annotations

import re

from .edits import blank_spans

#: Rust crates gate items behind configuration macros of their own (tokio's
#: ``cfg_rt! { pub fn spawn(..) { .. } }``): the grammar keeps a macro's body as tokens,
#: so nothing inside is a definition. The wrapper (``cfg_rt! {`` and its ``}``) is blanked
#: when it stands alone on its lines and its body starts with an item; ``cfg_if!`` has a
#: syntax of its own and stays. So is a call of a macro the file defines itself.
_RUST_CFG_WRAPPER = re.compile(r"(?m)^[ \t]*((?:cfg_(?!if\b)\w+|feature)![ \t]*\{)[ \t]*$")
_RUST_BRACES = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\\\'])\'|[{}]', re.S)


#: ... when its body is items. Some have arms of their own (tokio's
#: ``cfg_metrics_variant! { stable: { .. }, unstable: { .. } }``), which read as nothing
#: once the wrapper is gone and cost the grammar the rest of the file: as with a C
#: conditional group, the first arm's items are kept and the other arms blanked.
_RUST_ITEM_START = re.compile(
    r"[ \t\n]*(?:#|//|/\*|\}|(?:pub|fn|async|const|static|struct|enum|union|impl|trait"
    r"|type|mod|use|extern|unsafe)\b|macro_rules!|\w+![ \t]*[({\[])"
)
_RUST_ARM = re.compile(r"[ \t\n]*(\w+[ \t]*:[ \t]*\{)")
_RUST_ARM_END = re.compile(r"[ \t\n]*,")


#: A body of items, after its comments and attributes: the start of a function or type.
_RUST_OWN_ITEM = re.compile(
    r"(?:\s*(?://[^\n]*|#!?\[[^\n]*\][ \t]*)(?=\n))*\s*(?:pub(?:\([^)\n]*\))?\s+)?"
    r"(?:(?:async|const|unsafe|extern\s+\"\w+\")\s+)*(?:fn|struct|enum|union|trait|impl|type)\b"
)
#: A macro the file defines for itself (tokio's ``macro_rules! read_impl``), whose calls
#: at item level wrap methods the grammar would otherwise see only as tokens
#: (``read_impl! { fn read_u8(&mut self) -> ReadU8; .. }``).
_RUST_LOCAL_MACRO = re.compile(r"\bmacro_rules![ \t]*(\w+)")


def rewrite_rust(text: str) -> str:
    local = set(_RUST_LOCAL_MACRO.findall(text)) if "macro_rules!" in text else set()
    if "cfg_" not in text and "feature!" not in text and not local:
        return text  # (tokio's feature! { #![unix] .. })
    wrappers = list(_RUST_CFG_WRAPPER.finditer(text))
    if local:
        names = "|".join(re.escape(name) for name in sorted(local))
        own = re.compile(rf"(?m)^[ \t]*((?:{names})![ \t]*\{{)[ \t]*$")
        # (only around methods or types: serde's ``seq_impl! { #[cfg(..)] BinaryHeap<T>
        # .. }`` are arguments after an attribute, which no grammar reads)
        found = [m for m in own.finditer(text) if _RUST_OWN_ITEM.match(text, m.end(0))]
        wrappers = sorted([*wrappers, *found], key=lambda match: match.start())
    if not wrappers:
        return text
    pairs = _brace_pairs(text)
    spans = []
    for match in wrappers:
        close = pairs.get(match.end(1) - 1)
        if close is None or text[close + 1 : close + 2] not in ("", "\n", "\r", " "):
            continue
        if _RUST_ITEM_START.match(text, match.end(0)):
            arms: list[tuple[int, int]] | None = []
        else:
            arms = _first_arm_only(text, match.end(0), close, pairs)
        if arms is not None:
            spans += [(match.start(1), match.end(1)), *arms, (close, close + 1)]
    return blank_spans(text, sorted(spans))


def _first_arm_only(
    text: str, at: int, close: int, pairs: dict[int, int]
) -> list[tuple[int, int]] | None:
    """The spans to blank in a body of arms (``name: { .. },`` up to ``close``) so that
    the first arm's items remain; None when the body is not arms."""
    spans: list[tuple[int, int]] = []
    while (arm := _RUST_ARM.match(text, at)) is not None and arm.start(1) < close:
        end = pairs.get(arm.end(1) - 1)
        if end is None or end >= close:
            return None
        comma = _RUST_ARM_END.match(text, end + 1)
        after = comma.end() if comma is not None else end + 1
        if spans:
            spans.append((arm.start(1), after))
        else:
            spans += [(arm.start(1), arm.end(1)), (end, after)]
        at = after
    return spans if spans and not text[at:close].strip() else None


def _brace_pairs(text: str) -> dict[int, int]:
    """Where the ``}`` closing each ``{`` is, in one pass over the file, skipping
    comments, strings and character literals (a lifetime's ``'a`` is no literal): a file
    of unclosed wrappers costs one pass, not one per wrapper."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    for token in _RUST_BRACES.finditer(text):
        if token.group(0) == "{":
            opened.append(token.start())
        elif token.group(0) == "}" and opened:
            pairs[opened.pop()] = token.start()
    return pairs
