"""``hf:PATH_OR_ID``: a transformers causal language model, run locally.

- Generation is greedy, batched with left padding, stopped once every row of the batch has produced the task's
  ``stop_string`` (and cut there) or after ``max_new_tokens``.
- Log-likelihoods follow lm-evaluation-harness: trailing whitespace of the context moves to the continuation,
  the continuation's tokens are those of ``tokenize(context + continuation)`` after the context's, and the model
  scores them in one forward pass, batched with right padding, longest first.
- The device is ``cuda`` when PyTorch sees a GPU, else ``cpu`` (``--model-args device=...`` overrides).

Model arguments: ``dtype`` (``auto``, ``float32``, ``float16``, ``bfloat16``; default ``auto``), ``device``,
``batch_size`` (default 8), ``revision`` (a hub revision), ``max_length`` (default: the model's context size).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from genbench.runs.errors import ModelRunError, ModelSpecError
from genbench.runs.model_runner import ModelRunner, directory_revision
from genbench.runs.specs import ModelSpec, check_known_args, int_arg

logger = logging.getLogger(__name__)

KNOWN_ARGS = ("dtype", "device", "batch_size", "revision", "max_length")
_DTYPES = ("auto", "float32", "float16", "bfloat16")


def default_device() -> str:
    """``"cuda"`` when PyTorch sees a GPU, else ``"cpu"``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _stop_criterion(tokenizer: Any, prompt_length: int, stop: str) -> Any:
    """A stopping criterion: true for each row whose generated text (decoded) contains ``stop``.

    Written here because transformers' ``stop_strings`` rebuilds token strings from the vocabulary and fails on
    tokenizers whose pieces are not prefixes of the decoded text (word-level tokenizers, some SentencePiece ones);
    decoding what was generated works for every tokenizer.
    """
    import torch
    from transformers import StoppingCriteria

    class StopOnString(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            texts = tokenizer.batch_decode(input_ids[:, prompt_length:], skip_special_tokens=True)
            return torch.tensor([stop in text for text in texts], device=input_ids.device)

    return StopOnString()


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
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(spec.target, revision=hub_revision)
            self.model = AutoModelForCausalLM.from_pretrained(spec.target, revision=hub_revision, dtype=dtype)
        except OSError as exc:
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

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, stop: str | None) -> list[str]:
        import torch

        tokenizer = self.tokenizer
        tokenizer.padding_side, tokenizer.truncation_side = "left", "left"
        outputs = [""] * len(prompts)
        order = sorted(range(len(prompts)), key=lambda i: -len(prompts[i]))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            encoded = tokenizer(
                [prompts[i] for i in rows],
                return_tensors="pt",
                padding=True,
                truncation=True,
                max_length=max(1, self.max_length - max_new_tokens),
            ).to(self.device)
            options: dict[str, Any] = {}
            if stop:
                options["stopping_criteria"] = [_stop_criterion(tokenizer, encoded["input_ids"].shape[1], stop)]
            with torch.inference_mode():
                generated = self.model.generate(  # type: ignore[misc]
                    **encoded,
                    max_new_tokens=max_new_tokens,
                    do_sample=False,
                    pad_token_id=tokenizer.pad_token_id,
                    **options,
                )
            new_tokens = generated[:, encoded["input_ids"].shape[1] :]
            for row, text in zip(rows, tokenizer.batch_decode(new_tokens, skip_special_tokens=True), strict=True):
                outputs[row] = text.split(stop, 1)[0] if stop else text
        return outputs

    def _pair_tokens(self, context: str, continuation: str) -> tuple[list[int], list[int]]:
        spaces = len(context) - len(context.rstrip())
        if spaces:
            context, continuation = context[:-spaces], context[-spaces:] + continuation
        whole = self.tokenizer(context + continuation)["input_ids"]
        context_ids = self.tokenizer(context)["input_ids"]
        continuation_ids = whole[len(context_ids) :]
        if not context_ids:  # a language model needs a first token to condition on
            first = (
                self.tokenizer.bos_token_id if self.tokenizer.bos_token_id is not None else self.tokenizer.eos_token_id
            )
            context_ids = [first]
        return context_ids, continuation_ids

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        import torch

        encoded = [self._pair_tokens(context, continuation) for context, continuation in pairs]
        scores = [0.0] * len(pairs)
        order = sorted(range(len(pairs)), key=lambda i: -(len(encoded[i][0]) + len(encoded[i][1])))
        pad = self.tokenizer.pad_token_id
        for start in range(0, len(order), self.batch_size):
            rows = [i for i in order[start : start + self.batch_size] if encoded[i][1]]
            if not rows:
                continue
            inputs, spans = [], []
            for i in rows:
                context_ids, continuation_ids = encoded[i]
                tokens = (context_ids + continuation_ids)[-(self.max_length + 1) :]
                inputs.append(tokens[:-1])
                spans.append(len(continuation_ids))
            width = max(len(tokens) for tokens in inputs)
            batch = torch.tensor([t + [pad] * (width - len(t)) for t in inputs], device=self.device)
            mask = torch.tensor([[1] * len(t) + [0] * (width - len(t)) for t in inputs], device=self.device)
            with torch.inference_mode():
                logits = self.model(input_ids=batch, attention_mask=mask).logits.float()
            log_probs = torch.log_softmax(logits, dim=-1)
            for row, i in enumerate(rows):
                length, span = len(inputs[row]), spans[row]
                targets = torch.tensor(encoded[i][1][-span:], device=self.device)
                positions = log_probs[row, length - span : length]
                scores[i] = float(positions.gather(1, targets.unsqueeze(1)).sum())
        return scores
