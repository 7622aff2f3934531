"""A made-up method unit's files (a suffix-tree drafter), for the tests of method plugins."""

from __future__ import annotations

UNIT = {
    "method.toml": '''id = "suffix-tree"
school = "lookup"
[acceptance]
model = "variable-depth"
source = "SuffixDecoding (arXiv 2411.04975)"
url = "https://arxiv.org/abs/2411.04975"
[[claims]]
id = "suffix-tree-length"
quantity = "mean_length"
low = 1.5
origin = "research"
tag = "authors"
where = "made up for a test"
''',
    "texts.en.toml": 'school = "lookup"\n[claims]\n"suffix-tree-length" = "a test claim"\n',
    "texts.zh.toml": 'school = "查找"\n[claims]\n"suffix-tree-length" = "测试论断"\n',
}
