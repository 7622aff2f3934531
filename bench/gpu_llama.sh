#!/usr/bin/env bash
# Issue 34 item 6, on a GPU machine (no network there): build llama.cpp for CUDA from the sources
# llama-cpp-python 0.3.36 vendors, point llama-cpp-python's bindings at that libllama, and run
# bench/gpu_llama.py. What it needs travels in .gpu/ (ignored by git; made by `bench/gpu_pack.sh`):
# llama-src.tar.xz (the vendored llama.cpp without models, docs and tests), llama_cpp_py.tar.gz
# (the bindings' Python files) and the wheels of diskcache and platformdirs.
# Usage, from the repository root: bash bench/gpu_llama.sh OUT_DIR [WORK_DIR]
# WORK_DIR (default: a new temporary folder) holds the sources, the build and the bindings.
set -uo pipefail
out=${1:?output folder}
work=${2:-$(mktemp -d)}
src=$work/src site=$work/site build=$work/build
mkdir -p "$out" "$src" "$site"
began=$(date +%s)
tar -xJf .gpu/llama-src.tar.xz -C "$src"
python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --target "$site" .gpu/*.whl
tar -xzf .gpu/llama_cpp_py.tar.gz -C "$site"
cmake -S "$src/llama.cpp" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_CUDA_FA=OFF -DBUILD_SHARED_LIBS=ON -DLLAMA_CURL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_SERVER=ON >"$out/cmake.log" 2>&1 \
  || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target llama llama-server >"$out/build.log" 2>&1 \
  || { tail -40 "$out/build.log"; exit 1; }
echo "built in $(( $(date +%s) - began )) s"
lib=$(dirname "$(find "$build" -name 'libllama.so' | head -1)")
export LLAMA_CPP_LIB_PATH=$lib LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$site:$PWD:$src/llama.cpp/gguf-py PYTHONUNBUFFERED=1
python3 -c "import llama_cpp.llama_cpp as l; print(l.llama_print_system_info().decode()); print('gpu offload', l.llama_supports_gpu_offload())"
grep -o -w -m1 'amx_tile' /proc/cpuinfo || echo "no amx_tile in /proc/cpuinfo"
server=$(find "$build" -name llama-server -type f | head -1)
python3 -X faulthandler bench/gpu_llama.py --models "$work/models" --server "$server" --out "$out"
echo "done in $(( $(date +%s) - began )) s"
