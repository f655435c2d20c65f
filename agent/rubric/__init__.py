"""The rubric: rounds, dimensions, level descriptors, gates and follow-ups, loaded from rubrics/."""

from agent.rubric.loader import Rubric, RubricError, default_rubric, load_rubric
from agent.rubric.model import DIMENSIONS, ROUND_IDS, Dimension, Lang, Round, RoundId, Text

__all__ = [
    "DIMENSIONS",
    "ROUND_IDS",
    "Dimension",
    "Lang",
    "Round",
    "RoundId",
    "Rubric",
    "RubricError",
    "Text",
    "default_rubric",
    "load_rubric",
]
