"""Families of named things, one record per member: the one place that knows them.

A family that grows — agreement coefficients, evaluation criteria, named weights, ICC
forms, judge statistics — is a :class:`Family` of records (a frozen dataclass deriving
from :class:`Member`: the name the API takes, the name results and reports print, one
line of help, what the member needs, other spellings a command line accepts, and the
member's own fields). The API validates a choice with :meth:`Family.check`, the command
line builds its choices and help from the records, the Polars namespace and the docs
tables read the same records: adding a member is its computation, one record and its
tests (CONTRIBUTING.md, "Adding a member to a family").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from qwkit._base._errors import QwkitError, QwkitTypeError

__all__ = ["Family", "Member"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Member:
    """One member of a family.

    ``name`` is the API's word (lower case, as a ``Literal`` lists it); ``display`` how
    results, tables and reports name it; ``help`` one line on what it is; ``needs`` what
    it needs, in words ("" for nothing special); ``aliases`` other spellings accepted
    where a name is parsed (the command line: ``icc-A1`` for ``"A,1"``).
    """

    name: str
    display: str
    help: str
    needs: str = ""
    aliases: tuple[str, ...] = ()


M = TypeVar("M", bound=Member)
T = TypeVar("T")


class Family(Mapping[str, M], Generic[M]):
    """The members of a family by name, in their order.

    ``parameter`` is the parameter that takes a member's name (for messages); ``what``
    how a message names a member ("coefficient", "criterion").
    """

    def __init__(self, what: str, parameter: str, members: Sequence[M]):
        self.what = what
        self.parameter = parameter
        self._members = {m.name: m for m in members}
        if len(self._members) != len(members):
            raise ValueError(f"two members of the {what} family share a name")
        self._spellings: dict[str, str] = {}
        for m in members:
            for spelling in (m.name, *m.aliases):
                key = _key(spelling)
                if self._spellings.setdefault(key, m.name) != m.name:
                    raise ValueError(f"{spelling!r} names two members of the {what} family")

    def __getitem__(self, name: str) -> M:
        return self._members[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def __repr__(self) -> str:
        return f"Family({self.what!r}, {list(self._members)})"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._members)

    def where(self, test: Callable[[M], bool]) -> tuple[str, ...]:
        """The names of the members for which ``test(record)`` holds, in order."""
        return tuple(n for n, m in self._members.items() if test(m))

    def bind(
        self, table: Mapping[str, T], *, where: Callable[[M], bool] | None = None
    ) -> dict[str, T]:
        """``table`` — one thing per member (its computation) — checked to hold every
        member (``where`` the record says so) and nothing else, in the family's order: a
        feature binds its members so, at import, and a record without its computation
        fails at once."""
        names = self.names if where is None else self.where(where)
        missing = [n for n in names if n not in table]
        extra = [n for n in table if n not in names]
        if missing or extra:
            raise ValueError(
                f"the {self.what} family and its computations disagree: no computation for "
                f"{missing}, no record for {extra}"
            )
        return {n: table[n] for n in names}

    def choices_text(self, names: Sequence[str] | None = None) -> str:
        """The names (or ``names``, some of them) as a message lists them: 'a', 'b' or
        'c'."""
        quoted = [repr(n) for n in (self._members if names is None else names)]
        return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]

    def check(self, value, *, parameter: str | None = None, aliases: bool = False) -> str:
        """The member's name for ``value`` (exactly a name; with ``aliases`` also any
        spelling of a record, case- and separator-insensitively), or a clear error."""
        name = parameter or self.parameter
        if not isinstance(value, str):
            raise QwkitTypeError(
                f"`{name}` must be a string, one of {self.choices_text()}; got {value!r}.",
                parameter=name,
            )
        if value in self._members:
            return value
        if aliases and _key(value) in self._spellings:
            return self._spellings[_key(value)]
        raise QwkitError(f"`{name}` must be {self.choices_text()}; got {value!r}.", parameter=name)

    def check_many(self, values, *, parameter: str | None = None) -> tuple[str, ...]:
        """Several names (a string or a sequence of strings), each checked, in the
        family's order, without repeats."""
        name = parameter or self.parameter
        if isinstance(values, str):
            values = (values,)
        try:
            chosen = {self.check(v, parameter=name) for v in values}
        except TypeError as exc:
            if isinstance(exc, QwkitTypeError):
                raise
            raise QwkitTypeError(
                f"`{name}` must be a sequence of names from {self.choices_text()}; got {values!r}.",
                parameter=name,
            ) from None
        return tuple(n for n in self._members if n in chosen)


def _key(spelling: str) -> str:
    return "".join(ch for ch in spelling.lower() if ch.isalnum())
