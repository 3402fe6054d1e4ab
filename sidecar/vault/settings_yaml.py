"""ora.yaml's YAML as Ora reads it: PyYAML's safe loader, but a key given twice is an error and
`yes`, `no`, `on` and `off` are words, not booleans (as in YAML 1.2).

PyYAML follows YAML 1.1, where a plain `no` is false: `language: no` (Norwegian, a listed code)
was read as false, and a folder named `No` or `yes` in `exclude` made the whole list unreadable.
No key of ora.yaml takes a boolean but `lint.untyped`, whose `off` reads the same as a word; `true`
and `false` stay booleans. The settings editor (`settings_edit.py`) resolves the same way, so a
file it rewrites means what the reader read.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

__all__ = [
    "BOOL_FIRST",
    "BOOL_WORDS",
    "TOO_DEEP",
    "DuplicateKey",
    "load_settings_yaml",
    "yaml_error_line",
    "yaml_problem",
]

_BOOL = "tag:yaml.org,2002:bool"
# YAML 1.2's core schema booleans (the first characters they start with, as resolvers take them).
BOOL_WORDS = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
BOOL_FIRST = list("tTfF")


class _Loader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types here
    """SafeLoader with YAML 1.2's booleans: `yes`, `no`, `on`, `off` are strings."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _BOOL]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(_BOOL, BOOL_WORDS, BOOL_FIRST)


class DuplicateKey(ValueError):
    """A key given twice in one mapping of ora.yaml: invalid YAML, though PyYAML reads it."""


def _check_unique_keys(loader: yaml.SafeLoader, node: yaml.Node) -> None:
    """DuplicateKey when a mapping anywhere in `node` gives a key twice. YAML forbids it, and
    PyYAML would silently keep the last: a second `private:` made the first one's folders public.
    Checked on the composed nodes, before merge keys (`<<`) are flattened into their mapping, so
    a key overriding a merged one is no duplicate."""
    seen: set[int] = set()  # an alias reaches a node again (even itself, recursively)
    stack: list[tuple[yaml.Node, str]] = [(node, "")]
    while stack:
        current, where = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.SequenceNode):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(current.value))
        elif isinstance(current, yaml.MappingNode):
            lines: dict[Any, int] = {}
            for key_node, value_node in current.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = loader.construct_object(key_node, deep=True)
                name = f"{where}.{key}" if where else str(key)
                line = key_node.start_mark.line + 1
                try:
                    first = lines.get(key)
                except TypeError:  # an unhashable key: construction reports it
                    continue
                if first is not None:
                    lines_of = f"lines {first} and {line}" if first != line else f"line {line}"
                    raise DuplicateKey(f"the key '{name}' is given twice ({lines_of}); a key "
                                       "may appear only once")
                lines[key] = line
                stack.append((value_node, name))


TOO_DEEP = "it nests too deeply"


def yaml_problem(text: str) -> str | None:
    """Why ora.yaml's `text` is not valid YAML (a key given twice included), as one sentence
    naming the line; None when it is. The settings editor words its refusal with it."""
    try:
        load_settings_yaml(text)
    except (yaml.YAMLError, DuplicateKey) as exc:
        return yaml_error_line(exc)
    except RecursionError:
        return TOO_DEEP
    return None


def load_settings_yaml(text: str) -> Any:
    """`text` as the reader reads it: `yaml.safe_load`, but with YAML 1.2's booleans (`_Loader`),
    and a key given twice in any mapping is an error (DuplicateKey)."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_unique_keys(loader, node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def yaml_error_line(exc: Exception) -> str:
    """A YAML error as one line: what is wrong and where (the readers' text spans several
    lines). PyYAML's and ruamel's marked errors carry the same attributes."""
    if hasattr(exc, "problem_mark"):
        mark = exc.problem_mark or getattr(exc, "context_mark", None)
        what = getattr(exc, "problem", None) or getattr(exc, "context", None) or "unreadable"
        return f"{what} (line {mark.line + 1})" if mark is not None else what
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
