"""Grading recorded transcripts into reports.

- `single`: one transcript, each round assessed by the judge (`grade_transcript`);
- `samples`: one transcript graded K times, the median report with its spread (`grade_samples`);
- `batch`: files and folders of transcripts, one outcome each, a bad file named and skipped (`grade_files`);
- `render`: a report as Markdown for people or JSON for tools.

Below the interview graph: the graph renders its session reports with `render`, and `interview grade`
hands the graph's replay to `batch`; nothing here imports `agent.graph`.
"""
