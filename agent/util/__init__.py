"""Helpers any layer may use: `files` (hashing, atomic replace, a lock between processes) and `messages`
(the app's own sentences in both languages, `t(key, lang, **fields)`, read from messages/).

Nothing here imports the rest of `agent`. `files` is standard library only: the judge runtime imports it
inside the vLLM venv. `messages` also reads YAML (PyYAML, a dependency of the package); the runtime does
not import it (pyproject.toml, the import-linter contracts).
"""
