"""The shared argument checks of privlab._validation that the papers' table builders and verdict
functions use: each bad argument is one line naming it and what is allowed."""

from __future__ import annotations

import pandas as pd
import pytest
from omegaconf import OmegaConf

from privlab._validation import PrivlabError, check_callable, check_mapping, check_table, map_in_order


def test_check_callable():
    assert check_callable("map_fn", len) is len
    assert check_callable("map_fn", None, optional=True) is None
    with pytest.raises(PrivlabError, match=r"^map_fn must be a function, got int$"):
        check_callable("map_fn", 3)
    with pytest.raises(PrivlabError, match=r"^log must be a function or None, got str$"):
        check_callable("log", "print", optional=True)


def test_check_mapping_takes_a_config_node_or_a_dict_with_its_keys():
    node = OmegaConf.create({"z_max": 4, "alpha": 0.01})
    assert check_mapping("limits", node, ("z_max",)) is node
    assert check_mapping("limits", {"z_max": 4}) == {"z_max": 4}
    with pytest.raises(PrivlabError, match=r"^limits lacks the key\(s\) alpha, tol$"):
        check_mapping("limits", {"z_max": 4}, ("z_max", "alpha", "tol"))
    with pytest.raises(PrivlabError, match=r"^limits must be a mapping \(a config block\), got list$"):
        check_mapping("limits", [4])


def test_check_table_wants_its_columns_and_rows():
    df = pd.DataFrame({"a": [1], "b": [2]})
    assert check_table(df, ("a", "b"), min_rows=1) is df
    with pytest.raises(PrivlabError, match=r"^df lacks the column\(s\) c$"):
        check_table(df, ("a", "c"))
    with pytest.raises(PrivlabError, match=r"^table must hold at least 1 row\(s\), got 0$"):
        check_table(df.iloc[:0], ("a",), name="table", min_rows=1)
    with pytest.raises(PrivlabError, match=r"^df must be a result table \(a DataFrame\), got dict$"):
        check_table({"a": [1]}, ("a",))


def test_map_in_order_is_the_serial_map_or_the_given_one():
    calls = []

    def through(fn, items):
        calls.append(len(items))
        return [fn(x) for x in reversed(items)][::-1]  # a map that works out of order, returns in order

    assert map_in_order(abs, (-1, 2, -3)) == [1, 2, 3]
    assert map_in_order(abs, (-1, 2, -3), through) == [1, 2, 3] and calls == [3]
    with pytest.raises(PrivlabError, match=r"^map must be a function or None, got int$"):
        map_in_order(abs, [1], 3, name="map")
