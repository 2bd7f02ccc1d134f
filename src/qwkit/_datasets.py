"""Real ordinal rating data shipped with qwkit (for the demo, examples and tests)."""

from __future__ import annotations

import csv
import gzip
import io
from dataclasses import dataclass
from importlib import resources
from typing import Literal

import numpy as np

from qwkit._base._results import public_module
from qwkit._base._validation import check_choice

__all__ = ["Hanna", "WineQuality", "load_hanna", "load_wine_quality"]

_CITATION = (
    "P. Cortez, A. Cerdeira, F. Almeida, T. Matos and J. Reis, 'Modeling wine preferences "
    "by data mining from physicochemical properties', Decision Support Systems 47(4):547-553, "
    "2009. UCI Machine Learning Repository, CC BY 4.0."
)


@dataclass(frozen=True, slots=True, eq=False)
class WineQuality:
    """The wine quality data: features ``X``, integer quality ``y``, and their names."""

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    color: str
    citation: str = _CITATION


public_module(WineQuality)


def load_wine_quality(color: Literal["red", "white"] = "red") -> WineQuality:
    """Load the UCI wine quality data bundled with qwkit (CC BY 4.0).

    Parameters
    ----------
    color : {"red", "white"}, default="red"
        Which of the two data sets: red (1599 wines, quality 3–8) or white (4898
        wines, quality 3–9).

    Returns
    -------
    WineQuality
        ``X`` float64 array of shape (n, 11), ``y`` int64 array of shape (n,),
        ``feature_names``, ``color`` and ``citation``.

    References
    ----------
    .. [1] P. Cortez, A. Cerdeira, F. Almeida, T. Matos and J. Reis, "Modeling wine
       preferences by data mining from physicochemical properties", Decision Support
       Systems 47(4):547-553, 2009.

    Examples
    --------
    >>> import qwkit
    >>> wine = qwkit.load_wine_quality()
    >>> wine.X.shape, int(wine.y.min()), int(wine.y.max())
    ((1599, 11), 3, 8)
    """
    check_choice(color, "color", ("red", "white"))
    path = resources.files("qwkit") / "data" / f"winequality-{color}.csv"
    with path.open("r", encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
        table = np.loadtxt(fh, delimiter=",", dtype=np.float64)
    return WineQuality(
        X=np.ascontiguousarray(table[:, :-1]),
        y=table[:, -1].astype(np.int64),
        feature_names=tuple(header[:-1]),
        color=color,
    )


_HANNA_CITATION = (
    "C. Chhun, P. Colombo, F. M. Suchanek and C. Clavel, 'Of Human Criteria and Automatic "
    "Metrics: A Benchmark of the Evaluation of Story Generation', COLING 2022; C. Chhun, "
    "F. M. Suchanek and C. Clavel, 'Do Language Models Enjoy Their Own Stories? Prompting Large "
    "Language Models for Automatic Story Evaluation', Transactions of the ACL 12:1122-1142, 2024. "
    "Data from github.com/dig-team/hanna-benchmark-asg, MIT licence, Copyright (c) 2022 lashoun."
)
_HANNA_CRITERIA = {
    "RE": "relevance",
    "CH": "coherence",
    "EM": "empathy",
    "SU": "surprise",
    "EG": "engagement",
    "CX": "complexity",
}


@dataclass(frozen=True, slots=True, eq=False)
class Hanna:
    """The HANNA stories: three crowd ratings and two LLM judges on six criteria.

    Attributes
    ----------
    story_id : ndarray of shape (1056,)
        The story's id (0–1055).
    system : ndarray of shape (1056,)
        Which system wrote the story (10 generators, and ``"Human"``).
    criteria : dict of str to str
        The six criteria, code to name: RE relevance, CH coherence, EM empathy, SU
        surprise, EG engagement, CX complexity.
    human : dict of str to ndarray of shape (1056, 3)
        Per criterion, the three crowd ratings (integers 1–5). The columns are rating
        *slots*, not fixed persons: different workers rated different stories.
    chatgpt, mistral : dict of str to ndarray of shape (1056,)
        Per criterion, the LLM judge's rating: the mean of three answers, so real-valued
        (Mistral-7B's failed answers are NaN).
    bartscore, bertscore : ndarray of shape (1056,)
        Two automatic metrics of the story (BARTScore-SH, BERTScore F1).
    citation : str
        Where the data come from, and their licence.
    """

    story_id: np.ndarray
    system: np.ndarray
    criteria: dict
    human: dict
    chatgpt: dict
    mistral: dict
    bartscore: np.ndarray
    bertscore: np.ndarray
    citation: str = _HANNA_CITATION


public_module(Hanna)


def load_hanna() -> Hanna:
    """Load HANNA, the human-annotated story-evaluation benchmark bundled with qwkit (MIT).

    1,056 stories (96 writing prompts × 10 story generators and the human-written story),
    each rated 1–5 by three crowd workers on six criteria, with the ratings of two LLM
    judges (ChatGPT and Mistral-7B) of the same stories: the data to ask whether an LLM
    judge may stand in for a crowd rater (``docs/evaluation.md``).

    Returns
    -------
    Hanna
        ``story_id``, ``system``, ``criteria``, ``human`` (criterion → (1056, 3) int64),
        ``chatgpt`` and ``mistral`` (criterion → (1056,) float64), ``bartscore``,
        ``bertscore`` and ``citation``.

    References
    ----------
    .. [1] C. Chhun, P. Colombo, F. M. Suchanek and C. Clavel, "Of Human Criteria and
       Automatic Metrics: A Benchmark of the Evaluation of Story Generation", COLING 2022.
    .. [2] C. Chhun, F. M. Suchanek and C. Clavel, "Do Language Models Enjoy Their Own
       Stories? Prompting Large Language Models for Automatic Story Evaluation",
       Transactions of the Association for Computational Linguistics 12:1122-1142, 2024.

    Examples
    --------
    >>> import qwkit
    >>> hanna = qwkit.load_hanna()
    >>> hanna.human["CH"].shape, hanna.chatgpt["CH"].shape, sorted(hanna.criteria)[:3]
    ((1056, 3), (1056,), ['CH', 'CX', 'EG'])
    >>> round(qwkit.kappa_score(hanna.human["CH"][:, 0], hanna.human["CH"][:, 1]), 4)
    -0.0199
    """
    path = resources.files("qwkit") / "data" / "hanna_wide.csv"
    with path.open("rb") as raw, io.TextIOWrapper(raw, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    col = {name: j for j, name in enumerate(header)}

    def numbers(name: str) -> np.ndarray:
        j = col[name]
        return np.array([float(r[j]) if r[j] else np.nan for r in body])

    human = {
        c: np.column_stack([numbers(f"{c}_h{k}") for k in (1, 2, 3)]).astype(np.int64)
        for c in _HANNA_CRITERIA
    }
    return Hanna(
        story_id=numbers("story_id").astype(np.int64),
        system=np.array([r[col["system"]] for r in body]),
        criteria=dict(_HANNA_CRITERIA),
        human=human,
        chatgpt={c: numbers(f"{c}_chatgpt") for c in _HANNA_CRITERIA},
        mistral={c: numbers(f"{c}_mistral") for c in _HANNA_CRITERIA},
        bartscore=numbers("bartscore_sh"),
        bertscore=numbers("bertscore_f1"),
    )


@dataclass(frozen=True, slots=True, eq=False)
class HannaJudges:
    """HANNA's five LLM judges × four prompt formulations × six criteria × 1,056 stories,
    one row per judgement (126,720 rows; long format, in the file's order).

    Attributes
    ----------
    story_id : ndarray of shape (126720,)
        The story (0–1055); the same ids as :func:`load_hanna`'s, whose ``human`` holds the
        three crowd ratings of each story.
    system : ndarray of shape (126720,)
        Which system wrote the story (10 generators, and ``"Human"``).
    criterion : ndarray of shape (126720,)
        The criterion's code (RE, CH, EM, SU, EG, CX; ``criteria`` names them).
    judge : ndarray of shape (126720,)
        The LLM judge: Beluga-13B, OrcaPlatypus, Mistral-7B, Llama-13B or ChatGPT.
    prompt : ndarray of shape (126720,)
        Which of the four prompt formulations (1–4, as numbered in the source).
    score : ndarray of shape (126720,)
        The judge's score: the mean of its three answers to that prompt (real-valued on
        1–5); NaN where it failed to answer.
    criteria : dict of str to str
        The six criteria, code to name.
    citation : str
        Where the data come from, and their licence.
    """

    story_id: np.ndarray
    system: np.ndarray
    criterion: np.ndarray
    judge: np.ndarray
    prompt: np.ndarray
    score: np.ndarray
    criteria: dict
    citation: str = _HANNA_CITATION

    @property
    def judges(self) -> tuple[str, ...]:
        """The five judges, in the order of the file."""
        return tuple(dict.fromkeys(self.judge.tolist()))


public_module(HannaJudges)


def load_hanna_judges() -> HannaJudges:
    """Load HANNA's LLM judges, each asked with four prompt formulations (bundled, MIT).

    Five LLM judges (Beluga-13B, OrcaPlatypus, Mistral-7B, Llama-13B and ChatGPT) rated
    HANNA's 1,056 stories on its six criteria with four formulations of the prompt; each
    score is the mean of three answers. With :func:`load_hanna`'s crowd ratings of the
    same stories (joined on ``story_id``), the data to ask whether a judge is consistent
    across prompts, how much the prompt moves its agreement with humans, and how many
    independent judges a panel of five amounts to.

    Returns
    -------
    HannaJudges
        One row per judgement: ``story_id``, ``system``, ``criterion``, ``judge``,
        ``prompt`` (1–4) and ``score`` (float64, NaN for a failed answer), with
        ``criteria`` and ``citation``.

    References
    ----------
    .. [1] C. Chhun, F. M. Suchanek and C. Clavel, "Do Language Models Enjoy Their Own
       Stories? Prompting Large Language Models for Automatic Story Evaluation",
       Transactions of the Association for Computational Linguistics 12:1122-1142, 2024.

    Examples
    --------
    >>> import qwkit
    >>> judges = qwkit.load_hanna_judges()
    >>> judges.score.shape, judges.judges[:2], sorted(set(judges.prompt.tolist()))
    ((126720,), ('Beluga-13B', 'OrcaPlatypus'), [1, 2, 3, 4])
    >>> chatgpt = (judges.judge == "ChatGPT") & (judges.criterion == "RE") & (judges.prompt == 1)
    >>> int(chatgpt.sum()), judges.story_id[chatgpt][:3].tolist()
    (1056, [0, 1, 2])
    """
    path = resources.files("qwkit") / "data" / "hanna_judges_long.csv.gz"
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8", newline="") as fh:
        header, *body = csv.reader(io.StringIO(fh.read()))
    columns = dict(zip(header, (np.array(c) for c in zip(*body, strict=True)), strict=True))
    score = columns["score"]
    score[score == ""] = "nan"  # a failed answer
    return HannaJudges(
        story_id=columns["story_id"].astype(np.int64),
        system=columns["system"],
        criterion=columns["criterion"],
        judge=columns["judge"],
        prompt=columns["prompt"].astype(np.int64),
        score=score.astype(np.float64),
        criteria=dict(_HANNA_CRITERIA),
    )
