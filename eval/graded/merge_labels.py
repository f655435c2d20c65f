"""Merge an author's labels with a second labeller's into the graded-set format.

Scores per dimension: overlapping or adjacent ranges -> their span; disjoint ranges (a score lies
between them) -> a disagreement, settled by an adjudicator's decision when one exists, else the
span between them is NOT used: the answer is written with the adjudication pending and left out.
Flags: required when both require it; forbidden when one forbids and the other does not require it;
one requires and the other forbids -> a disagreement (adjudicator; else the flag is left unlabelled).
Both labels are kept under `labels`, with `resolution` saying what was settled and how.
"""
import os
import sys
from pathlib import Path

import yaml

# usage: python eval/graded/merge_labels.py AUTHOR dev|test  (AUTHORING_DIR holds AUTHOR/answers.yaml,
# label-AUTHOR/labels.yaml and, when any, adjudicate-AUTHOR/decisions.yaml)

author, split = sys.argv[1], sys.argv[2]
root = Path(os.environ.get("AUTHORING_DIR", "authoring"))
orig = yaml.safe_load(Path(root / author / "answers.yaml").read_text(encoding="utf-8"))
second = {x["id"]: x for x in yaml.safe_load(Path(root / f"label-{author}" / "labels.yaml").read_text(encoding="utf-8"))["labels"]}
adj_path = root / f"adjudicate-{author}" / "decisions.yaml"
adj = {}
if adj_path.exists():
    adj = {x["id"]: x for x in (yaml.safe_load(Path(adj_path).read_text(encoding="utf-8")) or {}).get("decisions", [])}
DIMS = ["accuracy", "evidence", "tradeoffs", "validation", "communication"]
out, disagreements, pending = [], [], []
for a in orig["answers"]:
    e1 = a["expected"]
    e2 = second[a["id"]]
    scores, notes = {}, []
    open_dims = []
    for d in DIMS:
        r1, r2 = list(e1["scores"][d]), list(e2["scores"][d])
        lo, hi = min(r1[0], r2[0]), max(r1[1], r2[1])
        gap = max(r1[0], r2[0]) - min(r1[1], r2[1])
        if gap <= 1:
            scores[d] = [lo, hi]
        else:
            dec = adj.get(a["id"], {}).get("scores", {}).get(d)
            if dec is not None:
                scores[d] = list(dec)
                notes.append(f"{d}: author {r1} vs second {r2}, adjudicated {list(dec)}")
            else:
                open_dims.append(d)
                disagreements.append({"id": a["id"], "dimension": d, "author": r1, "second": r2})
    f1, f2 = set(e1.get("flags") or []), set(e2.get("flags") or [])
    n1, n2 = set(e1.get("absent_flags") or []), set(e2.get("absent_flags") or [])
    must = f1 & f2
    absent = (n1 - f2) | (n2 - f1)
    for fl in sorted((f1 & n2) | (f2 & n1)):
        dec = adj.get(a["id"], {}).get("flags", {}).get(fl)
        if dec == "present":
            must.add(fl)
            notes.append(f"flag {fl}: disputed, adjudicated present")
        elif dec == "absent":
            absent.add(fl)
            notes.append(f"flag {fl}: disputed, adjudicated absent")
        else:
            absent.discard(fl)
            disagreements.append({"id": a["id"], "flag": fl, "author": fl in f1, "second": fl in f2})
    absent -= must
    if open_dims:
        pending.append(a["id"])
        continue
    # flags that follow from scores stay consistent with the merged ranges
    for dim, fl in (("accuracy", "accuracy_1"), ("validation", "validation_1")):
        if scores[dim] == [1, 1]:
            must.add(fl)
        else:
            must.discard(fl)
    item = {
        "id": a["id"], "round": a["round"], "language": a["language"], "kind": a["kind"],
        "voice": a.get("voice"), "author": author, "base": a.get("base"), "turns": a["turns"],
        "expected": {"scores": scores, "flags": sorted(must), "absent_flags": sorted(absent)},
        "labels": [
            {"by": author, "scores": e1["scores"], "flags": e1.get("flags") or [], "absent_flags": e1.get("absent_flags") or []},
            {"by": f"second-{author}", "scores": e2["scores"], "flags": e2.get("flags") or [], "absent_flags": e2.get("absent_flags") or []},
        ],
        "resolution": "; ".join(notes) or "ranges overlap or touch: their span; flags both required / one forbade",
        "notes": (a.get("notes") or "") + " | second: " + (e2.get("notes") or ""),
    }
    out.append(item)
ids = {x["id"] for x in out}
pairs = [p for p in orig.get("pairs", []) if p["better"] in ids and p["worse"] in ids]
for x in out:
    if x["base"] not in ids:
        x["base"] = None if x["base"] is None or x["base"] not in ids else x["base"]
dst = Path(__file__).resolve().parent / split / f"{author}.yaml"
header = (f"# Graded answers by author {author} ({split} split), labelled independently by a second author.\n"
          f"# Neither saw the rubric files, the prompts or the code. Generated from both labels by the merge\n"
          f"# rule in docs/evaluation.md; each answer keeps both labels and the resolution.\n")
dst.write_text(header + yaml.safe_dump({"answers": out, "pairs": pairs}, allow_unicode=True, sort_keys=False, width=120), encoding="utf-8")
(root / f"disagreements-{author}.yaml").write_text(yaml.safe_dump({"disagreements": disagreements, "pending": pending}, allow_unicode=True, sort_keys=False))
print(f"{author}: wrote {len(out)} answers, {len(pairs)} pairs to {dst}; {len(disagreements)} disagreements, {len(pending)} pending")
