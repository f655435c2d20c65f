"""The evidence package of a session (issue 13): `interview package SESSION`.

`build_package` reads a stored session (its transcript, report and overrides) into an `EvidencePackage`
(`package.json`, schema in `package.schema.json`); `folder.write` writes it as a folder with
`index.html` (or `index.md`) or as a zip.
"""

from agent.package.build import build_package, schema_json, to_json
from agent.package.model import SCHEMA_VERSION, EvidencePackage

__all__ = ["SCHEMA_VERSION", "EvidencePackage", "build_package", "schema_json", "to_json"]
