"""The error raised by the contamination tools."""

from __future__ import annotations

from genbench._core.errors import GenBenchError


class ContaminationError(GenBenchError, ValueError):
    """Training or test data cannot be indexed or searched, or an index is missing or unusable.

    The message says what is wrong and how to fix it (the field that is missing and the fields that exist,
    the values a role filter could match, the index names that do exist, ...).
    """


class DamagedIndexError(ContaminationError):
    """An index's file is missing, cut short or changed since the index was built (its manifest says so).

    The message names the file and the command that rebuilds the index.
    """


class ContaminationWarning(UserWarning):
    """A check ran but cannot say what its score seems to say, e.g. test instances too short for its n-gram size
    (scored 0 whatever the training data). The message names the check and the fix."""
