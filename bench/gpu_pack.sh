#!/usr/bin/env bash
# Pack what bench/gpu_llama.sh needs into .gpu/ (ignored by git) for a GPU machine with no network:
# the llama.cpp sources llama-cpp-python vendors (from the cache `make llama-server` fills), the
# bindings' Python files from .venv, and the wheels of the two pure-Python packages that machine lacks.
set -euo pipefail
version=$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("llama_cpp_python"))')
vendor=${SPECVIEW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/specview}/llama-server-$version/src
mkdir -p .gpu "$vendor/tree"
tar -xzf "$vendor/llama_cpp_python-$version.tar.gz" -C "$vendor/tree" --strip-components=1 \
  "llama_cpp_python-$version/vendor/llama.cpp"
tar -C "$vendor/tree/vendor" -cJf .gpu/llama-src.tar.xz --exclude=llama.cpp/models --exclude=llama.cpp/docs \
  --exclude=llama.cpp/tests --exclude=llama.cpp/examples --exclude=llama.cpp/benches --exclude=llama.cpp/media \
  --exclude=llama.cpp/pocs --exclude=llama.cpp/app --exclude=llama.cpp/.github llama.cpp
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
tar -C "$site" -czf .gpu/llama_cpp_py.tar.gz --exclude='llama_cpp/lib' --exclude='__pycache__' llama_cpp
.venv/bin/python -m pip download -q --no-deps --only-binary=:all: -d .gpu diskcache platformdirs
du -sh .gpu
