"""Where each store lives under <repo>/.sleuth/."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import config


@dataclass(frozen=True)
class Layout:
    root: Path

    @property
    def directory(self) -> Path:
        return self.root / config.INDEX_DIRNAME

    @property
    def meta(self) -> Path:
        return self.directory / "meta.db"

    @property
    def lexical(self) -> Path:
        return self.directory / "lexical"

    @property
    def vectors(self) -> Path:
        return self.directory / "vectors.npy"

    @property
    def static_vectors(self) -> Path:
        return self.directory / "static.npy"

    def vectors_of(self, tier: str) -> Path:
        return self.static_vectors if tier == "static" else self.vectors

    @property
    def write_lock(self) -> Path:
        return self.directory / "write.lock"

    @property
    def embed_lock(self) -> Path:
        return self.directory / "embed.lock"

    @property
    def embed_log(self) -> Path:
        return self.directory / "embed.log"

    def exists(self) -> bool:
        return self.meta.exists()

    def create(self) -> None:
        """Make the folder, with a .gitignore of `*` so it never gets committed."""
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n")
