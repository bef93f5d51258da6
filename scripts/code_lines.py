"""Physical and code lines of Python files (the kernel-size figure in the README).

A line is a code line when it holds a token that is not a comment and not part of a
module, class or function docstring; blank lines do not count.

Usage: ``python scripts/code_lines.py exactdp/kernel/*.py``
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize

_SKIP = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
         tokenize.ENDMARKER)


def code_lines(path: str) -> tuple[int, int]:
    """(physical lines, code lines) of one file."""
    with open(path, encoding="utf-8") as fh:
        src = fh.read()
    doc: set[int] = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node.body:
            b = node.body[0]
            if isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant) \
                    and isinstance(b.value.value, str) and b.end_lineno is not None:
                doc.update(range(b.lineno, b.end_lineno + 1))
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type not in _SKIP:
            lines.update(ln for ln in range(tok.start[0], tok.end[0] + 1) if ln not in doc)
    return len(src.splitlines()), len(lines)


def main(paths: list[str]) -> None:
    tp = tc = 0
    for p in paths:
        a, b = code_lines(p)
        tp, tc = tp + a, tc + b
        print(f"{a:6d} {b:6d} {p}")
    print(f"{tp:6d} {tc:6d} total")


if __name__ == "__main__":
    main(sys.argv[1:])
