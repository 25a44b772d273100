"""Shell (bash and zsh) forms tree-sitter-bash misreads, rewritten in the parser's copy."""

from __future__ import annotations

import re

#: A parameter expansion that is not a bare ``${name}`` (``${x:-a}``, ``"${out:+${out};}1"``,
#: zsh's ``${(f)"$(cmd)"}``, ``${+commands[x]}``, ``${branch:gs/%/%%}``), read as
#: ``${xxxx}``, innermost first: tree-sitter-bash misread many of them and lost every
#: function after; no definition lives inside one.
_BASH_EXPANSION = re.compile(r"\$\{(?![A-Za-z_]\w*\})((?:[^{}\n]|\$\{x*\}|\{[^{}\n]*\})*)\}")
#: zsh's ``$+name`` (is it set): ``(( $+commands[rg] ))``.
_ZSH_PLUS = re.compile(r"\$\{?\+(?=[A-Za-z_])")
#: zsh's unbraced subscript (``$commands[kn]``, ``$words[2]``), read as one word.
_ZSH_SUBSCRIPT = re.compile(r"\$[A-Za-z_]\w*\[[^\[\]\s\"'`]{1,60}\]")
#: zsh's glob qualifiers (``*(N)``, ``*.cabal(N)``, ``*(:t)``), read as a word.
_ZSH_GLOB_QUALIFIER = re.compile(r"\((?<=[*?\]]\()[^\s()|<>;&\"'`$]{1,20}\)(?=[\s);}\"]|$)")
#: ... and after a brace expansion (``plugins/*/{_*,*.plugin.zsh}(-.N:h:t)``).
_ZSH_BRACE_QUALIFIER = re.compile(
    r"(?<![$\w])(\{[^{}\s$()]*,[^{}\s$()]*\})\(([^\s()|<>;&\"'`$]{1,20})\)(?=[\s);}\"]|$)"
)
#: zsh's ``{ cmd }`` closed without a ``;`` (``function gdv() { git diff | view - }``):
#: bash nests every later function in it; read as ``{ cmd;}``.
_ZSH_BRACE_CLOSE = re.compile(
    r"\{[ \t](?:[^\n{}]|\$\{[^\n{}]*\})*?[^;&\s{}\\]([ \t]+)\}(?=[ \t]*(?:#[^\n]*)?\n)"
)

#: zsh's ``{cmd; ..}`` opened without a space (``cd "$x" || {echo "no $x"; return 1}``),
#: a word to bash, which nests every later function in it: read as the subshell
#: ``(cmd; ..)``, the same length. A brace expansion (``{a,b}``) has no space or ``;``.
_ZSH_BRACE_OPEN = re.compile(
    r"(?<![$\w{])\{(?=[A-Za-z_])"
    r"((?:[^\n{}'\"]|'[^'\n]*'|\"[^\"\n]*\"|\$\{[^{}\n]*\})*?[ ;]"
    r"(?:[^\n{}'\"]|'[^'\n]*'|\"[^\"\n]*\"|\$\{[^{}\n]*\})*?)\}"
)

#: zsh's arithmetic ``(( #name ))`` (an array's length), where bash reads a comment to
#: the line's end and leaves the ``((`` open, which takes in the rest of the function:
#: the ``#`` read as a space.
_ZSH_ARITHMETIC = re.compile(r"\(\((?:[^()\n]|\([^()\n]*\))*?#(?:[^()\n]|\([^()\n]*\))*?\)\)")
_ZSH_LENGTH = re.compile(r"(?<=[\s(!])#(?=[A-Za-z_])")


def rewrite_bash(text: str) -> str:
    """Shell forms tree-sitter-bash misreads, each of which lost the functions after it:
    expansions with operators or zsh flags, and zsh's ``$+name``, subscripts, glob
    qualifiers, braces closed without ``;`` or opened without a space, and lengths in
    arithmetic (``.zsh`` files are read as bash)."""
    if "${" in text:
        while (rewritten := _BASH_EXPANSION.sub(_x_expansion, text)) != text:
            text = rewritten
    if "$+" in text or "${+" in text:
        text = _ZSH_PLUS.sub(lambda m: m.group(0)[:-1] + "_", text)
    if "[" in text:
        text = _ZSH_SUBSCRIPT.sub(_subscript_word, text)
    if "(" in text:
        text = _ZSH_GLOB_QUALIFIER.sub(lambda m: "_" + m.group(0)[1:-1] + "_", text)
        text = _ZSH_BRACE_QUALIFIER.sub(lambda m: f"{m.group(1)}_{m.group(2)}_", text)
    if " }" in text:
        text = _ZSH_BRACE_CLOSE.sub(lambda m: m.group(0)[: m.end(1) - m.start(0) - 1] + ";}", text)
    if "{" in text:
        text = _ZSH_BRACE_OPEN.sub(lambda m: "(" + m.group(1) + ")", text)
    if "((" in text:
        text = _ZSH_ARITHMETIC.sub(lambda m: _ZSH_LENGTH.sub(" ", m.group(0)), text)
    return text


def _x_expansion(match: re.Match[str]) -> str:
    return "${" + "x" * len(match.group(1)) + "}"


def _subscript_word(match: re.Match[str]) -> str:
    """``$commands[kn]`` as ``$commands_kn_`` (same length)."""
    word = match.group(0)
    at = word.index("[")
    return word[:at] + "_" + word[at + 1 : -1] + "_"
