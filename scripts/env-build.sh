#!/usr/bin/env bash
# Makes build-NAME, a folder of wrappers that run BUILD's binaries with VAR=VALUE set, so that
# scripts/device-compare-builds.sh can time one binary under several environments side by side
# (e.g. CUDA_MODULE_LOADING=EAGER against the default, or a diagnostic build's MB_DIAG_* knob) in one
# call, as it times builds: same rounds, same order rules, the same tables. The wrappers find BUILD
# beside them, so carry both folders. The run's JSON records CUDA_MODULE_LOADING itself
# (device.module_loading); other variables are only in the folder's name. The wrappers are bytes: make
# them in the device call's command rather than carrying them (a call carries 8 paths at most).
#   scripts/env-build.sh build-main eager CUDA_MODULE_LOADING=EAGER
#   scripts/env-build.sh build-spacer sp1k MB_DIAG_SPACER=1024
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n '2,10p' "$0"; exit 2; }
base=$1 name=$2
shift 2
[ -x "$base/mla-bench" ] || { echo "env-build: $base/mla-bench not found (build it first)" >&2; exit 2; }
[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || { echo "env-build: NAME expects letters, digits, '.', '_' or '-', got '$name'" >&2; exit 2; }
exports=()
for kv in "$@"; do
    [[ $kv =~ ^[A-Za-z_][A-Za-z0-9_]*=[A-Za-z0-9._:/-]*$ ]] ||
        { echo "env-build: expected VAR=VALUE (a plain value), got '$kv'" >&2; exit 2; }
    exports+=("export $kv")
done
dst=build-$name
[ "$dst" != "$base" ] || { echo "env-build: NAME must differ from BUILD" >&2; exit 2; }
rm -rf "$dst"
mkdir -p "$dst"
for bin in mla-bench mla-bench-stall sm90-layout-test; do
    [ -x "$base/$bin" ] || continue
    {
        echo '#!/bin/sh'
        echo "# $base/$bin with: $*"
        printf '%s\n' "${exports[@]}"
        echo "exec \"\$(dirname \"\$0\")/../$base/$bin\" \"\$@\""
    } > "$dst/$bin"
    chmod +x "$dst/$bin"
done
echo "$dst: $base with $*"
