"""The rubric: rounds, dimensions, level descriptors, gates and follow-ups, loaded from rubrics/."""

from agent.rubric.loader import Rubric, RubricError, default_rubric, load_rubric
from agent.rubric.model import (
    DIMENSIONS,
    INTERVIEW_ROUND_IDS,
    ROUND_IDS,
    SELF_CHECK,
    Dimension,
    Lang,
    Round,
    RoundId,
    Text,
)

__all__ = [
    "DIMENSIONS",
    "INTERVIEW_ROUND_IDS",
    "ROUND_IDS",
    "SELF_CHECK",
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
