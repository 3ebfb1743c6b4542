#!/usr/bin/env bash
# Copies the shared libraries build/mla-bench needs beyond glibc and the GPU driver (cJSON; the CUDA
# runtime is linked statically) into .deps/lib, for a GPU machine that has no package registry.
# Use there: LD_LIBRARY_PATH=.deps/lib build/mla-bench ...
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/lib
for lib in $(ldd build/mla-bench | awk '/libcjson/ {print $3}'); do
    cp -L "$lib" .deps/lib/
done
ls .deps/lib
