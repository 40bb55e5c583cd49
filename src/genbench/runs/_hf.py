"""``hf:PATH_OR_ID``: a transformers causal language model, run locally.

Generation is greedy, batched with left padding, and stops at the task's ``stop_string`` or ``max_new_tokens``.
Log-likelihoods follow lm-evaluation-harness: the context's trailing whitespace moves to the continuation, whose
tokens are those of ``tokenize(context + continuation)`` after the context's, scored in one forward pass (right
padding, longest first). Model arguments and device: docs/running_models.md#a-local-hugging-face-model.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from genbench.runs._errors import ModelRunError, ModelSpecError
from genbench.runs._hf_hub import hub_load_mode, hub_offline
from genbench.runs.model_runner import ModelRunner, directory_revision
from genbench.runs.specs import ModelSpec, check_known_args, int_arg

logger = logging.getLogger(__name__)

KNOWN_ARGS = ("dtype", "device", "batch_size", "revision", "max_length")
_DTYPES = ("auto", "float32", "float16", "bfloat16")
ENCODING_VERSION = 2
"""How requests become token ids, part of the request cache's key (:meth:`HFCausalLMRunner.cache_identity`): 2 since
a text that starts with the BOS text gets no second BOS."""


def default_device() -> str:
    """``"cuda"`` when PyTorch sees a GPU, else ``"cpu"``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _stop_criterion(tokenizer: Any, prompt_length: int, stop: str) -> Any:
    """A stopping criterion: true for each row whose generated text (decoded) contains ``stop``.

    Written here because transformers' ``stop_strings`` rebuilds token strings from the vocabulary and fails on
    tokenizers whose pieces are not prefixes of the decoded text (word-level tokenizers, some SentencePiece ones);
    decoding what was generated works for every tokenizer. Each step decodes only the rows still running, and of
    them the last ``len(stop) + 2`` generated tokens (a stop string of n characters ends within the last n tokens
    that decode to text): the cost of a step does not grow with the length of the generation. A stop string missed
    here (spread over tokens that decode to nothing) only costs time: the output is cut at it all the same.
    """
    import torch
    from transformers import StoppingCriteria

    window = len(stop) + 2

    class StopOnString(StoppingCriteria):
        done: Any = None

        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            if self.done is None:
                self.done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
            running = (~self.done).nonzero().flatten().tolist()
            if running:
                start = max(prompt_length, input_ids.shape[1] - window)
                texts = tokenizer.batch_decode(input_ids[running, start:], skip_special_tokens=True)
                stopped = [row for row, text in zip(running, texts, strict=True) if stop in text]
                if stopped:
                    self.done[stopped] = True
            return self.done.clone()

    return StopOnString()


def looks_like_path(target: str) -> bool:
    """Whether an ``hf:`` target can only be a directory, never a hub id (``name`` or ``org/name``).

    >>> [looks_like_path(t) for t in ("gpt2", "org/name", "/models/gpt2", "./gpt2", "~/m", "a/b/c", "m/")]
    [False, False, True, True, True, True, True]
    """
    return (
        target.startswith(("/", ".", "~"))
        or target.endswith(("/", os.sep))
        or target.count("/") > 1
        or (os.sep != "/" and os.sep in target)
    )


def check_local_path(target: str, kind: str = "hf") -> None:
    """Refuse a path-like target of a ``kind:`` spec (``hf``, ``cross-encoder``, ``sentence-transformers``) whose
    directory is missing, naming the fix (before transformers reads it as a hub id and says "Repo id must be in the
    form ..."), and a directory without a ``config.json`` (transformers would ask for sentencepiece, or for a
    ``model_type``)."""
    path = Path(target).expanduser()
    example = "hf:gpt2 or hf:ORG/NAME" if kind == "hf" else f"{kind}:ORG/NAME"
    if path.is_dir():
        if not (path / "config.json").is_file():
            tiny = "; genbench-cli models make-tiny DIR writes a tiny one" if kind == "hf" else ""
            raise ModelSpecError(
                f"{kind}:{target}: {path} holds no config.json, so it is not a model directory. Give the directory "
                f"that holds the model's config.json, tokenizer files and weights (as written by "
                f"save_pretrained{tiny})."
            )
        return
    if looks_like_path(target) or path.exists():
        what = "not a directory" if path.exists() else "no such directory"
        raise ModelSpecError(
            f"{kind}:{target}: {what}: {path}. Give the directory that holds the model's config.json and weights "
            f"(as written by save_pretrained), or a Hugging Face Hub id such as {example}, which is "
            "downloaded when online (HF_HUB_OFFLINE unset) or read from the Hub cache."
        )


def _hub_says_not_found(exc: BaseException) -> bool:
    """Whether a loading error says the hub has no such repository (transformers wraps huggingface_hub's
    ``RepositoryNotFoundError`` in an ``OSError`` that names it "not a valid model identifier")."""
    from huggingface_hub.errors import RepositoryNotFoundError

    chain: BaseException | None = exc
    seen: set[int] = set()
    while chain is not None and id(chain) not in seen:
        if isinstance(chain, RepositoryNotFoundError) or "not a valid model identifier" in str(chain):
            return True
        seen.add(id(chain))
        chain = chain.__cause__ or chain.__context__
    return False


def could_be_either(target: str) -> bool:
    """Whether an ``hf:`` target reads both as a relative directory and as a hub id (``org/name``), and no such
    directory exists.

    >>> [could_be_either(t) for t in ("models/no-such-gpt2", "gpt2", "./models/gpt2", "a/b/c")]
    [True, False, False, False]
    """
    return target.count("/") == 1 and not looks_like_path(target) and not Path(target).expanduser().exists()


def both_readings_error(target: str, hub_problem: str) -> ModelSpecError:
    """The error for an ``org/name``-shaped target that is neither a local directory nor a loadable hub model: it
    names both readings, and the fix for each."""
    here = Path.cwd()
    return ModelSpecError(
        f"hf:{target} is neither a local directory nor a Hugging Face Hub model. As a directory: there is no "
        f"directory {target} relative to the working directory {here}; give its full path (hf:/path/to/{target}) "
        f"or run from the folder that holds it (hf:./{target}). As a hub id: {hub_problem}."
    )


def check_cached_hub_id(target: str, revision: str | None) -> None:
    """With the hub offline, refuse an ``org/name``-shaped target that is neither a directory nor in the Hub cache,
    naming both readings (before transformers says only that it is no local folder nor a cached model)."""
    if not could_be_either(target) or not hub_offline():
        return
    from huggingface_hub import try_to_load_from_cache

    try:
        cached = try_to_load_from_cache(target, "config.json", revision=revision)
    except ValueError:  # not a valid hub id (HFValidationError): transformers' own message says why
        return
    if not isinstance(cached, str):
        raise both_readings_error(
            target,
            f"there is no cached hub model {target} and the hub is offline (HF_HUB_OFFLINE=1); unset "
            f"HF_HUB_OFFLINE (and TRANSFORMERS_OFFLINE) once so it is downloaded, or run "
            f"`hf download {target}` where the hub can be reached",
        )


class HFCausalLMRunner(ModelRunner):
    """A transformers ``AutoModelForCausalLM`` with its tokenizer."""

    def __init__(self, spec: ModelSpec):
        super().__init__(spec)
        check_known_args(spec, KNOWN_ARGS)
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        dtype_name = spec.args.get("dtype", "auto")
        if dtype_name not in _DTYPES:
            raise ModelSpecError(f"--model-args dtype={dtype_name!r}: expected one of {', '.join(_DTYPES)}.")
        self.batch_size = int_arg(spec, "batch_size", 8)
        self.chunk_size = 4 * self.batch_size
        self.device = spec.args.get("device") or default_device()
        hub_revision = spec.args.get("revision")
        dtype: Any = "auto" if dtype_name == "auto" else getattr(torch, dtype_name)
        check_local_path(spec.target)
        check_cached_hub_id(spec.target, hub_revision)
        local_only = hub_load_mode(spec.target, hub_revision)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(
                spec.target, revision=hub_revision, local_files_only=local_only
            )
            self.model = AutoModelForCausalLM.from_pretrained(
                spec.target, revision=hub_revision, dtype=dtype, local_files_only=local_only
            )
        except (OSError, ValueError) as exc:  # huggingface_hub's HFValidationError is a ValueError
            if could_be_either(spec.target) and _hub_says_not_found(exc):
                raise both_readings_error(
                    spec.target,
                    f"the hub has no model {spec.target} that can be read ({exc}); check the id (and for a gated or "
                    "private model, log in with `hf auth login`)",
                ) from exc
            raise ModelRunError(f"hf:{spec.target}: cannot load the model or its tokenizer: {exc}") from exc
        self.model.to(self.device)  # type: ignore[arg-type]  # a device string is accepted
        self.model.eval()
        if self.tokenizer.pad_token_id is None:
            if self.tokenizer.eos_token_id is None:
                raise ModelRunError(f"hf:{spec.target}: the tokenizer has neither a pad nor an eos token to pad with.")
            self.tokenizer.pad_token = self.tokenizer.eos_token
        context = getattr(self.model.config, "max_position_embeddings", None) or getattr(
            self.model.config, "n_positions", 2048
        )
        self.max_length = int_arg(spec, "max_length", int(context or 2048))
        self.revision = (
            hub_revision or directory_revision(spec.target) or getattr(self.model.config, "_commit_hash", None)
        )
        logger.info("hf:%s on %s (%s)", spec.target, self.device, self.model.dtype)

    def output_args(self) -> dict[str, str]:
        return {"dtype": str(self.model.dtype), "max_length": str(self.max_length)}

    def cache_identity(self) -> dict[str, Any]:
        # How requests become tokens is part of what decides an answer: answers cached under an older encoding
        # (version 1 gave a prompt that starts with the BOS text a second BOS) are not reused.
        return {**super().cache_identity(), "encoding": ENCODING_VERSION}

    def _own_templates(self) -> str | dict[str, str] | None:
        """The tokenizer's chat template, or its named templates (a dict), or None."""
        own = getattr(self.tokenizer, "chat_template", None)
        return own if isinstance(own, (str, dict)) and own else None

    def unused_chat_template(self) -> bool:
        return self._own_templates() is not None

    def chat_template_text(self, template: str) -> str | None:
        path = Path(template).expanduser()
        if path.is_file():
            return path.read_text(encoding="utf-8")
        own = self._own_templates()
        where = f"hf:{self.spec.target}"
        if own is None:
            if template == "default":
                raise ModelSpecError(
                    f"--apply-chat-template: the tokenizer of {where} has no chat template; give a Jinja template "
                    "file (--apply-chat-template PATH)."
                )
            raise ModelSpecError(
                f"--apply-chat-template {template}: no such file, and the tokenizer of {where} has no chat template "
                "to name; give a Jinja template file."
            )
        if isinstance(own, str):
            if template == "default":
                return own
            raise ModelSpecError(
                f"--apply-chat-template {template}: no such file, and the tokenizer of {where} has one chat template, "
                "not named ones; give --apply-chat-template alone (its template) or a Jinja template file."
            )
        if template in own:
            return own[template]
        raise ModelSpecError(
            f"--apply-chat-template {template}: the tokenizer of {where} has the chat templates "
            f"{', '.join(sorted(own))}{'' if template == 'default' else ' and no file of that name'}; name one."
        )

    def chat_request(self, messages: list[dict[str, str]], template_text: str | None) -> str:
        # rendered as text, then encoded as any prompt (a text that starts with the BOS text gets no second BOS):
        # lm-evaluation-harness's HFLM.apply_chat_template, retried without the system message where the template
        # refuses one
        from jinja2.exceptions import TemplateError

        options: dict[str, Any] = {"tokenize": False, "add_generation_prompt": True, "chat_template": template_text}
        try:
            text = self.tokenizer.apply_chat_template(messages, **options)
        except TemplateError:
            if not any(m["role"] == "system" for m in messages):
                raise
            logger.warning("hf:%s: the chat template refuses a system message: asked without it", self.spec.target)
            text = self.tokenizer.apply_chat_template([m for m in messages if m["role"] != "system"], **options)
        return str(text)

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, stop: str | None) -> list[str]:
        import torch

        tokenizer = self.tokenizer
        tokenizer.truncation_side = "left"
        outputs = [""] * len(prompts)
        if not prompts:
            return outputs
        # every prompt tokenised once, in one call; batches of like token lengths (longest first), padded on the left
        ids = self._encode(
            prompts, tokenizer.bos_token, truncation=True, max_length=max(1, self.max_length - max_new_tokens)
        )
        order = sorted(range(len(prompts)), key=lambda i: -len(ids[i]))
        pad = tokenizer.pad_token_id
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            width = max(len(ids[i]) for i in rows)
            input_ids = torch.tensor([[pad] * (width - len(ids[i])) + list(ids[i]) for i in rows], device=self.device)
            mask = torch.tensor([[0] * (width - len(ids[i])) + [1] * len(ids[i]) for i in rows], device=self.device)
            options: dict[str, Any] = {}
            if stop:
                options["stopping_criteria"] = [_stop_criterion(tokenizer, width, stop)]
            with torch.inference_mode():
                generated = self.model.generate(  # type: ignore[misc]
                    input_ids=input_ids,
                    attention_mask=mask,
                    max_new_tokens=max_new_tokens,
                    do_sample=False,
                    pad_token_id=pad,
                    **options,
                )
            new_tokens = generated[:, width:]
            for row, text in zip(rows, tokenizer.batch_decode(new_tokens, skip_special_tokens=True), strict=True):
                outputs[row] = text.split(stop, 1)[0] if stop else text
        return outputs

    def _encode(self, texts: Sequence[str], bos_text: str | None, **options: Any) -> list[list[int]]:
        """Token ids of each text, in one call of the tokenizer per kind of text (a fast tokenizer encodes a batch
        in Rust).

        A text that already starts with ``bos_text`` is encoded without the tokenizer's special tokens, so that it
        does not get a second BOS (lm-evaluation-harness's rule: a prompt rendered from a chat template as text
        often starts with it).
        """
        ids: list[list[int]] = [[] for _ in texts]
        prefix = bos_text or None
        starts_with_bos = [prefix is not None and text.startswith(prefix) for text in texts]
        for has_bos in (False, True):
            rows = [i for i, flag in enumerate(starts_with_bos) if flag == has_bos]
            if rows:
                special = {"add_special_tokens": False} if has_bos else {}
                encoded = self.tokenizer([texts[i] for i in rows], **special, **options)["input_ids"]
                for i, row_ids in zip(rows, encoded, strict=True):
                    ids[i] = list(row_ids)
        return ids

    def _encode_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[list[int], list[int]]]:
        """``(context ids, continuation ids)`` of each pair, as lm-evaluation-harness splits them.

        Trailing whitespace of the context moves to the continuation; the continuation's ids are those of
        ``tokenize(context + continuation)`` after the context's. Each distinct context is tokenised once (the
        options of a question share theirs), every text of the batch in one call.
        """
        contexts, wholes = [], []
        for context, continuation in pairs:
            spaces = len(context) - len(context.rstrip())
            if spaces:
                context, continuation = context[:-spaces], context[-spaces:] + continuation
            contexts.append(context)
            wholes.append(context + continuation)
        distinct = list(dict.fromkeys(contexts))
        first = self.tokenizer.bos_token_id if self.tokenizer.bos_token_id is not None else self.tokenizer.eos_token_id
        # lm-evaluation-harness compares a request with the text of this first token (BOS, else EOS)
        first_text = str(self.tokenizer.decode([first])) if first is not None else None
        context_ids = dict(zip(distinct, self._encode(distinct, first_text), strict=True))
        encoded = []
        for context, whole in zip(contexts, self._encode(wholes, first_text), strict=True):
            ids = context_ids[context]
            # a language model needs a first token to condition on
            encoded.append((list(ids) if ids else [first], list(whole[len(ids) :])))
        return encoded

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The log-likelihood of each continuation given its context.

        One model row per distinct input (context and continuation but its last token, cut on the left to
        ``max_length``): the one-token options of a question share their context's row, as lm-evaluation-harness's
        ``logits_cache`` does. Rows are batched longest first, padded on the right (which a causal model never
        attends to, so no attention mask is needed), and where the model supports ``logits_to_keep`` only the
        positions that score a continuation go through the output layer.
        """
        import torch

        encoded = self._encode_pairs(pairs)
        scores = [0.0] * len(pairs)
        rows: dict[tuple[int, ...], list[tuple[int, int]]] = {}  # input -> (pair, scored positions)
        for i, (context_ids, continuation_ids) in enumerate(encoded):
            if not continuation_ids:
                continue
            tokens = (context_ids + continuation_ids)[-(self.max_length + 1) :]
            rows.setdefault(tuple(tokens[:-1]), []).append((i, min(len(continuation_ids), len(tokens) - 1)))
        order = sorted(rows, key=len, reverse=True)
        pad = self.tokenizer.pad_token_id
        keep_supported = self._supports_logits_to_keep()
        for start in range(0, len(order), self.batch_size):
            inputs = order[start : start + self.batch_size]
            width = len(inputs[0])
            batch = torch.tensor([list(t) + [pad] * (width - len(t)) for t in inputs], device=self.device)
            options: dict[str, Any] = {}
            column = list(range(width))  # position -> column of the logits
            if keep_supported:
                # the last positions of the batch, from the first one that scores a token: an int, which every
                # model's forward takes (some take only that); rows of like lengths make it a few positions
                first_scored = min(len(t) - span for t in inputs for _, span in rows[t])
                options["logits_to_keep"] = width - first_scored
                column = [p - first_scored for p in range(width)]
            picked_rows, picked_columns, targets, owners = [], [], [], []
            for row, t in enumerate(inputs):
                for i, span in rows[t]:
                    first = column[len(t) - span]
                    for k, target in enumerate(encoded[i][1][-span:]):
                        picked_rows.append(row)
                        picked_columns.append(first + k)
                        targets.append(target)
                        owners.append(i)
            with torch.inference_mode():
                # an all-ones mask: the padding is on the right, where no earlier position looks
                logits = self.model(input_ids=batch, attention_mask=torch.ones_like(batch), **options).logits
                log_probs = torch.log_softmax(logits.float(), dim=-1)
                picked = log_probs[picked_rows, picked_columns, targets]
                owner_ids = sorted(set(owners))
                where = {i: n for n, i in enumerate(owner_ids)}
                sums = torch.zeros(len(owner_ids), dtype=picked.dtype, device=picked.device)
                sums.index_add_(0, torch.tensor([where[i] for i in owners], device=picked.device), picked)
            for i, value in zip(owner_ids, sums.tolist(), strict=True):
                scores[i] = value
        return scores

    def _supports_logits_to_keep(self) -> bool:
        """Whether the model's forward takes ``logits_to_keep`` (transformers >= 4.50): the last positions to keep."""
        import inspect

        try:
            return "logits_to_keep" in inspect.signature(self.model.forward).parameters
        except (TypeError, ValueError):
            return False
