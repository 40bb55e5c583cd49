"""Model specs: ``KIND:TARGET`` strings naming a model runner (:data:`genbench.runs.MODEL_RUNNERS`, extensible through
the ``genbench.model_runners`` entry points), and their ``--model-args``. See docs/running_models.md and
docs/plugins.md#the-groups.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from genbench._core.errors import UnknownPluginError
from genbench.runs import MODEL_RUNNERS
from genbench.runs._errors import ModelSpecError


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec.

    Attributes:
        kind: A name of :data:`genbench.runs.MODEL_RUNNERS` (``hf``, ``openai``, ...).
        target: What follows ``kind:`` (a path, model id, URL or ``module:function``).
        args: The ``--model-args`` as strings (each runner converts and checks the ones it knows).
    """

    kind: str
    target: str
    args: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The spec as written: ``kind:target``."""
        return f"{self.kind}:{self.target}"


def parse_model_args(text: str | None) -> dict[str, str]:
    """``"a=1,b=x"`` -> ``{"a": "1", "b": "x"}``.

    >>> parse_model_args("model=llama, max_new_tokens=32")
    {'model': 'llama', 'max_new_tokens': '32'}

    Raises:
        ModelSpecError: an item without ``=`` or a key given twice.
    """
    args: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ModelSpecError(f"--model-args item {item.strip()!r} is not KEY=VALUE (e.g. dtype=float16).")
        if key in args:
            raise ModelSpecError(f"--model-args gives {key!r} twice.")
        args[key] = value.strip()
    return args


def parse_model_spec(spec: str, model_args: str | dict[str, str] | None = None) -> ModelSpec:
    """Parse ``KIND:TARGET`` and the model arguments.

    Raises:
        ModelSpecError: not ``KIND:TARGET``, an unknown kind (the message lists the kinds and the close matches) or
            an empty target.

    >>> spec = parse_model_spec("hf:gpt2", "dtype=float32,batch_size=4")
    >>> spec.kind, spec.target, spec.args
    ('hf', 'gpt2', {'dtype': 'float32', 'batch_size': '4'})
    """
    kind, sep, target = spec.partition(":")
    if not sep or not target.strip():
        raise ModelSpecError(
            f"Model spec {spec!r} is not KIND:TARGET with KIND one of {', '.join(MODEL_RUNNERS.names())} "
            "(e.g. hf:gpt2, openai:http://localhost:8000/v1, python:my_module:predict)."
        )
    try:  # the kinds are the runners' names; no runner is imported here
        MODEL_RUNNERS.target(kind)
    except UnknownPluginError as error:
        raise ModelSpecError(f"Model spec {spec!r}: {str(error)[0].lower()}{str(error)[1:]}") from None
    args = dict(model_args) if isinstance(model_args, dict) else parse_model_args(model_args)
    return ModelSpec(kind, target.strip(), {str(k): str(v) for k, v in args.items()})


def int_arg(spec: ModelSpec, name: str, default: int, *, minimum: int = 1) -> int:
    """An integer model argument, checked (``batch_size=8``)."""
    value = spec.args.get(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        number = minimum - 1
    if number < minimum:
        raise ModelSpecError(f"--model-args {name}={value!r}: expected an integer >= {minimum}.")
    return number


def float_arg(spec: ModelSpec, name: str, default: float) -> float:
    """A positive number model argument (``timeout=30``)."""
    value = spec.args.get(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not number > 0:
        raise ModelSpecError(f"--model-args {name}={value!r}: expected a positive number.")
    return number


def check_known_args(spec: ModelSpec, known: tuple[str, ...]) -> None:
    """Refuse model arguments a runner does not know (a typo would otherwise be ignored silently)."""
    unknown = sorted(set(spec.args) - set(known))
    if unknown:
        raise ModelSpecError(
            f"--model-args {', '.join(unknown)} not understood by {spec.kind}: models; known: {', '.join(known)}."
        )
