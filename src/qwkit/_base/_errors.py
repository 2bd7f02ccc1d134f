"""The exceptions qwkit raises for bad input: one class, with structured attributes.

Every message names the parameter in backticks, says what is allowed and shows what was
received. Besides the text, an error carries *which*
parameter is wrong and, where there is one, the 0-based position of the offending item,
so that a caller — the command line, a web service — can say the same thing in its own
words (a column name, a file row) without parsing the message.
"""

from __future__ import annotations

__all__ = ["QwkitError", "QwkitTypeError", "at_index"]


def at_index(row: int) -> str:
    """How a message says where an item is: ``"index 7"`` (see :meth:`QwkitError.reworded`)."""
    return f"index {row}"


class QwkitError(ValueError):
    """A value passed to qwkit is not acceptable.

    A subclass of :class:`ValueError`, so ``except ValueError`` catches it.

    Attributes
    ----------
    parameter : str or None
        The parameter the error is about (e.g. ``"y1"``, ``"sample_weight"``), as named
        in the signature of the public function that was called; None when the error is
        about no single parameter.
    row : int or None
        The 0-based position of the offending item in that parameter (the first one,
        when several are bad); None when the error is not about one item.
    parameters : tuple of str
        Every parameter the message names (``parameter`` first), e.g. both vectors of a
        length mismatch.

    Examples
    --------
    >>> import qwkit
    >>> try:
    ...     qwkit.kappa_score([1, 2, 3], [1, 2, 9], labels=[1, 2, 3])
    ... except qwkit.QwkitError as exc:
    ...     print(exc.parameter, exc.row)
    ...     print(exc)
    y2 2
    `y2` contains 9, which is not in `labels` [1, 2, 3] (index 2).
    """

    __module__ = "qwkit"  # public as qwkit.<name> (as public_module does)

    def __init__(
        self,
        message: str,
        *,
        parameter: str | None = None,
        row: int | None = None,
        also: tuple[str, ...] = (),
    ):
        super().__init__(message)
        self.parameter = parameter
        self.row = None if row is None else int(row)
        named = () if parameter is None else (parameter,)
        self.parameters = named + tuple(p for p in also if p != parameter)

    def __reduce__(self):
        return _rebuild, (
            type(self),
            str(self),
            self.parameter,
            self.row,
            self.parameters[1:] if self.parameter is not None else self.parameters,
        )

    def reworded(self, names: dict[str, str], row_text=None) -> str:
        """The message with the parameters it names, and the item position, said
        differently.

        Parameters
        ----------
        names : dict of str to str
            Replacement text for each parameter name (e.g. ``{"y1": "column 'truth'"}``);
            a parameter named in the message as ```y1``` becomes that text. Names that
            are not in the mapping stay as they are.
        row_text : callable, optional
            ``row_text(row) -> str`` replaces the message's ``"index {row}"`` (e.g.
            ``lambda i: f"data row {i + 1}"``).

        Returns
        -------
        str
        """
        text = str(self)
        for name in (*self.parameters, "labels"):
            if name in names:
                text = text.replace(f"`{name}`", names[name])
        if row_text is not None and self.row is not None:
            text = text.replace(at_index(self.row), row_text(self.row))
        return text


class QwkitTypeError(QwkitError, TypeError):
    """A value passed to qwkit has the wrong type (both a :class:`TypeError` and a
    :class:`QwkitError`, with the same attributes)."""

    __module__ = "qwkit"  # public as qwkit.<name> (as public_module does)


def _rebuild(cls, message, parameter, row, also):
    return cls(message, parameter=parameter, row=row, also=also)
