"""Chunk Python source by its structure (`ast`): module header, class header, one chunk per function
or method (from its first decorator), top-level statements between them. A function longer than the
budget is split at statement boundaries; every part keeps the parent symbol.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

CHUNKER_VERSION = "2"
"""Bump when chunk boundaries or embedded text change: the index then re-embeds every file."""

MAX_LINES = 80
MAX_CHARS = 3200
MIN_PART_LINES = 6
"""A split part shorter than this joins its neighbour (no one-line chunks)."""

MODULE = "<module>"

_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)
_Def = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


@dataclass(frozen=True)
class Chunk:
    path: str
    symbol: str
    """Dotted symbol (`Scheduler.schedule`), or `<module>` for module-level code."""
    kind: str
    """module | statements | class | function | method"""
    start_line: int
    end_line: int
    text: str
    part: int = 1
    parts: int = 1
    context: str = field(default="", compare=False)
    """For a part after the first: the signature it belongs to (embedded, not shown)."""

    @property
    def id(self) -> str:
        digest = hashlib.sha1(self.text.encode("utf-8")).hexdigest()[:10]
        return f"{self.path}:{self.start_line}-{self.end_line}:{digest}"

    @property
    def embed_key(self) -> str:
        """Identifies the embedded text: equal keys have equal vectors (same embedder), wherever the lines are."""
        return hashlib.sha1(self.embed_text().encode("utf-8")).hexdigest()[:20]

    def embed_text(self) -> str:
        """What the embedding model sees: path and symbol (in words too) ahead of the code."""
        words = " ".join(split_identifier(self.symbol)) if self.symbol != MODULE else ""
        head = f"{self.path} {self.symbol} ({self.kind}) {words}".rstrip()
        if self.parts > 1:
            head += f" part {self.part}/{self.parts}"
        body = self.text if not self.context else f"{self.context}\n    ...\n{self.text}"
        return f"{head}\n{body}"


def split_identifier(name: str) -> list[str]:
    """`KVCacheManager.get_computed_blocks` -> ['kv', 'cache', 'manager', 'get', 'computed', 'blocks']."""
    out: list[str] = []
    for piece in re.split(r"[^A-Za-z0-9]+", name):
        out.extend(w.lower() for w in _CAMEL.findall(piece))
    return [w for w in out if w]


def _start(node: ast.AST) -> int:
    decos = getattr(node, "decorator_list", None) or []
    return min([node.lineno, *(d.lineno for d in decos)])  # type: ignore[attr-defined]


def _with_leading_comments(lines: Sequence[str], start: int, floor: int) -> int:
    """Move `start` up over the comment lines directly above it (not past `floor`)."""
    while start - 1 > floor and lines[start - 2].lstrip().startswith("#"):
        start -= 1
    return start


def _children(stmt: ast.AST) -> list[ast.AST]:
    """Statements nested directly in a compound statement (bodies, else, handlers, cases)."""
    kids: list[ast.AST] = []
    for name in ("body", "orelse", "handlers", "finalbody", "cases"):
        value = getattr(stmt, name, None)
        if isinstance(value, list):
            kids.extend(v for v in value if hasattr(v, "lineno"))
    return sorted(kids, key=lambda n: n.lineno)  # type: ignore[attr-defined]


class _Chunker:
    def __init__(self, path: str, source: str, max_lines: int, max_chars: int) -> None:
        self.path = path
        self.lines = source.splitlines()
        self.max_lines = max_lines
        self.max_chars = max_chars
        self.out: list[Chunk] = []

    def text(self, a: int, b: int) -> str:
        return "\n".join(self.lines[a - 1 : b])

    def too_big(self, a: int, b: int) -> bool:
        return b - a + 1 > self.max_lines or len(self.text(a, b)) > self.max_chars

    def split(self, a: int, b: int, stmts: Sequence[ast.AST]) -> list[tuple[int, int]]:
        """Contiguous line ranges covering a..b, cut only between statements of `stmts`."""
        if not stmts or not self.too_big(a, b):
            return [(a, b)]
        groups: list[tuple[int, int]] = []
        cur_a, cur_b = a, stmts[0].lineno - 1  # type: ignore[attr-defined]
        cur_b = max(cur_b, a - 1)
        for s in stmts:
            s_b = max(s.end_lineno or s.lineno, cur_b)  # type: ignore[attr-defined]
            if cur_b >= cur_a and self.too_big(cur_a, s_b):
                groups.append((cur_a, cur_b))
                cur_a = cur_b + 1
            if self.too_big(cur_a, s_b) and _children(s):
                sub = self.split(cur_a, s_b, _children(s))
                groups.extend(sub[:-1])
                cur_a, cur_b = sub[-1]
            else:
                cur_b = s_b
        if b > cur_b:
            cur_b = b
        groups.append((cur_a, cur_b))
        return self._merge_small(groups)

    def _merge_small(self, groups: list[tuple[int, int]]) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for a, b in groups:
            if out and (b - a + 1 < MIN_PART_LINES or out[-1][1] - out[-1][0] + 1 < MIN_PART_LINES):
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
        return out

    def emit(
        self, symbol: str, kind: str, a: int, b: int, stmts: Sequence[ast.AST] = (), context: str = ""
    ) -> None:
        while a <= b and not self.lines[a - 1].strip():
            a += 1
        while b >= a and not self.lines[b - 1].strip():
            b -= 1
        if a > b:
            return
        ranges = self.split(a, b, stmts)
        ranges = [(x, y) for x, y in ranges if self.text(x, y).strip()]
        for i, (x, y) in enumerate(ranges, start=1):
            ctx = context if i > 1 else ""
            self.out.append(Chunk(self.path, symbol, kind, x, y, self.text(x, y), i, len(ranges), ctx))

    def signature(self, node: ast.AST) -> str:
        body = getattr(node, "body", [])
        end = body[0].lineno - 1 if body else node.lineno  # type: ignore[attr-defined]
        end = min(max(end, node.lineno), node.lineno + 4)  # type: ignore[attr-defined]
        return self.text(node.lineno, end)  # type: ignore[attr-defined]

    def function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, symbol: str, kind: str, start: int
    ) -> None:
        self.emit(symbol, kind, start, node.end_lineno or node.lineno, node.body, self.signature(node))

    def klass(self, node: ast.ClassDef, symbol: str, start: int) -> None:
        end = node.end_lineno or node.lineno
        defs = [n for n in node.body if isinstance(n, _Def)]
        header_end = _start(defs[0]) - 1 if defs else end
        header_stmts = [n for n in node.body if n.lineno <= header_end]
        if defs:
            header_end = _with_leading_comments(self.lines, header_end + 1, start) - 1
        self.emit(symbol, "class", start, header_end, header_stmts, self.signature(node))
        self.body(node.body, symbol, floor=header_end, in_class=True, skip_before=header_end)

    def body(
        self, stmts: Sequence[ast.stmt], prefix: str, floor: int, in_class: bool, skip_before: int = 0
    ) -> None:
        run: list[ast.stmt] = []
        prev_end = floor

        def flush() -> None:
            if run:
                kind = "class" if in_class else "statements"
                self.emit(prefix or MODULE, kind, _start(run[0]), run[-1].end_lineno or run[-1].lineno, run)
                run.clear()

        for node in stmts:
            if node.lineno <= skip_before:
                prev_end = max(prev_end, node.end_lineno or node.lineno)
                continue
            if isinstance(node, _Def):
                flush()
                start = _with_leading_comments(self.lines, _start(node), prev_end)
                symbol = f"{prefix}.{node.name}" if prefix else node.name
                if isinstance(node, ast.ClassDef):
                    self.klass(node, symbol, start)
                else:
                    self.function(node, symbol, "method" if in_class else "function", start)
            else:
                run.append(node)
            prev_end = node.end_lineno or node.lineno
        flush()

    def module(self, tree: ast.Module) -> list[Chunk]:
        if not self.lines:
            return []
        defs = [n for n in tree.body if isinstance(n, _Def)]
        header_end = len(self.lines) if not defs else _start(defs[0]) - 1
        if defs:
            header_end = _with_leading_comments(self.lines, header_end + 1, 0) - 1
        header_stmts = [n for n in tree.body if (n.end_lineno or n.lineno) <= header_end]
        self.emit(MODULE, "module", 1, header_end, header_stmts)
        self.body(tree.body, "", floor=header_end, in_class=False, skip_before=header_end)
        return self.out


def _fallback(path: str, source: str, max_lines: int) -> list[Chunk]:
    """Fixed windows for a file that does not parse."""
    lines = source.splitlines()
    out: list[Chunk] = []
    for a in range(1, len(lines) + 1, max_lines):
        b = min(len(lines), a + max_lines - 1)
        text = "\n".join(lines[a - 1 : b])
        if text.strip():
            out.append(Chunk(path, MODULE, "text", a, b, text))
    return out


def chunk_source(
    path: str, source: str, *, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS
) -> list[Chunk]:
    """The chunks of one file, in line order."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return _fallback(path, source, max_lines)
    chunks = _Chunker(path, source, max_lines, max_chars).module(tree)
    return sorted(chunks, key=lambda c: (c.start_line, c.end_line))


def file_symbols(source: str) -> list[str]:
    """Names a citation may point at: classes, functions, methods (dotted), class attributes and
    `self.x` attributes (`Scheduler.running`), module-level names."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    out: set[str] = set()

    def targets(nodes: Iterable[ast.AST]) -> Iterable[str]:
        for t in nodes:
            if isinstance(t, ast.Name):
                yield t.id
            elif isinstance(t, ast.Tuple | ast.List):
                yield from targets(t.elts)

    def visit(stmts: Sequence[ast.stmt], prefix: str, cls: str | None) -> None:
        for node in stmts:
            if isinstance(node, ast.ClassDef):
                name = f"{prefix}{node.name}"
                out.add(name)
                visit(node.body, name + ".", name)
            elif isinstance(node, _FuncDef):
                name = f"{prefix}{node.name}"
                out.add(name)
                for sub in ast.walk(node):  # nested helpers: `outer.inner`
                    if sub is not node and isinstance(sub, _Def):
                        out.add(f"{name}.{sub.name}")
                if cls:
                    for sub in ast.walk(node):
                        if (
                            isinstance(sub, ast.Attribute)
                            and isinstance(sub.ctx, ast.Store)
                            and isinstance(sub.value, ast.Name)
                            and sub.value.id == "self"
                        ):
                            out.add(f"{cls}.{sub.attr}")
            elif isinstance(node, ast.Assign):
                out.update(prefix + n for n in targets(node.targets))
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                out.update(prefix + n for n in targets([node.target]))
            elif isinstance(node, ast.If | ast.Try):
                visit([*node.body, *node.orelse], prefix, cls)

    visit(tree.body, "", None)
    return sorted(out)
