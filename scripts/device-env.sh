# Sourced by the device-*.sh scripts: run from the repository root, write under $OUT (default
# device-out), and let the binary find the libcjson that scripts/bundle-deps.sh put in .deps/lib (the
# device has no package registry).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-device-out}
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
