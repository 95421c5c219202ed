import importlib.metadata

import treefarm


def test_version_is_the_installed_distributions() -> None:
    assert treefarm.__version__ == importlib.metadata.version("treefarm")
    assert all(part.isdigit() for part in treefarm.__version__.split(".")[:3])
