"""Names read where vulture cannot see it (`make lint` runs vulture over specview, tests and bench
with this file; pyproject.toml's [tool.vulture] ignores Textual's and pytest's name patterns).

Each group says who reads the names. A name that is here but read by nobody is dead code: remove
both. This file is never imported.
"""

_: object

# llama.cpp (C) reads the fields specview sets on its context and model-quantize parameter structs
_.n_ubatch
_.n_seq_max
_.kv_unified
_.n_threads_batch
_.no_perf
_.use_extra_bufts
_.token_embedding_type  # tests/support/draft_pair.py: llama_model_quantize_params
_.allow_requantize
_.nthread

# reprlib.Repr reads its limits (boundary/text.py)
_.maxlong
_.maxother
_.maxstring
_.maxdict
_.maxlist
_.maxset
_.maxtuple
_.maxlevel

# Textual reads these by name on an App, a Screen or a Widget; the unused parameters keep its signatures
_.ENABLE_COMMAND_PALETTE
_.get_theme_variable_defaults
_.animation_level
container  # get_content_height(container, viewport, width)
viewport
parameters  # check_action(action, parameters)
# Textual's Strip: a subclass fills the caches its methods read (widgets/line_strip.py)
_._cell_length
_._divide_cache
_._crop_cache
_._filter_cache
_._line_length_cache
_._style_cache
_._crop_extend_cache
_._offsets_cache
_._render_cache
_._link_ids
_._cell_count

# textual-serve calls its Server's logging set-up by name (features/serve/server.py)
_.initialize_logging

# argparse calls its HelpFormatter's _split_lines (cli/help_format.py)
_._split_lines

# the Learn registry collects every Lesson at a module's top level (features/learn/registry.py)
LESSON

# functions run in the engine process, named there by a string ("module:function")
forward_costs_here  # specview.features.learn.local_model
position_rows  # specview.backends.local.token_rows

# http.server and socketserver read these on a handler or server class (tests' fake servers)
_.daemon_threads
_.allow_reuse_address
_.protocol_version
_.close_connection
_.log_message
_.do_GET
_.do_POST

# the tokenizers library reads the pieces of a tokenizer (tests/support/tiny_hf_model.py)
_.pre_tokenizer
_.decoder

# a cache key: lru_cache reads every argument (tests/support/draft_pair.py's _sha256)
mtime_ns
# pyte calls select_graphic_rendition(*attrs, private=…) (tests/unit/test_screen_diff.py)
private
# a fixture asked for by name: the test needs its effect, not its value
own_state_dir
# a module-level __getattr__ (PEP 562): Python calls it for a missing attribute (kernel/gauges.py: GAUGES)
__getattr__
