"""What a generation of the index records in `manifest.json`: the source, the pin, the embedder and
chunker, each indexed file with its hash and chunks, and the report of the build that wrote it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent.knowledge.chunker import CHUNKER_VERSION

SCHEMA = 1


class FileEntry(BaseModel):
    sha256: str
    chunks: list[str]


class BuildReport(BaseModel):
    files: int
    chunks: int
    embedded_files: int
    embedded_chunks: int
    reused_chunks: int
    removed_files: int
    seconds: float
    embed_seconds: float
    commit: str | None
    relation_to_pin: str


class Manifest(BaseModel):
    schema_version: int = SCHEMA
    built_at: str
    source_kind: str
    source_location: str
    commit: str | None
    version: str | None
    dirty: bool = False
    pin_commit: str
    pin_note: str | None = None
    """For a git checkout: how far HEAD is from the pin (when the clone has the pinned commit)."""
    scope: str
    embedder: str
    chunker: str = CHUNKER_VERSION
    files: dict[str, FileEntry] = Field(default_factory=dict)
    last_build: BuildReport | None = None
