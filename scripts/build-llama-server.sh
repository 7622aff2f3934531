#!/usr/bin/env bash
# Build llama-server from the llama.cpp vendored in the llama-cpp-python sdist.
# The binary is cached outside the checkout so a fresh clone (CI) reuses it.
# Usage: scripts/build-llama-server.sh PYTHON DEST
set -euo pipefail
py=${1:?python}
dest=${2:?destination path of the binary}
version=$("$py" -c 'import importlib.metadata as m; print(m.version("llama_cpp_python"))' 2>/dev/null || echo 0.3.36)
cache=${SPECVIEW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/specview}/llama-server-$version
if [ ! -x "$cache/llama-server" ]; then
  mkdir -p "$cache/src"
  if [ ! -f "$cache/src/llama_cpp_python-$version.tar.gz" ]; then
    "$py" -m pip download --quiet --no-deps --no-binary llama-cpp-python \
      -d "$cache/src" "llama-cpp-python==$version"
  fi
  rm -rf "$cache/src/tree" && mkdir -p "$cache/src/tree"
  tar -xzf "$cache/src/llama_cpp_python-$version.tar.gz" -C "$cache/src/tree" \
    --strip-components=1 "llama_cpp_python-$version/vendor/llama.cpp"
  cmake -S "$cache/src/tree/vendor/llama.cpp" -B "$cache/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=ON >"$cache/cmake.log" 2>&1 || { tail -20 "$cache/cmake.log"; exit 1; }
  cmake --build "$cache/build" -j"$(nproc)" --target llama-server >"$cache/build.log" 2>&1 \
    || { tail -30 "$cache/build.log"; exit 1; }
  cp "$cache/build/bin/llama-server" "$cache/llama-server.tmp" && mv "$cache/llama-server.tmp" "$cache/llama-server"
  rm -rf "$cache/src/tree"
fi
mkdir -p "$(dirname "$dest")"
cp "$cache/llama-server" "$dest"
echo "llama-server $version ready: $dest"
