"""What makes the ``hf:`` runner as fast as lm-evaluation-harness, kept honest: fewer model rows, the same numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from genbench.runs._hf import HFCausalLMRunner, _stop_criterion
from genbench.runs.specs import parse_model_spec

CONTEXT = "Q: which of these is a part of the body ?\nchoices :\n- elm\n- elbow\nA: "
OPTIONS = ["elm", "elbow", "fencing", "finger"]  # one token each with the fixture's word-level tokenizer


def _runner(tiny_gpt2: Path, args: str = "batch_size=8,device=cpu,dtype=float32") -> HFCausalLMRunner:
    return HFCausalLMRunner(parse_model_spec(f"hf:{tiny_gpt2}", args))


def _count_rows(runner: HFCausalLMRunner) -> list[int]:
    rows: list[int] = []
    runner.model.register_forward_hook(lambda module, args, kwargs, output: rows.append(kwargs["input_ids"].shape[0]),
                                       with_kwargs=True)  # fmt: skip
    return rows


def test_one_token_options_of_a_question_share_one_model_row(tiny_gpt2: Path) -> None:
    runner = _runner(tiny_gpt2)
    rows = _count_rows(runner)
    pairs = [(CONTEXT, option) for option in OPTIONS] + [("A:", "elm elbow")]
    scores = runner.loglikelihood(pairs)
    assert rows == [2]  # the question's row and the two-token continuation's row, in one batch
    alone = [_runner(tiny_gpt2).loglikelihood([pair])[0] for pair in pairs]
    assert scores == pytest.approx(alone, abs=1e-5)


def test_only_the_scored_positions_reach_the_output_layer_with_the_same_numbers(
    tiny_gpt2: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = [(CONTEXT, option) for option in OPTIONS] + [("true or false", " false , O"), ("A:", "elm")]
    kept = _runner(tiny_gpt2)
    assert kept._supports_logits_to_keep()
    widths: list[int] = []
    kept.model.register_forward_hook(lambda module, args, output: widths.append(output.logits.shape[1]))
    fast = kept.loglikelihood(pairs)
    full = _runner(tiny_gpt2)
    monkeypatch.setattr(full, "_supports_logits_to_keep", lambda: False)
    assert fast == pytest.approx(full.loglikelihood(pairs), abs=1e-5)
    longest = max(len(full.tokenizer(c + o)["input_ids"]) for c, o in pairs)
    assert widths and max(widths) < longest - 1  # logits of a few positions, not of every one


def test_contexts_are_tokenised_once(tiny_gpt2: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = _runner(tiny_gpt2)
    calls: list[int] = []
    encode = runner._encode
    monkeypatch.setattr(runner, "_encode", lambda texts, *a, **k: calls.append(len(texts)) or encode(texts, *a, **k))
    runner.loglikelihood([(CONTEXT, option) for option in OPTIONS])
    assert calls == [1, 4]  # the one distinct context, then the four whole texts: two tokenizer calls in all


class _Tokenizer:
    """Decodes token ids as the letters a, b, c, ... (id 0 = "\\n"); counts what it decodes."""

    def __init__(self) -> None:
        self.decoded: list[list[int]] = []

    def batch_decode(self, rows: Any, skip_special_tokens: bool = True) -> list[str]:
        rows = rows.tolist()
        self.decoded.extend(rows)
        return ["".join("\n" if t == 0 else chr(96 + t) for t in row) for row in rows]


def test_the_stop_criterion_decodes_a_window_of_running_rows_and_remembers_stopped_ones() -> None:
    import torch

    tokenizer = _Tokenizer()
    criterion = _stop_criterion(tokenizer, prompt_length=2, stop="\n")
    ids = torch.tensor([[5, 5, 1, 2], [5, 5, 1, 0]])  # row 1 has generated its stop
    assert criterion(ids, None).tolist() == [False, True]
    longer = torch.cat([ids, torch.tensor([[3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1]])], dim=1)
    tokenizer.decoded.clear()
    assert criterion(longer, None).tolist() == [False, True]  # row 1 stays stopped, its stop out of the window
    assert tokenizer.decoded == [[6, 7, 8]]  # only row 0, only its last len("\n") + 2 tokens
