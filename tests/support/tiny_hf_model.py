"""Write a tiny randomly initialised LlamaForCausalLM for vLLM (no model hub): `python tiny_hf_model.py DIR`.

Run with the vLLM environment's Python (it has torch, transformers and tokenizers; the test
environment has none of them). A 2-layer model (hidden 128, head_dim 64, float32) with a
byte-level BPE tokenizer trained here on a few sentences, and a one-line chat template.
"""

from __future__ import annotations

import sys
from pathlib import Path

CORPUS = [
    "the cat sat on the mat and the dog ran to the cat",
    "one two three four five six seven eight nine ten",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z",
    "The lighthouse keeper counted the ships that passed the rocks every evening.",
] * 20
TEMPLATE = "{% for m in messages %}{{ m['content'] }}\n{% endfor %}"


def write(out: Path) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=357, special_tokens=["<s>", "</s>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>")
    fast.chat_template = TEMPLATE
    fast.save_pretrained(out)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(fast), hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, head_dim=64, max_position_embeddings=1024,
                         bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id, tie_word_embeddings=False)
    model = LlamaForCausalLM(config).to(torch.float32)
    model.generation_config.eos_token_id = fast.eos_token_id
    model.save_pretrained(out)


if __name__ == "__main__":
    write(Path(sys.argv[1]))
