"""The append-only, hash-chained log of human score overrides, and the effective scores it yields."""

from agent.overrides.chain import Problem, Verification, chain_hash
from agent.overrides.effective import EffectiveScore, effective_scores, effective_totals
from agent.overrides.export import to_csv, to_jsonl
from agent.overrides.log import OverrideLog, default_path
from agent.overrides.model import COLUMNS, NewOverride, Override, OverrideLogError

__all__ = [
    "COLUMNS",
    "EffectiveScore",
    "NewOverride",
    "Override",
    "OverrideLog",
    "OverrideLogError",
    "Problem",
    "Verification",
    "chain_hash",
    "default_path",
    "effective_scores",
    "effective_totals",
    "to_csv",
    "to_jsonl",
]
