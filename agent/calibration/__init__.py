"""How good the judge is: the graded answer sets, calibration against human labels, bias probes,
run-to-run spread.

- `evaluation`: the graded sets (`eval/graded/dev`, the frozen `test`) and `run_eval` -> `EvalResult`
  (in-range, pair order, copies, flag precision/recall: `interview eval`);
- `calibrate(rubric, graded_set, judge=…, overrides=…, repeat=K)` -> `CalibrationReport`
  (`render.write` puts it in a folder as JSON, Markdown and a PNG plot);
- `run_probes(rubric, graded_set, translations, judge=…)` -> `ProbeReport`;
- `metrics`: exact / ±1 agreement, quadratic weighted kappa, Spearman, pair order, flag precision/recall.
"""

from agent.calibration.calibrate import CalibrationReport, calibrate, read_overrides
from agent.calibration.metrics import Metric
from agent.calibration.probes import ProbeReport, load_translations, run_probes

__all__ = [
    "CalibrationReport",
    "Metric",
    "ProbeReport",
    "calibrate",
    "load_translations",
    "read_overrides",
    "run_probes",
]
