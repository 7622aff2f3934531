"""`specview info`: what this install is and where it keeps things (like `k9s info`).

versions.py (the packages, without importing them), build.py (the llama.cpp build's features, asked
in a child process; backends/local/build_probe.py runs there), llama_server.py (the llama-server
binary), paths.py (every file and folder specview reads or writes, each described without opening
it), settings.py (each effective option and where it came from), render.py (the report in words),
command.py.
"""
