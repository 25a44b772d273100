"""C# forms tree-sitter-c-sharp misreads, rewritten in the parser's copy."""

from __future__ import annotations

import re

from .c_conditionals import one_configuration
from .edits import spaces

#: tree-sitter-c-sharp cannot read a pointer cast (``*(int*)(pDst + 4) = *(int*)(pSrc +
#: 4);`` in unsafe code), nor the dereference before it, and loses the methods after it
#: (MessagePack's ``UnsafeMemory.cs``: 9 of 52 methods found). Both are blanked.
_CSHARP_POINTER_CAST = re.compile(
    r"\*?\([ \t]*[A-Za-z_][\w.]*(?:<[^<>()\n]*>)?[ \t]*\*+[ \t]*\)(?=[ \t]*[\w(&*])"
)


#: C# 11's ``ref partial struct`` (the grammar knows ``partial ref struct``): the struct
#: was read as a method named ``struct`` and its members were lost.
_CSHARP_REF_PARTIAL = re.compile(r"ref(?<!\wref)([ \t]+)partial(?=[ \t]+struct\b)")


def rewrite_csharp(text: str) -> str:
    """Pointer casts blanked, ``ref partial`` written in the order the grammar knows, and
    conditional groups the grammar cannot read (``#if`` between a signature and its
    ``=>`` body) kept to their first branch, as in C."""
    text = _CSHARP_POINTER_CAST.sub(spaces, text) if "*)" in text else text
    if "ref" in text:
        text = _CSHARP_REF_PARTIAL.sub(lambda m: "partial" + m.group(1) + "ref", text)
    return one_configuration(text)
