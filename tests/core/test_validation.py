"""The shared argument checks of privlab.validation (also under its old name privlab._validation) that
the papers' table builders and verdict functions use: each bad argument is one line naming it and what
is allowed; the one constraint protocol behind them and the configs' contracts."""

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


# --- the one constraint protocol: exclude=, declared entry points --------------------------------
def test_exclude_leaves_a_point_out_of_an_interval():
    from privlab.constraints import Real
    from privlab.validation import check_real

    p = Real(0, 1, exclude=(0.5,))
    assert p.check("p", 0.25) == 0.25 and p.check("p", 1) == 1.0
    with pytest.raises(PrivlabError, match=r"^p must be in \[0, 1\] other than 0.5, got 0.5$"):
        p.check("p", 0.5)
    assert ("the excluded point 0.5", 0.5) in list(p.invalid())
    assert p.describe() == "in [0, 1] other than 0.5"
    with pytest.raises(PrivlabError, match="other than 0.5"):
        check_real("p", 0.5, low=0, high=1, exclude=(0.5,))


def test_config_specs_and_relations_are_constraints():
    from privlab import params
    from privlab.constraints import Constraint
    from privlab.relations import Ordered

    for spec in (params.Int(0), params.Real(0), params.Choice("a"), params.Bool(), params.Str()):
        assert isinstance(spec, Constraint) and spec.describe()
    assert isinstance(params.List(params.Int(0)), Constraint) and isinstance(params.Optional(params.Bool()), Constraint)
    order = Ordered("lo", "hi")
    assert isinstance(order, Constraint)
    assert order.check("", {"lo": 1, "hi": 2}) == {"lo": 1, "hi": 2}
    with pytest.raises(PrivlabError, match=r"^lo must be smaller than hi, got lo=3 >= hi=2$"):
        order.check("", {"lo": 3, "hi": 2})


def test_validate_params_checks_converts_and_is_introspectable():
    from privlab.constraints import Int, Real
    from privlab.relations import Ordered
    from privlab.validation import declared, validate_params

    @validate_params(Ordered("low", "high"), low=Real(0, 1), high=Real(0, 1), n=Int(1, 10))
    def grid(low, high, n=2):
        return low, high, n

    assert grid(0, 1, n=1e1) == (0.0, 1.0, 10) and isinstance(grid(0, 1)[0], float)
    with pytest.raises(PrivlabError, match=r"^n must be an integer in \[1, 10\], got 11$"):
        grid(0.1, 0.2, 11)
    with pytest.raises(PrivlabError, match=r"^low must be smaller than high, got low=0.5 >= high=0.2$"):
        grid(0.5, 0.2)
    with pytest.raises(PrivlabError, match="^high must be in"):
        grid(high=2)  # a bad argument is refused before the missing ones are noticed
    assert set(grid.constraints) == {"low", "high", "n"} and grid.relations[0].names() == ("low", "high")
    assert declared()[f"{__name__}.test_validate_params_checks_converts_and_is_introspectable.<locals>.grid"] is grid
    with pytest.raises(TypeError, match="names no argument"):
        validate_params(m=Int(0))(lambda n: n)


def test_old_import_paths_still_work():
    import privlab._validation as old
    import privlab.validation as new

    assert old.check_real is new.check_real and old.PrivlabError is PrivlabError
    assert old._fmt("x" * 100).endswith("...")
