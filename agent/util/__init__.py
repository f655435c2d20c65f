"""Standard-library helpers any layer may use (`files`: hashing, atomic replace, a lock between processes).

Nothing here imports the rest of `agent` or a third-party package: the judge runtime imports it inside
the vLLM venv.
"""
