"""The registry of families (``qwkit._base._registry``): every hand-written list of a
family's names — a ``Literal`` that type checkers read, an ``Enum`` typer reads, a
numpydoc ``{...}`` of choices, a table of the docs — agrees with the records, so that
adding a member is its computation, one record and its tests (CONTRIBUTING.md, "Adding a
member to a family").

``python tests/test_registry.py`` prints the docs tables as the records write them.
"""

from __future__ import annotations

import inspect
import re
import typing
from pathlib import Path

import pytest

import qwkit
from qwkit._base._families import Family, Member
from qwkit._base._registry import (
    COEFFICIENTS,
    CRITERIA,
    ICC_FORMS,
    WEIGHTS,
    Coefficient,
    CountsCoefficient,
    ICCForm,
    RaterWeightsName,
    WeightsName,
)

ROOT = Path(__file__).resolve().parents[1]
AGREEMENT_DOC = ROOT / "docs" / "agreement.md"


# ---------------------------------------------------------------------------- docs tables


def coefficient_table() -> str:
    rows = [
        "| `coefficient` | name | what it is | needs | from counts | eq. | source |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in COEFFICIENTS.values():
        rows.append(
            f"| `{r.name}` | {r.display} | {r.help} | {r.needs or '—'} | "
            f"{'yes' if r.pooled else '—'} | ({r.equation}) | {r.source} |"
        )
    return "\n".join(rows)


def weights_table() -> str:
    rows = [
        "| `weights` | d(k, l) | what | only in | eq. | source |",
        "|---|---|---|---|---|---|",
    ]
    for r in WEIGHTS.values():
        rows.append(
            f"| `{r.name}` | {r.formula.replace('|', chr(92) + '|')} | {r.help} | "
            f"{r.needs or '—'} | ({r.equation}) | {r.source} |"
        )
    return "\n".join(rows)


def icc_table() -> str:
    rows = [
        "| `form` | Shrout & Fleiss | command line | what it is | model | population value | eq. |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in ICC_FORMS.values():
        rows.append(
            f'| `"{r.name}"` | {r.shrout_fleiss} | `{r.aliases[0]}` | {r.help} | {r.model} | '
            f"{r.population} | ({r.equation}) |"
        )
    return "\n".join(rows)


@pytest.mark.parametrize("table", [coefficient_table, weights_table, icc_table])
def test_the_docs_tables_are_the_registry(table):
    text = AGREEMENT_DOC.read_text(encoding="utf-8")
    assert table() in text, f"docs/agreement.md: regenerate with `python {__file__}`"


# ---------------------------------------------------------------------------- literals


@pytest.mark.parametrize(
    ("literal", "names"),
    [
        (Coefficient, COEFFICIENTS.names),
        (CountsCoefficient, COEFFICIENTS.where(lambda r: r.pooled)),
        (WeightsName, WEIGHTS.where(lambda r: not r.many_raters)),
        (RaterWeightsName, WEIGHTS.names),
        (ICCForm, ICC_FORMS.names),
    ],
)
def test_each_literal_is_its_records(literal, names):
    assert typing.get_args(literal) == names


def _public_callables():
    """Every public function and method of qwkit and its integrations."""
    import qwkit.polars

    seen = {}
    for module in (qwkit, qwkit.polars, __import__("qwkit.duckdb").duckdb):
        for name in module.__all__:
            obj = getattr(module, name)
            seen[f"{module.__name__}.{name}"] = obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if callable(member) and not attr.startswith("_"):
                        seen[f"{module.__name__}.{name}.{attr}"] = member
    return {k: v for k, v in seen.items() if inspect.isfunction(v)}


_FAMILY_OF = {"coefficient": COEFFICIENTS, "weights": WEIGHTS, "form": ICC_FORMS}


def _literals(annotation) -> tuple:
    """The strings of the ``Literal`` parts of a resolved annotation."""
    if typing.get_origin(annotation) is typing.Literal:
        return typing.get_args(annotation)
    return tuple(a for arg in typing.get_args(annotation) for a in _literals(arg))


def test_signatures_and_docstrings_list_the_registry():
    """A parameter that takes a family's names annotates them with the registry's
    ``Literal`` (all of them, or a subset the records define), and its numpydoc
    ``{...}`` lists the same names."""
    checked = 0
    for where, function in _public_callables().items():
        try:
            hints = typing.get_type_hints(function)
        except NameError:  # a forward reference typing cannot resolve: not ours
            hints = {}
        for parameter, family in _FAMILY_OF.items():
            if parameter not in inspect.signature(function).parameters:
                continue
            annotated = _literals(hints.get(parameter))
            doc = re.search(
                rf"^\s*{parameter} : \{{([^}}]*)\}}", inspect.getdoc(function) or "", re.M
            )
            documented = tuple(re.findall(r'"([^"]+)"', doc.group(1))) if doc else ()
            for names in (annotated, documented):
                assert set(names) <= set(family), (where, parameter, names)
            if parameter == "weights" and documented:  # every name, or those of two raters
                assert documented in (WEIGHTS.names, typing.get_args(WeightsName)), where
            if annotated and documented:  # else "As in ..."
                assert documented == annotated, (where, parameter, documented, annotated)
                checked += 1
    assert checked >= 20  # kappa_score, ..., agreement_score, the Polars namespace, icc


def test_the_polars_namespace_takes_every_coefficient():
    import polars as pl

    import qwkit.polars

    for method in ("agreement", "agreement_test"):
        hints = typing.get_type_hints(getattr(qwkit.polars.KappaNamespace, method))
        assert typing.get_args(hints["coefficient"]) == COEFFICIENTS.names
    df = pl.DataFrame({"a": [1, 2, 3, 1, 2], "b": [1, 2, 3, 2, 2]})
    for name in COEFFICIENTS:
        got = df.select(pl.col("a").qwk.agreement("b", coefficient=name, weights=None)).item()
        assert got == qwkit.agreement_score(df.to_numpy(), coefficient=name, weights=None)


# ---------------------------------------------------------------------------- CLI


def test_the_command_line_reads_the_registry():
    from qwkit.cli import _cmd_agreement, _options, _reliability

    assert tuple(w.value for w in _options.Weights) == WEIGHTS.where(lambda r: not r.many_raters)
    assert tuple(w.value for w in _cmd_agreement.AgreementWeights) == WEIGHTS.names
    assert tuple(_reliability.ICC_NAMES.values()) == ICC_FORMS.names
    assert _cmd_agreement.coefficient_option("all") == list(
        COEFFICIENTS.where(lambda r: r.chance_corrected and not r.two_raters)
    )
    for name in COEFFICIENTS:
        assert _cmd_agreement.coefficient_option(name) == [name]
        assert name in _cmd_agreement._COEFFICIENT_HELP
    for r in ICC_FORMS.values():
        assert _reliability.icc_form(r.aliases[0].upper()) == r.name
    for name in WEIGHTS:
        assert f"{name}: " in _cmd_agreement._WEIGHTS_HELP


# ---------------------------------------------------------------------------- families


def test_every_member_has_its_computation():
    from qwkit._agreement import _icc, _model
    from qwkit._base import _weights

    assert tuple(_model.MODELS) == COEFFICIENTS.names
    assert tuple(_model.METRICS) == WEIGHTS.names
    assert tuple(_weights._AT) == WEIGHTS.where(lambda r: not r.many_raters)
    assert tuple(_icc._ICC) == ICC_FORMS.names
    with pytest.raises(ValueError, match=r"no computation for \['light'"):
        COEFFICIENTS.bind({n: None for n in COEFFICIENTS if n != "light"})
    with pytest.raises(ValueError, match=r"no record for \['kappa'\]"):
        COEFFICIENTS.bind({**dict.fromkeys(COEFFICIENTS), "kappa": None})


def test_lists_of_a_few_members_name_registered_ones():
    """What names a few members for a property of their computation (which take a fast
    path, which count the scale's categories) or of an oracle names registered ones."""
    from oracles.naive_agreement import NAIVE_COEFFICIENTS
    from qwkit._agreement import _input

    assert set(NAIVE_COEFFICIENTS) <= set(COEFFICIENTS.where(lambda r: not r.two_raters))
    assert set(_input.MOMENT_ONLY) <= set(COEFFICIENTS.where(lambda r: r.pooled))
    assert set(_input._COUNT_CATEGORIES) <= set(COEFFICIENTS)


def test_records_are_complete_and_distinct():
    for family in (COEFFICIENTS, WEIGHTS, ICC_FORMS, CRITERIA):
        assert isinstance(family, Family)
        for name, r in family.items():
            assert isinstance(r, Member)
            assert r.name == name and r.display and r.help, name
        displays = [r.display for r in family.values()]
        assert len(set(displays)) == len(displays)
    for r in COEFFICIENTS.values():
        assert (r.generalized != "") == r.two_raters
        assert not r.generalized or not COEFFICIENTS[r.generalized].two_raters
    with pytest.raises(ValueError, match="share a name"):
        Family("x", "x", [Member(name="a", display="A", help="")] * 2)


def test_results_print_the_display_names():
    ratings = [[1, 1], [1, 2], [2, 2], [2, 2], [3, 3], [3, 1], [1, 1], [2, 3]]
    for name, r in COEFFICIENTS.items():
        res = qwkit.agreement_test(ratings, coefficient=name)
        assert res.summary().startswith(f"{r.display} (quadratic weights)")
    for form, r in ICC_FORMS.items():
        res = qwkit.icc(ratings, form=form)
        assert res.summary().startswith(f"{r.display} = Shrout-Fleiss {r.shrout_fleiss}: ")
        assert res.to_dict()["shrout_fleiss"] == r.shrout_fleiss


if __name__ == "__main__":
    print(coefficient_table(), weights_table(), icc_table(), sep="\n\n")
