import importlib.metadata
import sys

import pytest

import treefarm
from treefarm.exceptions import StudyError, import_optional


def test_version_is_the_installed_distributions() -> None:
    assert treefarm.__version__ == importlib.metadata.version("treefarm")
    assert all(part.isdigit() for part in treefarm.__version__.split(".")[:3])


def test_a_missing_optional_dependency_names_what_needs_it_and_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every optional import says the same: what needed the module, and the extra to install."""
    from treefarm.execution.ray import _ray
    from treefarm.viz.interactive import _go

    monkeypatch.setitem(sys.modules, "ray", None)  # importing it raises ImportError
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)
    with pytest.raises(StudyError, match=r"^a Ray executor needs Ray: pip install 'treefarm\[ray\]'$"):
        _ray()
    with pytest.raises(StudyError, match=r"^interactive figures need plotly: pip install 'treefarm\[plotly\]'$"):
        _go()
    assert import_optional("json", needed="-", extra="-") is sys.modules["json"]
