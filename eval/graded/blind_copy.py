"""Make a blind copy of an author's answers for a second labeller: no expected, notes, pairs or kind."""
import random
import sys
from pathlib import Path

import yaml

# usage: python eval/graded/blind_copy.py AUTHOR/answers.yaml label-AUTHOR/to_label.yaml
src, dst = sys.argv[1], sys.argv[2]
data = yaml.safe_load(Path(src).read_text(encoding="utf-8"))
out = []
for a in data["answers"]:
    out.append({"id": a["id"], "round": a["round"], "language": a["language"], "turns": a["turns"]})
random.Random(7).shuffle(out)
Path(dst).write_text(yaml.safe_dump({"answers": out}, allow_unicode=True, sort_keys=False, width=120), encoding="utf-8")
print(len(out))
