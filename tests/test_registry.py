"""The one shape of evalkit's three plug-in registries (evalkit.foundation.registry, docs/extending.md)."""

from __future__ import annotations

import itertools
import sys

import pytest

from evalkit.errors import InputError
from evalkit.foundation.registry import PluginLoadError, Registry, UnknownName, entry_points_of

_groups = itertools.count()


@pytest.fixture
def group() -> str:
    """An entry point group no other test has read (the groups are read once per process)."""
    return f"evalkit.test_registry_{next(_groups)}"


def install(folder, group: str, points: dict[str, str], module: str = "", source: str = "") -> None:
    """A package found through its dist-info on sys.path, as pip would leave it."""
    dist_info = folder / f"{group.replace('.', '_')}_plugin-1.0.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {group}-plugin\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text(f"[{group}]\n" + "".join(f"{n} = {t}\n" for n, t in points.items()))
    if module:
        (folder / f"{module}.py").write_text(source)


def test_a_built_in_entry_is_imported_when_first_named(tmp_path, monkeypatch, group):
    (tmp_path / "lazy_entries.py").write_text("def shout(text):\n    return text.upper()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry: Registry = Registry("thing", group, built_in={"shout": "lazy_entries:shout"})
    assert "lazy_entries" not in sys.modules
    misses = entry_points_of.cache_info().misses
    assert registry.get("shout")("hi") == "HI"
    assert "lazy_entries" in sys.modules
    assert entry_points_of.cache_info().misses == misses  # a built-in name reads no installed package
    sys.modules.pop("lazy_entries")


def test_registered_entries_win_and_register_decorates(group):
    registry: Registry = Registry("thing", group, built_in={"dumps": "json:dumps"})
    registry.register("dumps", repr)

    @registry.register("twice")
    def twice(text: str) -> str:
        return text * 2

    assert registry.get("dumps") is repr
    assert registry.get("twice") is twice and twice("a") == "aa"
    assert registry.names() == ["dumps", "twice"]


def test_an_unknown_name_is_none_to_get_and_an_input_error_naming_the_known_ones_to_require(group):
    registry: Registry = Registry("agent prefix", group, built_in={"cmd": "json:dumps", "replay": "json:loads"})
    assert registry.get("cmdd") is None
    with pytest.raises(UnknownName) as raised:
        registry.require("cmdd")
    assert isinstance(raised.value, InputError)
    assert str(raised.value) == "unknown agent prefix 'cmdd'; did you mean 'cmd'? (known: cmd, replay)"


def test_an_installed_plugin_is_found_loaded_once_and_listed_after_the_built_ins(tmp_path, monkeypatch, group):
    install(tmp_path, group, {"pinger": "ping_plugin:ping"}, "ping_plugin", "def ping():\n    return 'pong'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry: Registry = Registry("thing", group, built_in={"dumps": "json:dumps"})
    assert registry.names() == ["dumps", "pinger"]
    assert "pinger" in registry and not registry.known_without_plugins("pinger")
    ping = registry.require("pinger")
    assert ping() == "pong" and registry.get("pinger") is ping
    sys.modules.pop("ping_plugin")


def test_a_plugin_that_fails_to_load_or_holds_the_wrong_thing_is_named_with_its_entry_point(tmp_path, monkeypatch,
                                                                                           group):
    install(tmp_path, group, {"broken": "broken_plugin:thing", "number": "broken_plugin:NUMBER"}, "broken_plugin",
            "NUMBER = 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry: Registry = Registry("criterion", group, wanted="a Criterion class")
    with pytest.raises(PluginLoadError) as failed:
        registry.get("broken")
    assert str(failed.value).startswith("criterion 'broken': its plug-in broken_plugin:thing failed to load: "
                                        "AttributeError: ")
    assert failed.value.reason.startswith("its plug-in broken_plugin:thing failed to load")
    with pytest.raises(PluginLoadError, match=r"criterion 'number': its plug-in broken_plugin:NUMBER is not a "
                                              r"Criterion class \(fix that package, or uninstall it\)"):
        registry.get("number")
    sys.modules.pop("broken_plugin", None)
