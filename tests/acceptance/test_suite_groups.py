"""The suite's own scheduling holds: under pytest-xdist (--dist loadgroup, from pyproject.toml)
the tests of one xdist_group run on one worker. The documented commands rely on it (they run in
order in the checkout, IN_THE_CHECKOUT), and so do the modules that capture a server once for
many tests. A pytest release that drops the group (pytest 9.2 with pytest-xdist 3.8: its node
ids no longer carry the group's suffix) fails here instead of silently spreading each group."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

GROUPED = """
import pytest


@pytest.mark.xdist_group("together")
@pytest.mark.parametrize("number", range(10))
def test_grouped(number):
    pass


@pytest.mark.parametrize("number", range(10))
def test_free(number):
    pass
"""


def test_the_tests_of_a_group_run_on_one_worker_and_the_others_spread(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_one=GROUPED, test_two=GROUPED.replace("test_free", "test_free_too"))
    result = pytester.runpytest_subprocess("-n", "2", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=40)
    ran = [line.split() for line in result.outlines if " PASSED " in line and line.startswith("[gw")]
    grouped = {words[0] for words in ran if "::test_grouped[" in words[-1]}
    assert len(grouped) == 1, result.outlines
    assert all(words[-1].endswith("@together") for words in ran if "::test_grouped[" in words[-1])
    assert len({words[0] for words in ran}) == 2  # the rest went to both workers
