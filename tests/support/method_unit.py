"""A made-up method unit's files: a lookup drafter the tests of method plugins plant (no shipped method has
its id)."""

from __future__ import annotations

UNIT = {
    "method.toml": '''id = "planted-lookup"
school = "lookup"
[acceptance]
model = "variable-depth"
source = "SuffixDecoding (arXiv 2411.04975)"
url = "https://arxiv.org/abs/2411.04975"
[[claims]]
id = "planted-lookup-length"
quantity = "mean_length"
low = 1.5
origin = "research"
tag = "authors"
where = "made up for a test"
''',
    "texts.en.toml": 'school = "lookup"\n[claims]\n"planted-lookup-length" = "a test claim"\n',
    "texts.zh.toml": 'school = "查找"\n[claims]\n"planted-lookup-length" = "测试论断"\n',
}
