#!/usr/bin/env bash
# Builds each named branch or commit into its own folder of this checkout, build-<last part of the
# name>, so that one device call can run several kernels side by side: name the folders in the device
# tool's `carry` and run scripts/device-kernel-iter.sh once per folder (BUILD=build-<name>). The
# binaries embed their own commit. Needs what `make` needs; leaves no worktree behind. With TRACE=1
# in the environment the builds are trace builds (kernels/sm90_trace.h), in build-trace-<name>, for
# scripts/device-trace.sh.
#   scripts/build-branches.sh wip/paged-lookahead wip/prmt-widen
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
[ $# -gt 0 ] || { sed -n '2,8p' "$0"; exit 2; }
for ref in "$@"; do
    name=build-${TRACE:+trace-}$(basename "$ref")
    wt=$(mktemp -d)
    git worktree add -q --detach "$wt" "$ref"
    if ! make -C "$wt" -j"$(nproc)" BUILD="$name" > "$wt.log" 2>&1; then
        tail -20 "$wt.log"; git worktree remove --force "$wt"; echo "$ref: build failed" >&2; exit 1
    fi
    rm -rf "${root:?}/$name"
    cp -r "$wt/$name" "$root/$name"
    git worktree remove --force "$wt"
    rm -f "$wt.log"
    echo "$name: $(git rev-parse --short "$ref")"
done
