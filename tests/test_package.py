import treefarm


def test_version_is_a_string() -> None:
    assert isinstance(treefarm.__version__, str)
