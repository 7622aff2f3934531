"""Doctor's findings on what the numbers mean before any is read: a lossy verification rule, a
draft whose vocabulary is not the target's, a source too large to read.

- `lossy`: vLLM's `rejection_sample_method` "fly" (0.33, lossy: keeps drafts the target would not
  have produced) or "synthetic" (acceptance at set rates), as detection read it from /server_info
  (backends/remote/kinds/vllm.py's `rejection_notes`, the note `watch` shows). vLLM serves that config only
  in its dev mode, so where it is absent nothing is said: no metric label carries the rule.
- `vocab`: a local pair's tokenizers as both GGUFs declare them (backends/local/gguf_vocab.py, llama.cpp's
  own rules, read without loading a model). A server does not publish its draft's vocabulary
  (llama-server's /props names neither the draft nor its tokenizer). What can be said of a
  llama-server: one that drafts with a model passed llama.cpp's check at start; one that is off may
  have dropped a draft whose vocabulary differs (seen here: `-md` with another vocabulary logs "the
  target and draft vocabs are not compatible" and serves plain), which only its log shows.
"""

from __future__ import annotations

from specview.features.doctor.finding import HIGH, LOW, MEDIUM, OK, PROBLEM, WARN, DoctorFinding, Evidence, told
from specview.features.doctor.observe import Observation
from specview.texts.catalog import Phrase

LOSSY = {"vllm_fly_lossy": "fly", "vllm_synthetic": "synthetic"}
# the flag: vLLM's default rule is the lossless one, so the key is left out of the config
LOSSLESS_FLAG = ("--speculative-config '{\"method\":…,\"num_speculative_tokens\":…}'  "
                 "(without \"rejection_sample_method\")")


def lossy(obs: Observation) -> DoctorFinding | None:
    """The verification rule is not lossless (None where detection saw no such rule)."""
    rule = next((LOSSY[n] for n in obs.notes if n in LOSSY), None)
    if rule is None:
        return None
    evidence = (Evidence("rejection_sample_method", rule, told("server_info")),)
    return DoctorFinding(f"lossy_{rule}", WARN, HIGH, "server_config", {}, evidence, LOSSLESS_FLAG)


def vocab_remote(obs: Observation, said: str) -> DoctorFinding | None:
    """For a llama-server (`said`: the speculation finding's id): what its state says of a draft's
    vocabulary. llama-server checks it at start and, when the vocabularies differ, logs "the target
    and draft vocabs are not compatible" and serves without speculation (`speculative.types` "none"
    in /props), which over HTTP looks like any plain server: /props does not name the draft."""
    method = (obs.method or "").lower()
    if obs.engine != "llama-server" or obs.via is not None:
        return None
    if said == "off":
        return DoctorFinding("vocab_dropped", OK, LOW, "vocab_not_exported", {})
    if said in ("on", "idle") and "draft" in method and "mtp" not in method:
        return DoctorFinding("vocab_checked", OK, MEDIUM, "vocab_llama_checks", {}, (
            Evidence("method", obs.method, "/props, /slots"),))
    return None


def vocab_local(why: Phrase, target: str, draft: str) -> DoctorFinding:
    """A local pair whose vocabularies differ: llama.cpp would refuse it (no run is made)."""
    return DoctorFinding("vocab_mismatch", PROBLEM, HIGH, "vocab_gguf", {"why": why}, (
        Evidence("target", target, told("gguf", flag="--target")),
        Evidence("draft", draft, told("gguf", flag="--draft"))),
        "--draft ngram, or a draft GGUF with the target's tokenizer")


def props_large(line: Phrase) -> DoctorFinding:
    return DoctorFinding("props_large", WARN, HIGH, "over_limit", {"what": line})
