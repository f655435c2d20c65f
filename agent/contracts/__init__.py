"""Data contracts every layer shares: transcript in, checklist and report out, source references.

Pydantic models (and the display names of flag and cap ids) only; nothing here imports the judge, the
graph or the app: `rubric` is the one package below (round and dimension ids, languages).
"""
