"""The app's own sentences, in English and Chinese, looked up by one function: `t("room.key", lang, **fields)`.

They are data: `messages/` at the repo root (beside `rubrics/` and `prompts/`), one YAML file per room
(`ui.yaml`, `interview.yaml`, `package.yaml`, `report.yaml`, `voice.yaml`; `labels.yaml`, the names of flags,
caps and judges that `agent/contracts/labels.py` reads), each entry a key with its `en` and `zh` side by side. A key
is the file's name, then the entry's path in the file: `ui.plan`, `interview.given`,
`package.ids.plan.full`. The files are read and checked once, on the first lookup: every entry has both
languages, both name the same `{fields}`, no key is written twice. Rubric content (questions, follow-ups,
level texts) is not here: it is in `rubrics/`.

Standard library and PyYAML only (a dependency of the package itself), so every room may import it.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")

MESSAGES_DIR = Path(__file__).resolve().parents[2] / "messages"
"""`messages/` at the repo root (or the installed tree), as `agent.config.repo_root()` finds `rubrics/`."""


class MessageError(ValueError):
    """A messages file that breaks the catalogue's rules, named with the entry at fault."""


class UnknownMessage(KeyError):
    """`t()` was asked for a key no messages file has."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

    def __str__(self) -> str:
        room = self.key.split(".", 1)[0]
        return f"no message {self.key!r}: not in {MESSAGES_DIR.name}/{room}.yaml"


class _UniqueKeys(yaml.SafeLoader):
    """A YAML loader that refuses a key written twice in one mapping (PyYAML keeps the last silently)."""


def _mapping(loader: _UniqueKeys, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise MessageError(f"line {key_node.start_mark.line + 1}: the key {key!r} is written twice")
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeys.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def fields_of(text: str) -> set[str]:
    """The names of the `{fields}` a text fills in (`{seconds:.1f}` is `seconds`)."""
    names: set[str] = set()
    for _, field, _, _ in string.Formatter().parse(text):
        if field is not None:
            names.add(field.split(".", 1)[0].split("[", 1)[0])
    return names


def _check_entry(key: str, entry: Mapping[Any, Any]) -> dict[Lang, str]:
    langs = set(entry)
    if langs != set(LANGS):
        lacking = [lg for lg in LANGS if lg not in langs]
        extra = sorted(str(x) for x in langs - set(LANGS))
        raise MessageError(
            f"{key}: "
            + "; ".join(
                ([f"no {', '.join(lacking)} text"] if lacking else [])
                + ([f"{', '.join(extra)} is not a language (en, zh)"] if extra else [])
            )
        )
    texts: dict[Lang, str] = {}
    fields: dict[Lang, set[str]] = {}
    for lg in LANGS:
        text = entry[lg]
        if not isinstance(text, str) or not text:
            raise MessageError(f"{key}: its {lg} text is not a non-empty string: {text!r}")
        try:
            fields[lg] = fields_of(text)
        except ValueError as e:
            raise MessageError(f"{key}: its {lg} text is not a valid format string ({e}): {text!r}") from e
        if "" in fields[lg] or any(f.isdigit() for f in fields[lg]):
            raise MessageError(f"{key}: its {lg} text has a positional field ({{}}); name every field")
        texts[lg] = text
    if fields["en"] != fields["zh"]:
        raise MessageError(
            f"{key}: the languages name different fields: en {sorted(fields['en'])}, zh {sorted(fields['zh'])}"
        )
    return texts


def _flatten(prefix: str, node: Any, out: dict[str, dict[Lang, str]]) -> None:
    if not isinstance(node, Mapping) or not node:
        raise MessageError(f"{prefix}: neither an entry ({{en: …, zh: …}}) nor a group of entries: {node!r}")
    if any(lg in node for lg in LANGS):
        out[prefix] = _check_entry(prefix, node)
        return
    for part, child in node.items():
        if not isinstance(part, str) or not part or "." in part:
            raise MessageError(f"{prefix}: the key {part!r} is not a name (a string without dots)")
        _flatten(f"{prefix}.{part}", child, out)


def load(folder: Path) -> dict[str, dict[Lang, str]]:
    """Every entry of the `*.yaml` files in `folder`, by key, checked; a `MessageError` names what is wrong."""
    out: dict[str, dict[Lang, str]] = {}
    paths = sorted(folder.glob("*.yaml"))
    if not paths:
        raise MessageError(f"no messages files (*.yaml) in {folder}")
    for path in paths:
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeys)
        except MessageError as e:
            raise MessageError(f"{path.name}: {e}") from None
        try:
            _flatten(path.stem, data, out)
        except MessageError as e:
            raise MessageError(f"{path.name}: {e}") from None
    return out


@cache
def catalogue() -> dict[str, dict[Lang, str]]:
    """The messages of `messages/`, read and checked once."""
    return load(MESSAGES_DIR)


def has(key: str) -> bool:
    """Whether `key` names a message (for tables of names where an id without one is shown as it is)."""
    return key in catalogue()


def t(key: str, lang: Lang, **fields: object) -> str:
    """The text of `key` in `lang`, with `fields` filled in (`fill`); without fields, the text as it is."""
    entry = catalogue().get(key)
    if entry is None:
        raise UnknownMessage(key)
    text = entry[lang]
    if not fields:
        return text
    try:
        return fill(text, lang, **fields)
    except KeyError as e:
        raise KeyError(f"message {key!r} fills in {{{e.args[0]}}}, which t() was not given") from None


_HAN = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff01-\uff60“”‘’]")
"""A Chinese character or Chinese punctuation (not a dash or an ellipsis: "概念 — 3" keeps its spaces)."""


def _join(before: str, after: str) -> str:
    """`after` put after `before`; in Chinese a space where a field meets its text is dropped when there is
    Chinese on both sides ("源码追踪 未通过" is "源码追踪未通过"; "需 ≥ 3", "Paged KV 把" keep theirs)."""
    head, tail = before.rstrip(" "), after.lstrip(" ")
    if head and tail and (head != before or tail != after) and _HAN.match(head[-1]) and _HAN.match(tail[0]):
        return head + tail
    return before + after


def fill(text: str, lang: Lang, **fields: object) -> str:
    """`text` with its `{fields}` filled in (`str.format`). A Chinese text is written with spaces around its
    fields, for a field that may be Latin ("{round} 未通过"); where the field is Chinese, the space between
    two Chinese characters goes (a Chinese sentence has none). A field's own text is left as it is."""
    if lang != "zh":
        return text.format(**fields)
    f = string.Formatter()
    out = ""
    for literal, name, spec, conversion in f.parse(text):
        out = _join(out, literal)
        if name is None:
            continue
        value, _ = f.get_field(name, (), fields)
        value = f.convert_field(value, conversion)
        out = _join(out, f.format_field(value, f.vformat(spec or "", (), fields)))
    return out


def colon(lang: Lang) -> str:
    """What joins a label to what follows it: ": " in English, the full-width "：" (no space) in Chinese."""
    return "：" if lang == "zh" else ": "


def bold_label(label: str, lang: Lang) -> str:
    """A label in Markdown bold with its colon: "**Flags:**" in English, "**标记**：" in Chinese (the
    full-width colon outside the bold, where Chinese puts it; a bold run that ends in punctuation is not
    closed when a letter follows it)."""
    return f"**{label}**：" if lang == "zh" else f"**{label}:**"


def labelled(label: str, text: str, lang: Lang) -> str:
    """A bold label, its colon and what it labels: "**Question:** …" / "**问题**：…"."""
    return bold_label(label, lang) + ("" if lang == "zh" else " ") + text


def then(first: str, second: str, lang: Lang) -> str:
    """Two texts one after the other: "first — second" in English; in Chinese "first——second", or the two
    side by side when the first already ends a sentence ("……。覆盖了……"), after a space when that sentence is
    English (`sentences`)."""
    if lang != "zh":
        return f"{first} — {second}"
    if not ends_chinese(first) and first.rstrip().endswith((".", "!", "?")):  # an English sentence
        return f"{first.rstrip()} {second}"
    return first + ("" if first.rstrip().endswith(("。", "！", "？")) else "——") + second


def sentences(parts: list[str], lang: Lang) -> str:
    """Sentences one after the other: a space between them in English; in Chinese none after a Chinese
    sentence, a space after one in English (a session's English item in a Chinese note: "…measured. 具体…",
    not "…measured.具体…")."""
    out = ""
    for p in (p.strip() for p in parts):
        if p:
            out += (" " if out and (lang != "zh" or not ends_chinese(out)) else "") + p
    return out


def ends_chinese(text: str) -> bool:
    """Whether `text` ends in a Chinese character or full-width punctuation (a Chinese sentence or phrase)."""
    last = text.rstrip()[-1:]
    return bool(last) and (
        "\u3000" <= last <= "\u9fff" or "\uff00" <= last <= "\uffef" or last in "”’…—"
    )


def bracketed(text: str, lang: Lang) -> str:
    """A remark after what it is about: " (text)" in English, "（text）" in Chinese."""
    return f"（{text}）" if lang == "zh" else f" ({text})"


def enumerated(parts: Iterable[str], lang: Lang) -> str:
    """Short items of one kind side by side: "a, b" in English, "a、b" in Chinese."""
    return ("、" if lang == "zh" else ", ").join(parts)


def listed(parts: list[str], lang: Lang) -> str:
    """Items of a list one after the other: "a; b" in English, "a；b" in Chinese."""
    return ("；" if lang == "zh" else "; ").join(parts)
