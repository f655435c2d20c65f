"""Knowledge: the pinned vLLM source, a Chroma index of it, and citations checked against it.

Public surface (everything else in this package may change):

- `check_path(p, symbols=None) -> PathCheck`, `check_citations(text)`, `extract_citations(text)`,
  `known_paths()`: path checks that need no index (the `nonexistent_path` flag).
- `SourceIndex(root=None, embedder=None)`: `.build(source, scope)`, `.query(text, k) -> list[Snippet]`,
  `.status() -> IndexStatus`, `.symbols()` (pass to `check_path` for symbol checks).
- `open_source(path=None)`: a git checkout, unpacked tree or wheel; None = the release wheel nearest the pin.
- `load_pin() -> Pin`, `Snippet`, `evaluate` / `load_queries` for retrieval quality.
"""

from agent.knowledge.embedder import Embedder, EmbedderError, MiniLMEmbedder, OpenAIEmbedder, default_embedder
from agent.knowledge.index import IndexStatus, SourceIndex
from agent.knowledge.manifest import BuildReport
from agent.knowledge.paths import (
    PathCheck,
    PathStatus,
    SymbolTable,
    check_citations,
    check_path,
    extract_citations,
    known_paths,
)
from agent.knowledge.pin import Pin, load_pin
from agent.knowledge.retrieval_eval import RetrievalReport, evaluate, load_queries
from agent.knowledge.snippet import Snippet
from agent.knowledge.source import Scope, Source, SourceError, SourceKind, open_source
from agent.knowledge.store import KnowledgeIndexError
from agent.knowledge.terms import map_terms

__all__ = [
    "BuildReport",
    "Embedder",
    "EmbedderError",
    "IndexStatus",
    "KnowledgeIndexError",
    "MiniLMEmbedder",
    "OpenAIEmbedder",
    "PathCheck",
    "PathStatus",
    "Pin",
    "RetrievalReport",
    "Scope",
    "Snippet",
    "Source",
    "SourceError",
    "SourceIndex",
    "SourceKind",
    "SymbolTable",
    "check_citations",
    "check_path",
    "default_embedder",
    "evaluate",
    "extract_citations",
    "known_paths",
    "load_pin",
    "load_queries",
    "map_terms",
    "open_source",
]
