"""The real NIST ACS excerpts: shipped, checksum-verified, validated like the other data sets."""

from pathlib import Path

import pytest

from privlab import PrivlabError, datasets
from privlab.datasets import acs


@pytest.mark.parametrize("state, year", [("ma", 2019), ("tx", 2019), ("ma", 2018), ("tx", 2018)])
def test_every_shipped_file_loads_with_its_row_count(state, year):
    frame = datasets.load("acs", state=state, year=year)
    assert len(frame) == acs.ROWS[(state, year)] and list(frame.columns) == [*acs.COLUMNS, "STATE", "YEAR"]
    assert (frame.STATE == state).all() and (frame.YEAR == year).all()
    assert frame.AGEP.between(0, 99).all() and frame.EDU.dropna().between(1, 12).all()


def test_both_states_and_the_data_dictionary():
    both = datasets.load("acs")
    assert len(both) == 7634 + 9276 and set(both.STATE) == {"ma", "tx"}
    assert both.INDP_CAT.dropna().nunique() <= 20 and both.INDP.dropna().nunique() > 200  # INDP: the OCC analogue
    assert both.PINCP.isna().sum() == (both.AGEP < 15).sum()  # income is N/A under 15, as the dictionary says
    assert "Educational attainment" == acs.dictionary()["EDU"]["description"]
    assert not datasets.is_synthetic("acs") and "real records" in datasets.describe("acs", state="ma", year=2018)
    assert "NIST" in datasets.describe("acs")
    notice = Path(acs.__file__).parent / "data" / "acs" / "LICENSE.NIST"
    assert "National Institute of Standards and Technology" in notice.read_text()


@pytest.mark.parametrize(
    "params, message",
    [
        ({"state": "ca"}, "state must be one of ma, tx, both; got 'ca'"),
        ({"year": 2020}, "year must be one of 2019, 2018; got 2020"),
        ({"path": "/nonexistent"}, "path must be an existing directory"),
        ({"colour": "red"}, "'colour' is not a parameter of dataset acs"),
    ],
)
def test_bad_parameters_are_one_line(params, message):
    with pytest.raises(PrivlabError) as err:
        datasets.load("acs", **params)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_wrong_checksum_and_missing_shipped_file(monkeypatch, tmp_path):
    acs._shipped.cache_clear()
    monkeypatch.setitem(acs.SHA256, "ma2018.csv", "0" * 64)
    with pytest.raises(PrivlabError, match="the shipped ACS file ma2018.csv has sha256"):
        datasets.load("acs", state="ma", year=2018)
    monkeypatch.setattr(acs.resources, "files", lambda package: tmp_path)
    with pytest.raises(PrivlabError, match="tx2018.csv.xz is missing"):
        datasets.load("acs", state="tx", year=2018)
    acs._shipped.cache_clear()


def test_a_user_directory_is_validated_cell_by_cell(tmp_path):
    good = datasets.load("acs", state="ma", year=2019)
    text = good[list(acs.COLUMNS)].astype(object).where(good[list(acs.COLUMNS)].notna(), "N")
    path = tmp_path / "ma2019.csv"
    text.to_csv(path, index=False)
    assert datasets.load("acs", state="ma", path=str(tmp_path)).shape == good.shape
    with pytest.raises(PrivlabError, match="holds no tx2019.csv"):
        datasets.load("acs", state="both", path=str(tmp_path))
    bad = text.copy()
    bad.loc[4, "EDU"] = 77
    bad.to_csv(path, index=False)
    with pytest.raises(PrivlabError, match=r"ma2019.csv line 6, column EDU: expected .* got '77'"):
        datasets.load("acs", state="ma", path=str(tmp_path))
    path.write_text("a,b\n1,2\n")
    with pytest.raises(PrivlabError, match="expected the 24 NIST ACS columns"):
        datasets.load("acs", state="ma", path=str(tmp_path))
