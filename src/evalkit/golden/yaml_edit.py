"""Set members of one mapping inside a YAML document, leaving every other line as it was.

PyYAML's composer gives each node its position in the text, so only the edited
members' text is rewritten: comments, key order, quoting and blank lines elsewhere
survive (a load-and-dump round trip would lose them). New values are written in block
style with the file's indent unit and its way of indenting lists (`key:` then `- item`
at the same column, or one unit deeper); multi-line strings as `|` blocks. Inside a
flow-style mapping (`{...}`), or in place of a flow-style value, values are written as
JSON, which is YAML too. The text
is composed once however many of its mappings are edited.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from evalkit.golden.edits import Edit, EditError, Target, apply_edits, check_edited
from evalkit.foundation.documents import fast_yaml_loader

_WIDE = 1 << 16  # never fold long lines: a folded answer is harder to review
FAST_LOADER = fast_yaml_loader()


def _block_dumper(indent_lists: bool) -> type[yaml.SafeDumper]:
    class BlockDumper(yaml.SafeDumper):
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
            return super().increase_indent(flow, False if indent_lists else indentless)

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    BlockDumper.add_representer(str, text)
    return BlockDumper


def _lookup(mapping: yaml.MappingNode, key: str) -> tuple[yaml.Node, yaml.Node] | None:
    found = [(k, v) for k, v in mapping.value if isinstance(k, yaml.ScalarNode) and k.value == key]
    return found[-1] if found else None


def _node_at(root: yaml.Node | None, path: list[str | int]) -> tuple[yaml.Node | None, yaml.Node | None]:
    """The node at `path` and the key node that leads to the last mapping on the way."""
    node, last_key = root, None
    for step in path:
        if isinstance(step, int):
            if not isinstance(node, yaml.SequenceNode) or step >= len(node.value):
                raise EditError(f"no element [{step}]")
            node = node.value[step]
        else:
            pair = _lookup(node, step) if isinstance(node, yaml.MappingNode) else None
            if pair is None:
                raise EditError(f"no member {step!r}")
            last_key, node = pair
    return node, last_key


def _content_end(text: str, start: int, end: int) -> int:
    """End of a block value's text: trailing blank and comment-only lines stay in the file,
    a comment on the value's last line goes with it (after a new block scalar it would
    become part of the text)."""
    lines = text[start:end].split("\n")
    while len(lines) > 1 and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    content_end = start + len("\n".join(lines).rstrip(" \t\r"))
    line_end = text.find("\n", content_end)
    line_end = len(text) if line_end < 0 else line_end
    if text[content_end:line_end].strip().startswith("#"):
        return len(text[:line_end].rstrip("\r"))
    return content_end


def _lists_indented(root: yaml.Node | None, text: str) -> bool:
    """Whether the file writes `key:` then its list items one unit deeper."""
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, yaml.MappingNode) and not node.flow_style:
            for key, value in node.value:
                if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value:
                    dash = text.rfind("-", 0, value.value[0].start_mark.index)
                    column = dash - (text.rfind("\n", 0, dash) + 1)
                    return column > key.start_mark.column
                pending.append(value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
    return False


def _indent_unit(root: yaml.Node | None, text: str) -> int:
    """How far the file indents a nested mapping, or else an indented list's dash."""
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, yaml.MappingNode) and not node.flow_style:
            for key, value in node.value:
                if isinstance(value, yaml.MappingNode) and not value.flow_style and value.value:
                    return max(1, value.value[0][0].start_mark.column - key.start_mark.column)
                if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value:
                    dash = text.rfind("-", 0, value.value[0].start_mark.index)
                    offset = dash - (text.rfind("\n", 0, dash) + 1) - key.start_mark.column
                    if offset > 0:
                        return offset
                pending.append(value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
    return 2


class YamlDocument:
    """One YAML text, composed once, to compute edits of its mappings' members."""

    def __init__(self, text: str):
        try:
            self.root = yaml.compose(text, Loader=FAST_LOADER)  # None: no document (only comments)
        except yaml.YAMLError as error:
            raise EditError(f"invalid YAML: {error}") from None
        self.text = text
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.dumper = _block_dumper(_lists_indented(self.root, text))
        self.unit = _indent_unit(self.root, text)

    def _block(self, key: str, value: Any, column: int) -> str:
        dumped = yaml.dump({key: value}, Dumper=self.dumper, sort_keys=False, allow_unicode=True,
                           default_flow_style=False, indent=self.unit, width=_WIDE).rstrip("\n")
        return (self.newline + " " * column).join(dumped.split("\n"))

    def edits(self, path: list[str | int], values: dict[str, Any]) -> list[Edit]:
        """Edits giving the mapping at `path` these members (replaced, or added at its end)."""
        text = self.text
        mapping, _ = _node_at(self.root, path)
        if not isinstance(mapping, yaml.MappingNode) or not mapping.value:
            raise EditError("expected a mapping with members")
        edits: list[Edit] = []
        added: list[tuple[str, Any]] = []
        for key, value in values.items():
            pair = _lookup(mapping, key)
            if pair is None:
                added.append((key, value))
                continue
            key_node, value_node = pair
            if mapping.flow_style or getattr(value_node, "flow_style", False):  # `{...}` stays `{...}`
                edits.append((value_node.start_mark.index, value_node.end_mark.index,
                              json.dumps(value, ensure_ascii=False)))
            else:
                start = key_node.start_mark.index
                end = _content_end(text, start, value_node.end_mark.index)
                edits.append((start, end, self._block(key, value, key_node.start_mark.column)))
        if added:
            last_key, last_value = mapping.value[-1]
            if mapping.flow_style:
                anchor = last_value.end_mark.index
                insert = "".join(f", {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in added)
            else:
                anchor = _content_end(text, last_key.start_mark.index, last_value.end_mark.index)
                column = mapping.value[0][0].start_mark.column
                insert = "".join(self.newline + " " * column + self._block(k, v, column) for k, v in added)
            edits.append((anchor, anchor, insert))
        return edits


def set_members(text: str, path: list[str | int], values: dict[str, Any]) -> str:
    """`text` with the mapping at `path` given `values`, checked by parsing the result."""
    edited = apply_edits(text, YamlDocument(text).edits(path, values))
    check(text, edited, [(path, values)])
    return edited


def check(before: str, after: str, targets: list[Target]) -> None:
    check_edited(yaml.load(before, Loader=FAST_LOADER), yaml.load(after, Loader=FAST_LOADER), targets)
