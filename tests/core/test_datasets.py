"""Tests of privlab.datasets: the shipped Adult, the CENSUS-/PUMS-like generators, the
real-file loaders and the registry (load / describe / is_synthetic / Hydra configs)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency

import privlab.datasets as ds
from privlab._validation import PrivlabError
from privlab.datasets import adult, census, pums

REPO = Path(__file__).resolve().parents[2]

ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
]


def mutual_information(a, b) -> float:
    """Plug-in mutual information (nats) of two discrete columns."""
    table = pd.crosstab(a, b).to_numpy().astype(float)
    p = table / table.sum()
    expected = p.sum(axis=1, keepdims=True) @ p.sum(axis=0, keepdims=True)
    nz = p > 0
    return float((p[nz] * np.log(p[nz] / expected[nz])).sum())


# --------------------------------------------------------------------------- adult


@pytest.fixture(scope="module")
def adult_all():
    return ds.load("adult")


def test_adult_shape_columns_and_types(adult_all):
    assert adult_all.shape == (48_842, 15)
    assert list(adult_all.columns) == ADULT_COLUMNS
    for col in adult.NUMERIC:
        assert adult_all[col].dtype == np.int64
    assert list(adult_all.index) == list(range(48_842))


def test_adult_split_is_data_then_test(adult_all):
    train = ds.load("adult", split="train")
    test = ds.load("adult", split="test")
    assert len(train) == 32_561 and len(test) == 16_281
    pd.testing.assert_frame_equal(pd.concat([train, test], ignore_index=True), adult_all)


def test_adult_known_values(adult_all):
    first = adult_all.iloc[0]
    assert (first["age"], first["workclass"], first["fnlwgt"]) == (39, "State-gov", 77516)
    assert (first["education"], first["capital-gain"], first["income"]) == ("Bachelors", 2174, "<=50K")
    # First record of adult.test (after its "|1x3 Cross validator" line).
    first_test = adult_all.iloc[32_561]
    assert (first_test["age"], first_test["fnlwgt"], first_test["race"]) == (25, 226802, "Black")
    assert first_test["income"] == "<=50K"  # the trailing dot is gone
    assert adult_all["age"].min() == 17 and adult_all["age"].max() == 90
    assert adult_all["education-num"].min() == 1 and adult_all["education-num"].max() == 16
    assert adult_all["hours-per-week"].min() == 1 and adult_all["hours-per-week"].max() == 99
    assert adult_all["income"].value_counts().to_dict() == {"<=50K": 37_155, ">50K": 11_687}


def test_adult_missing_values_and_clean_labels(adult_all):
    # "?" becomes missing; these are the well-known counts for the 48,842 rows.
    assert adult_all["workclass"].isna().sum() == 2_799
    assert adult_all["occupation"].isna().sum() == 2_809
    assert adult_all["native-country"].isna().sum() == 857
    assert adult_all[["age", "education", "sex", "income"]].notna().all().all()
    labels = set(adult_all["workclass"].dropna())
    assert labels == set(adult.DOMAINS["workclass"])
    assert not any(label.startswith(" ") or label == "?" for label in labels)


def test_adult_returns_fresh_copies():
    a = ds.load("adult")
    a.loc[0, "age"] = -1
    assert ds.load("adult").loc[0, "age"] == 39
    assert a.attrs["synthetic"] is False


@pytest.fixture
def fresh_adult_cache():
    adult._shipped_parts.cache_clear()
    yield
    adult._shipped_parts.cache_clear()


def test_adult_checksum_mismatch_names_the_file(monkeypatch, fresh_adult_cache):
    monkeypatch.setitem(adult.SHA256, "adult.test", "0" * 64)
    with pytest.raises(PrivlabError, match=r"adult\.test is corrupt: sha256 a2a9044b"):
        ds.load("adult")


ADULT_DATA_LINES = [
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K",  # noqa: E501
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K",  # noqa: E501
    "54, ?, 180211, Some-college, 10, Married-civ-spouse, ?, Husband, Asian-Pac-Islander, Male, 0, 0, 60, South, >50K",
]
ADULT_TEST_LINES = [
    "|1x3 Cross validator",
    "25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40, United-States, <=50K.",  # noqa: E501
    "44, Private, 160323, Some-college, 10, Married-civ-spouse, Machine-op-inspct, Husband, Black, Male, 7688, 0, 40, United-States, >50K.",  # noqa: E501
]


def write_adult(directory: Path, data_lines, test_lines=ADULT_TEST_LINES) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "adult.data").write_text("\n".join(data_lines) + "\n\n")
    (directory / "adult.test").write_text("\n".join(test_lines) + "\n")
    return directory


def test_adult_user_path(tmp_path):
    frame = ds.load("adult", path=write_adult(tmp_path, ADULT_DATA_LINES))
    assert frame.shape == (5, 15) and list(frame.columns) == ADULT_COLUMNS
    assert frame["income"].tolist() == ["<=50K", "<=50K", ">50K", "<=50K", ">50K"]
    assert pd.isna(frame.loc[2, "workclass"]) and frame.loc[2, "native-country"] == "South"
    assert frame["capital-gain"].tolist() == [2174, 0, 0, 0, 7688]
    assert len(ds.load("adult", path=tmp_path, split="test")) == 2
    assert ds.is_synthetic("adult", path=str(tmp_path)) is False


def test_adult_malformed_user_file_names_file_line_column(tmp_path):
    lines = list(ADULT_DATA_LINES)
    lines[2] = lines[2].replace("54,", "abc,", 1)
    write_adult(tmp_path, lines)
    with pytest.raises(PrivlabError) as info:
        ds.load("adult", path=tmp_path)
    message = str(info.value)
    assert message.endswith("adult.data line 3, column age: expected an integer, got 'abc'")
    assert "\n" not in message


@pytest.mark.parametrize(
    "data_lines, test_lines, expected",
    [
        (
            ADULT_DATA_LINES[:1] + [ADULT_DATA_LINES[1].replace("Husband", "Spouse")],
            ADULT_TEST_LINES,
            r"adult\.data line 2, column relationship: expected one of the 6 relationship labels.*got 'Spouse'",
        ),
        (
            ADULT_DATA_LINES[:2] + ["50, Private, 1"],
            ADULT_TEST_LINES,
            r"adult\.data line 3: expected 15 comma-separated fields, got 3",
        ),
        (
            ADULT_DATA_LINES,
            ADULT_TEST_LINES[:2] + [ADULT_TEST_LINES[2].replace(">50K.", "maybe")],
            r"adult\.test line 3, column income: expected one of the 2 income labels.*got 'maybe'",
        ),
        (
            ADULT_DATA_LINES,
            [ADULT_TEST_LINES[0], ADULT_TEST_LINES[1].replace("226802", "-5")],
            r"adult\.test line 2, column fnlwgt: expected a non-negative integer, got '-5'",
        ),
    ],
)
def test_adult_bad_user_files(tmp_path, data_lines, test_lines, expected):
    write_adult(tmp_path, data_lines, test_lines)
    with pytest.raises(PrivlabError, match=expected):
        ds.load("adult", path=tmp_path)


def test_adult_bad_path_and_split(tmp_path):
    with pytest.raises(PrivlabError, match="path must be an existing directory"):
        ds.load("adult", path=tmp_path / "nowhere")
    (tmp_path / "adult.data").write_text(ADULT_DATA_LINES[0] + "\n")
    with pytest.raises(PrivlabError, match="adult.test.*does not exist"):
        ds.load("adult", path=tmp_path)
    with pytest.raises(PrivlabError, match="split must be one of all, train, test; got 'dev'"):
        ds.load("adult", split="dev")


def test_adult_package_does_not_read_shared():
    source = "".join(p.read_text() for p in (REPO / "privlab" / "datasets").glob("*.py"))
    assert "shared" not in source


# --------------------------------------------------------------------------- census


@pytest.fixture(scope="module")
def census_300k():
    return ds.load("census")


def test_census_columns_and_domains(census_300k):
    frame = census_300k
    assert len(frame) == 300_000
    assert list(frame.columns) == [
        "age",
        "gender",
        "education",
        "marital",
        "race",
        "workclass",
        "country",
        "occupation",
    ]
    expected = {
        "age": 76,
        "gender": 2,
        "education": 14,
        "marital": 6,
        "race": 9,
        "workclass": 10,
        "country": 83,
        "occupation": 50,
    }
    for col, size in expected.items():
        assert frame[col].dtype == np.int64
        assert frame[col].min() == 0 and frame[col].max() == size - 1, col
    assert frame.attrs["synthetic"] is True


@pytest.mark.parametrize("col, lo, hi, size", [("occupation", 0.0018, 0.075, 50), ("education", 0.0044, 0.273, 14)])
def test_census_sa_marginals_match_the_paper(census_300k, col, lo, hi, size):
    n = len(census_300k)
    freq = census_300k[col].value_counts().reindex(range(size), fill_value=0) / n
    assert (freq > 0).all()
    assert abs(freq.min() - lo) <= 1 / n and abs(freq.max() - hi) <= 1 / n
    # Codes are sorted by frequency, and the decay is strictly monotone.
    assert freq.iloc[0] == freq.max() and freq.iloc[-1] == freq.min()
    assert np.all(np.diff(freq.to_numpy()) < 0)


def test_warped_geometric_and_largest_remainder():
    f = census.warped_geometric(50, 0.075, 0.0018)
    assert f[0] == 0.075 and f[-1] == 0.0018 and abs(f.sum() - 1) < 1e-12
    counts = census.largest_remainder(7, np.array([0.5, 0.3, 0.2]))
    assert counts.tolist() == [4, 2, 1]  # 3.5 / 2.1 / 1.4 -> remainder goes to the 0.5
    assert census.largest_remainder(300_000, f).tolist()[:1] == [22_500]


def test_census_qi_depends_on_occupation_and_education(census_300k):
    frame = census_300k
    age_group = frame["age"] // 10
    for sa in ("occupation", "education"):
        _, p, _, _ = chi2_contingency(pd.crosstab(age_group, frame[sa]))
        assert p < 1e-100
        assert mutual_information(age_group, frame[sa]) > 0.02
        assert mutual_information(frame["gender"], frame[sa]) > 0.005
    # The two SAs depend on each other.
    assert mutual_information(frame["occupation"], frame["education"]) > 0.1
    # Education carries information about the QIs beyond what occupation carries.
    within = frame[frame["occupation"] == 1]
    _, p, _, _ = chi2_contingency(pd.crosstab(within["age"] // 10, within["education"]))
    assert p < 1e-20


def test_census_every_qi_is_dependent_on_occupation(census_300k):
    for qi in census.QI_COLUMNS:
        x = census_300k[qi] // 10 if qi == "age" else census_300k[qi]
        _, p, _, _ = chi2_contingency(pd.crosstab(x, census_300k["occupation"]))
        assert p < 1e-50, qi


def test_census_deterministic_per_seed():
    a = ds.load("census", n=20_000, seed=7)
    pd.testing.assert_frame_equal(a, ds.load("census", n=20_000, seed=7))
    b = ds.load("census", n=20_000, seed=8)
    assert not a.equals(b)
    # Same marginal counts for every seed, different order.
    assert a["occupation"].value_counts().sort_index().equals(b["occupation"].value_counts().sort_index())


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 2000), seed=st.integers(0, 2**32))
def test_census_any_n_and_seed_gives_valid_domains(n, seed):
    frame = ds.load("census", n=n, seed=seed)
    assert len(frame) == n
    for col, size in census.SIZES.items():
        assert frame[col].between(0, size - 1).all()
    model = census.model()
    for col in ("occupation", "education"):
        counts = np.bincount(frame[col], minlength=census.SIZES[col])
        assert counts.tolist() == census.largest_remainder(n, model[col]).tolist()


@pytest.mark.parametrize("n", [0, 500_001, -3, 1.5, "10", True])
def test_census_n_out_of_range(n):
    with pytest.raises(PrivlabError, match=r"^n must be an integer"):
        ds.load("census", n=n)


def test_census_n_message():
    with pytest.raises(PrivlabError) as info:
        ds.load("census", n=0)
    assert str(info.value) == "n must be an integer in [1, 500,000], got 0"


CENSUS_HEADER = "age,gender,education,marital,race,workclass,country,occupation"


def test_census_real_extract(tmp_path):
    rows = ["30,1,0,2,0,0,0,5", "75,0,13,5,8,9,82,49", "0,0,3,1,2,3,4,0", "10,1,1,1,1,1,1,1"]
    path = tmp_path / "census.csv"
    path.write_text("\n".join([CENSUS_HEADER] + rows) + "\n")
    frame = ds.load("census", path=path)
    assert frame.shape == (4, 8) and frame.loc[1, "country"] == 82
    assert frame.attrs["synthetic"] is False and not ds.is_synthetic("census", path=path)
    sub = ds.load("census", path=path, n=2, seed=1)
    pd.testing.assert_frame_equal(sub, ds.load("census", path=path, n=2, seed=1))
    assert len(sub) == 2
    with pytest.raises(PrivlabError, match="n must be at most the 4 rows"):
        ds.load("census", path=path, n=5)


@pytest.mark.parametrize(
    "row, expected",
    [
        ("30,1,0,2,9,0,0,5", r"line 3, column race: expected an integer in \[0, 8\], got '9'"),
        ("30,1,0,2,1,0,0,x", r"line 3, column occupation: expected an integer, got 'x'"),
        ("30,,0,2,1,0,0,1", r"line 3, column gender: expected an integer, got ''"),
    ],
)
def test_census_real_extract_bad_values(tmp_path, row, expected):
    path = tmp_path / "bad.csv"
    path.write_text("\n".join([CENSUS_HEADER, "1,1,1,1,1,1,1,1", row]) + "\n")
    with pytest.raises(PrivlabError, match=r"bad\.csv " + expected):
        ds.load("census", path=path)


def test_census_real_extract_missing_column(tmp_path):
    path = tmp_path / "short.csv"
    path.write_text("age,gender\n1,1\n")
    with pytest.raises(PrivlabError, match="line 1: header must contain columns.*missing education"):
        ds.load("census", path=path)


# --------------------------------------------------------------------------- pums


@pytest.fixture(scope="module")
def pums_big():
    return ds.load("pums", n=200_000, seed=3)


def test_pums_columns_and_domains():
    frame = ds.load("pums")
    assert frame.shape == (2_500, 7)
    assert list(frame.columns) == ["salary", "age", "sex", "education", "industry", "occupation", "travel_time"]
    assert set(frame["salary"]) <= set(range(10, 251, 10))
    assert frame["age"].between(16, 84).all() and set(frame["sex"]) == {1, 2}
    assert frame["education"].between(1, 16).all() and frame["industry"].between(1, 18).all()
    assert frame["occupation"].between(1, 25).all() and frame["travel_time"].between(1, 177).all()
    assert (frame.dtypes == np.int64).all()


def test_pums_large_sample_fills_the_domains(pums_big):
    for col, values in pums.DOMAINS.items():
        if col not in ("age", "travel_time"):  # workers over 80 are rare, as in the ACS
            assert set(pums_big[col]) == set(values), col
    assert pums_big["age"].min() == 16 and pums_big["age"].max() >= 80
    travel = pums_big["travel_time"]
    assert travel.mean() > travel.median() + 3  # right-skewed


def test_pums_salary_depends_on_education_and_more(pums_big):
    groups = pd.cut(pums_big["education"], [0, 8, 9, 12, 13, 16])
    means = pums_big.groupby(groups, observed=True)["salary"].mean().to_numpy()
    assert np.all(np.diff(means) > 2), means
    by_sex = pums_big.groupby("sex")["salary"].mean()
    assert by_sex[1] > by_sex[2] + 5
    assert (
        pums_big.loc[pums_big.age.between(45, 55), "salary"].mean()
        > pums_big.loc[pums_big.age < 25, "salary"].mean() + 15
    )
    assert pums_big.groupby("occupation")["salary"].mean().std() > 10
    _, p, _, _ = chi2_contingency(pd.crosstab(pums_big["industry"], pums_big["salary"]))
    assert p < 1e-50


def test_pums_deterministic_per_seed():
    pd.testing.assert_frame_equal(ds.load("pums", seed=5), ds.load("pums", seed=5))
    assert not ds.load("pums", seed=5).equals(ds.load("pums", seed=6))


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 2000), seed=st.integers(0, 2**32))
def test_pums_any_n_and_seed_gives_valid_domains(n, seed):
    frame = ds.load("pums", n=n, seed=seed)
    assert len(frame) == n
    for col, values in pums.DOMAINS.items():
        assert frame[col].isin(values).all(), col


@pytest.mark.parametrize("n", [0, 1_000_001])
def test_pums_n_out_of_range(n):
    with pytest.raises(PrivlabError, match=r"n must be an integer in \[1, 1,000,000\]"):
        ds.load("pums", n=n)


PUMS_HEADER = "SERIALNO,SPORDER,WAGP,AGEP,SEX,SCHL,INDP,OCCP,JWMNP"


def test_pums_real_file_2006(tmp_path):
    rows = [
        "1,1,45000,40,1,13,7870,230,25",  # kept: 50K, bachelor's, EDU/EDU
        "1,2,,10,2,,,,",  # child: dropped
        "2,1,3000,17,2,5,4670,472,10",  # salary < 10K: dropped
        "3,1,350000,52,1,16,6870,80,200",  # salary top-coded 250, FIN occ, travel 177
        "4,1,25000,30,2,9,770,620,",  # no commute: dropped
        "5,1,25000,85,2,9,770,620,30",  # age 85: dropped
        "6,1,25000,30,2,9,9920,992,30",  # not worked in 5 years: dropped
        "7,1,14999,23,2,12,170,420,1",  # kept: 10K (rounded), AGR, CLN
    ]
    path = tmp_path / "ss06pil.csv"
    path.write_text("\n".join([PUMS_HEADER] + rows) + "\n")
    frame = ds.load("pums", path=path)
    assert frame.to_dict("list") == {
        "salary": [50, 250, 10],
        "age": [40, 52, 23],
        "sex": [1, 1, 2],
        "education": [13, 16, 12],
        "industry": [12, 10, 1],
        "occupation": [9, 3, 15],
        "travel_time": [25, 177, 1],
    }
    assert ds.describe("pums", path=path).startswith("ACS PUMS person file read from")


def test_pums_real_file_2019_recodes_schl_and_occp(tmp_path):
    rows = [
        "1,1,25000,40,2,21,7860,2310,30",  # bachelor's (21 -> 13), EDU occ (2310)
        "1,2,25000,40,1,17,770,6230,30",
    ]  # GED (17 -> 9), CON occ (6230)
    path = tmp_path / "psam_p17.csv"
    path.write_text("\n".join([PUMS_HEADER] + rows) + "\n")
    frame = ds.load("pums", path=path, acs_year=2019)
    assert frame["salary"].tolist() == [30, 30]  # 25,000 rounds half up
    assert frame["education"].tolist() == [13, 9]
    assert frame["occupation"].tolist() == [9, 20] and frame["industry"].tolist() == [12, 4]
    # The same file read with the 2006 codes fails on SCHL 21, naming the fix.
    with pytest.raises(
        PrivlabError,
        match=r"psam_p17\.csv line 2, column SCHL: expected an "
        r"integer in \[1, 16\], got '21' \(codes of acs_year=2006",
    ):
        ds.load("pums", path=path)


@pytest.mark.parametrize(
    "row, expected",
    [
        ("1,1,45000,40,3,13,7870,230,25", r"line 3, column SEX: expected an integer in \[1, 2\], got '3'"),
        ("1,1,45000,forty,1,13,7870,230,25", r"line 3, column AGEP: expected an integer, got 'forty'"),
        ("1,1,45000,40,1,13,100,230,25", r"line 3, column INDP: expected an ACS industry \(INDP\) code"),
        ("1,1,-5,40,1,13,7870,230,25", r"line 3, column WAGP: expected an integer in \[0, inf\], got '-5'"),
    ],
)
def test_pums_real_file_bad_values(tmp_path, row, expected):
    path = tmp_path / "p.csv"
    path.write_text("\n".join([PUMS_HEADER, "1,1,45000,40,1,13,7870,230,25", row]) + "\n")
    with pytest.raises(PrivlabError, match=r"p\.csv " + expected):
        ds.load("pums", path=path)


def test_pums_real_file_with_nothing_usable(tmp_path):
    path = tmp_path / "kids.csv"
    path.write_text(PUMS_HEADER + "\n1,1,,8,1,,,,\n")
    with pytest.raises(PrivlabError, match="no rows left after preprocessing"):
        ds.load("pums", path=path)


# --------------------------------------------------------------------------- registry


def test_unknown_dataset_name():
    with pytest.raises(PrivlabError) as info:
        ds.load("x")
    assert str(info.value) == "dataset must be one of adult, acs, census, pums; got 'x'"


def test_unknown_parameter():
    with pytest.raises(PrivlabError) as info:
        ds.load("census", rows=10)
    assert str(info.value) == "'rows' is not a parameter of dataset census; allowed: n, seed, path"
    with pytest.raises(PrivlabError, match="'n' is not a parameter of dataset adult; allowed: path, split"):
        ds.load("adult", n=10)


def test_bad_seed_and_path():
    with pytest.raises(PrivlabError, match=r"seed must be an integer in \[0, inf\], got -1"):
        ds.load("census", n=10, seed=-1)
    with pytest.raises(PrivlabError, match="path must be an existing file"):
        ds.load("pums", path="/nonexistent/file.csv")


def test_synthetic_flags_and_descriptions():
    assert ds.SYNTHETIC == {"adult": False, "acs": False, "census": True, "pums": True}
    assert ds.is_synthetic("census") and ds.is_synthetic("pums", n=10)
    assert not ds.is_synthetic("adult")
    for name in ds.NAMES:
        text = ds.describe(name)
        assert "\n" not in text
        assert ("synthetic" in text) == ds.SYNTHETIC[name]
    assert "synthetic" not in ds.describe("census", path="extract.csv")


@pytest.mark.parametrize("name", ["adult", "census", "pums"])
def test_hydra_configs_load_as_is(name):
    yaml = pytest.importorskip("yaml")
    cfg = yaml.safe_load((REPO / "conf" / "dataset" / f"{name}.yaml").read_text())
    assert cfg["name"] == name and cfg["path"] is None
    assert set(cfg) - {"name"} == set(ds.parameters(name))
    if name == "census":
        cfg["n"] = 1_000  # the 300K default is exercised above
    frame = ds.load(**cfg)
    assert len(frame) == {"adult": 48_842, "census": 1_000, "pums": 2_500}[name]
