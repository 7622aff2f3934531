"""The presets the Learn snapshots list: a fixed set, so that adding a preset (or a user's own) changes no
snapshot. Their order is the one `load_presets()` gives them (shipped files by name)."""

from __future__ import annotations

SNAPSHOT_PRESETS = ("deepseek-v3-mtp", "dflash", "draft-model", "dspark", "eagle3-tree", "eagle3", "gemma4-drafter",
                    "glm-5.2-mtp", "medusa", "ngram", "qwen3.5-mtp-long", "qwen3.6-mtp", "suffix")
