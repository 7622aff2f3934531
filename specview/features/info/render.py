"""`specview info` in words (texts/info.<lang>.toml), read from the report's data (report.py), whose
values are already sanitised: nothing here meets a raw value from outside."""

from __future__ import annotations

from typing import Any

from specview.texts.catalog import fill, text

INDENT = "  "
GPU_KEYS = ("cuda", "metal", "blas", "vulkan")  # the report's keys, in the order of their label


def _rows(rows: list[tuple[str, str]]) -> list[str]:
    """Label and value, the labels padded to one width in terminal cells (Chinese labels are two a character)."""
    from rich.cells import cell_len

    width = max((cell_len(label) for label, _ in rows), default=0)
    return [f"{INDENT}{label}{' ' * (width - cell_len(label))}  {value}".rstrip() for label, value in rows]


def _yes(flag: bool, lang: str) -> str:
    return text("info.yes" if flag else "info.no", lang)


def path_words(what: dict[str, Any] | None, wants: str, lang: str) -> str:
    """What a name is, in words: 'not there', 'a file, 120 bytes', 'a FIFO: never opened', 'a dangling link to …'."""
    if what is None:
        return text("info.kind.missing", lang)
    kind = what["kind"]
    if what["dangling"]:
        return fill("info.kind.dangling", lang, target=what["link"])
    if kind == "missing":
        said = text("info.kind.missing", lang)
    elif kind == "unreadable":
        said = fill("info.kind.unreadable", lang, errno=what["errno"])
    elif kind == "file":
        said = fill("info.kind.file", lang, size=what["size"])
    elif kind == "folder":
        said = text("oserr.kind.folder", lang)
    else:
        said = fill("info.kind.not_opened", lang, what=text(f"oserr.kind.{kind}", lang))
    if kind in ("file", "folder") and kind != wants:
        said = fill("info.kind.wants", lang, said=said, wants=text(f"info.wants.{wants}", lang))
    if what["link"] is not None:
        said = fill("info.kind.link", lang, target=what["link"], said=said)
    return said


def _versions(report: dict[str, Any], lang: str) -> list[str]:
    v = report["versions"]
    missing = text("info.not_installed", lang)
    rows = [("Python", f"{v['python']} · {v['python_path']}")]
    rows += [(name, v[name] or missing) for name in ("textual", "textual-serve", "llama-cpp-python")]
    return [f"specview {v['specview']}", *_rows(rows)]


def _llama(report: dict[str, Any], lang: str) -> list[str]:
    llama, server = report["llama_cpp"], report["llama_server"]
    cpu = llama["cpu"]
    rows = [(text("info.label.cpu_flags", lang), " ".join(cpu["flags"]) or text("info.unknown", lang)),
            (text("info.label.cpu_amx", lang), _yes(cpu["amx"], lang))]
    if not llama["installed"]:
        rows.insert(0, (text("info.label.build", lang), text("info.not_installed", lang)))
    elif llama["failed"] is not None:
        rows.insert(0, (text("info.label.build", lang), fill("info.build_failed", lang, reason=llama["failed"])))
    else:
        rows[:0] = [
            (text("info.label.backends", lang), " · ".join(llama["backends"]) or text("info.unknown", lang)),
            (text("info.label.gpu_offload", lang), _yes(llama["gpu_offload"], lang)),
            ("CUDA · Metal · BLAS · Vulkan", " · ".join(_yes(llama[k], lang) for k in GPU_KEYS)),
            (text("info.label.build_cpu", lang), " ".join(llama["cpu_features"]) or text("info.unknown", lang)),
            (text("info.label.build_amx", lang), _yes(llama["amx"], lang)),
            (text("info.label.repack", lang), text(f"note.{llama['repack']['note']}", lang)),
        ]
    if server["path"] is None:
        said = text("info.server_none", lang)
    else:
        said = f"{server['path']} ({server['named_by']}) · {path_words(server['what'], 'file', lang)}"
        if server["version"]:
            said += f" · {server['version']}"
    rows.append(("llama-server", said))
    return [text("info.heading.llama", lang), *_rows(rows)]


def _paths(report: dict[str, Any], lang: str) -> list[str]:
    rows = []
    for place in report["paths"]:
        said = path_words(place["what"], place["wants"], lang)
        if place["toml_files"] is not None:
            said = fill("info.toml_files", lang, said=said, n=place["toml_files"])
        what = place["what"]
        if place["written"] and what is not None and what["link"] is not None and not what["dangling"]:
            said = fill("info.kind.not_written", lang, said=said)
        named = f" ({place['named_by']})" if place["named_by"] else ""
        rows.append((text(f"info.path.{place['id']}", lang), f"{place['path']}{named} · {said}"))
    return [text("info.heading.paths", lang), *_rows(rows)]


def setting_words(setting: dict[str, Any], lang: str) -> str:
    """A setting's value as a reader wants it: numbers plain, on/off, the default's behaviour in words."""
    value, key = setting["value"], setting["key"]
    if value is None:
        return text(f"info.default_is.{key.replace('.', '_')}", lang) if key in DEFAULT_WORDS else "—"
    if isinstance(value, bool):
        return text("info.on" if value else "info.off", lang)
    if isinstance(value, float):
        return f"{value:g}"
    if key == "api_key":
        return text("info.hidden", lang)
    if isinstance(value, dict):
        return fill("info.keys", lang, n=len(value))
    return str(value)


def origin_words(setting: dict[str, Any], lang: str) -> str:
    return fill(f"info.origin.{setting['origin']}", lang, where=setting["where"])


def _settings(report: dict[str, Any], lang: str) -> list[str]:
    from rich.cells import cell_len

    values = [(s["key"], setting_words(s, lang), origin_words(s, lang)) for s in report["settings"]]
    width = max((cell_len(v) for _, v, _ in values), default=0)
    rows = [(key, f"{value}{' ' * (width - cell_len(value))}  {origin}") for key, value, origin in values]
    return [text("info.heading.settings", lang), *_rows(rows)]


def _environment(report: dict[str, Any], lang: str) -> list[str]:
    env = report["environment"]
    if not env:
        return [text("info.heading.environment", lang), INDENT + text("info.env_none", lang)]
    return [text("info.heading.environment", lang), *_rows([(k, v) for k, v in env.items()])]


# the keys whose default is a behaviour, not a value (texts: info.default_is.<key>)
DEFAULT_WORDS = frozenset({"api_key_env", "api_key", "export_dir", "keymap", "chat_template", "repack",
                           "watch.alerts.baseline_tokens_per_s"})


def lines(report: dict[str, Any], lang: str) -> list[str]:
    """The whole report as lines of text, section by section."""
    parts = [_versions(report, lang), _llama(report, lang), _paths(report, lang), _settings(report, lang),
             _environment(report, lang)]
    out: list[str] = []
    for part in parts:
        out += [*part, ""]
    return out[:-1]
