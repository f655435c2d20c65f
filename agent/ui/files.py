"""Files a request hands the app: only from Gradio's upload folder or `<data dir>/reports`, and small.

Gradio itself refuses a request that names a file it did not receive; this is the app's own check,
so no handler reads a path outside those folders whatever reaches it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from agent import config
from agent.util.messages import Lang, t

MAX_UPLOAD_BYTES = 5_000_000


class UploadRefused(ValueError):
    """A file the app will not read: `key` (ui.upload_refused.<key> in messages/ui.yaml) and its `fields`;
    `text(lang)` says why in `lang`, without echoing file contents; `str()` is the English, for logs."""

    def __init__(self, key: str, **fields: object) -> None:
        self.key = key
        self.fields = fields
        super().__init__(self.text("en"))

    def text(self, lang: Lang) -> str:
        """Why the file is refused, in `lang`."""
        return t(f"ui.upload_refused.{self.key}", lang, **self.fields)


def upload_roots() -> list[Path]:
    from gradio.utils import get_upload_folder

    return [Path(get_upload_folder()).resolve(), reports_dir().resolve()]


def reports_dir() -> Path:
    """Where graded reports can be placed to be opened in the Review tab."""
    d = config.data_dir() / "reports"
    d.mkdir(parents=True, exist_ok=True)
    return d


def safe_upload(path: str | Path | None, *, max_bytes: int = MAX_UPLOAD_BYTES) -> Path:
    """The resolved path when it is a regular file inside Gradio's upload folder or the reports folder."""
    if not path:
        raise UploadRefused("none")
    try:
        p = Path(path).resolve(strict=True)
    except (OSError, RuntimeError) as e:
        raise UploadRefused("missing") from e
    if not any(p.is_relative_to(root) for root in upload_roots()):
        raise UploadRefused("outside")
    if not p.is_file():
        raise UploadRefused("not_file")
    size = p.stat().st_size
    if size > max_bytes:
        raise UploadRefused("too_big", size=size, limit=max_bytes)
    return p


def download_dir() -> Path:
    """A fresh folder inside Gradio's upload folder for a file the user downloads (served by its random path)."""
    from gradio.utils import get_upload_folder

    root = Path(get_upload_folder())
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="coach-", dir=root))
