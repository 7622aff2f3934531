"""The exact flag to change, per engine: written as each engine spells it (not translated).

Spellings as each engine's own help and docs give them (`llama-server --help`, vLLM's speculative
decoding docs, SGLang's server arguments; docs/doctor.md lists them): llama-server `--spec-type`, `--model-draft`/
`-md`, `--spec-draft-n-max` (older builds `--draft-max`); vLLM `--speculative-config
'{"method":…,"num_speculative_tokens":…}'`; SGLang `--speculative-algorithm`,
`--speculative-num-steps`, `--speculative-num-draft-tokens`. `{gamma}` is filled in.
"""

from __future__ import annotations

# how to turn speculation on
TURN_ON = {
    "llama-server": "--spec-type ngram-simple --spec-draft-n-max {gamma}  (or --model-draft DRAFT.gguf "
                    "--spec-type draft-simple; older builds: --draft-max {gamma})",
    "vllm": "--speculative-config '{{\"method\":\"ngram\",\"num_speculative_tokens\":{gamma},"
            "\"prompt_lookup_max\":4}}'",
    "sglang": "--speculative-algorithm NGRAM --speculative-num-draft-tokens {gamma}",
    "local": "--draft ngram --gamma {gamma}  (or --draft DRAFT.gguf)",
}
# how to set γ
SET_GAMMA = {
    "llama-server": "--spec-draft-n-max {gamma}  (older builds: --draft-max {gamma})",
    "vllm": "--speculative-config '{{\"method\":\"…\",\"num_speculative_tokens\":{gamma}}}'",
    "sglang": "--speculative-num-steps {gamma} --speculative-num-draft-tokens {next}",
    "local": "--gamma {gamma}",
}
DEFAULT_GAMMA = 3  # what the turn-on flag suggests (llama-server's own default since #23269)


def flag(table: dict[str, str], engine: str, gamma: int) -> str | None:
    """The flag for `engine` with γ filled in; None for an engine specview knows no flag of."""
    template = table.get(engine)
    return template.format(gamma=gamma, next=gamma + 1) if template else None
