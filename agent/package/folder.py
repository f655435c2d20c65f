"""Writing a package: a folder (index.html or index.md, package.json, package.schema.json) or a zip.

The bytes depend only on the package: the zip's entries are in a fixed order with the session's
`updated_at` as their time and fixed permissions.
"""

from __future__ import annotations

import io
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Literal

from agent.package.build import schema_json, to_json
from agent.package.html import render_html
from agent.package.markdown import render_markdown
from agent.package.model import EvidencePackage

Format = Literal["html", "md", "zip"]
JSON_NAME = "package.json"
SCHEMA_NAME = "package.schema.json"


def files(pkg: EvidencePackage, fmt: Format) -> dict[str, bytes]:
    """name -> bytes of each file of the package, in the order they are written."""
    page = ("index.md", render_markdown(pkg)) if fmt == "md" else ("index.html", render_html(pkg))
    return {
        page[0]: page[1].encode("utf-8"),
        JSON_NAME: to_json(pkg).encode("utf-8"),
        SCHEMA_NAME: schema_json().encode("utf-8"),
    }


def _zip_time(stamp: str) -> tuple[int, int, int, int, int, int]:
    try:
        t = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return (1980, 1, 1, 0, 0, 0)
    return (max(t.year, 1980), t.month, t.day, t.hour, t.minute, t.second)


def zip_bytes(pkg: EvidencePackage, folder: str) -> bytes:
    buf = io.BytesIO()
    when = _zip_time(pkg.session.updated_at)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files(pkg, "html").items():
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=when)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return buf.getvalue()


def default_out(session_id: str, fmt: Format) -> Path:
    name = f"evidence-{session_id}"
    return Path(name + ".zip") if fmt == "zip" else Path(name)


def zip_path(out: Path) -> Path:
    """`--format zip --out X`: X when it ends in .zip, else X.zip."""
    return out if out.suffix == ".zip" else out.with_name(out.name + ".zip")


def write(pkg: EvidencePackage, out: Path, fmt: Format) -> list[Path]:
    """Write the package; returns the paths written. OSError when `out` cannot be written."""
    if fmt == "zip":
        target = zip_path(out)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = zip_bytes(pkg, target.name.removesuffix(".zip"))
        tmp = target.with_name(target.name + ".part")
        tmp.write_bytes(data)
        tmp.replace(target)
        return [target]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in files(pkg, fmt).items():
        path = out / name
        path.write_bytes(data)
        written.append(path)
    return written
