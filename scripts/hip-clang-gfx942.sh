#!/bin/sh
# A copy of the workplace's ../shared/tools/hip-clang-gfx942.sh, kept here so that CI's AMD compile
# does not depend on a folder beside the clone.
# Unpacks Debian 13 clang-19, ROCm 6.0 device libraries and HIP 5.7 headers into a private prefix on Debian 12,
# for device-only compile checks of HIP kernels for gfx90a/gfx940/gfx942 (MI300). Nothing system-wide changes
# except the patchelf package. About 5 s and 66 MB of downloads; the prefix is about 300 MB.
# Use: $P/usr/lib/llvm-19/bin/clang++ -x hip -isystem $P/usr/include --rocm-path=$P/usr \
#      --rocm-device-lib-path=$P/usr/lib/llvm-17/lib/clang/17/amdgcn/bitcode --offload-arch=gfx942 \
#      --cuda-device-only --no-gpu-bundle-output -O3 -c k.hip -o k.co
set -eu
P=${1:-/opt/trixie-hip}; W=$P.apt
mkdir -p "$P" "$W/lists/partial" "$W/cache/archives/partial" "$W/debs"
# Use the same Debian mirror this machine already uses, with the trixie suite.
URI=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
[ -n "$URI" ] || URI=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null)
[ -n "$URI" ] || { echo "no Debian mirror found in the apt sources" >&2; exit 1; }
echo "deb $URI trixie main" > "$W/sources.list"; : > "$W/status"
O="-o Dir::Etc::SourceList=$W/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$W/lists -o Dir::Cache=$W/cache -o Dir::State::status=$W/status"
apt-get $O update -qq
cd "$W/debs" && apt-get $O download -qq clang-19 libclang-cpp19 libllvm19 libclang-common-19-dev lld-19 \
  rocm-device-libs-17 libamdhip64-dev libc6 libstdc++6 libgcc-s1 libedit2 libffi8 libxml2 libz3-4 \
  libzstd1 zlib1g libtinfo6 libbsd0 libmd0 libicu76 liblzma5 2>/dev/null
for f in *.deb; do dpkg -x "$f" "$P"; done
command -v patchelf >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends patchelf
for b in "$P/usr/lib/llvm-19/bin/clang-19" "$P/usr/lib/llvm-19/bin/lld"; do
  patchelf --set-interpreter "$P/usr/lib64/ld-linux-x86-64.so.2" --force-rpath \
           --set-rpath "$P/usr/lib/x86_64-linux-gnu:$P/usr/lib/llvm-19/lib" "$b"
done
for l in "$P"/usr/lib/x86_64-linux-gnu/libLLVM.so.19* "$P"/usr/lib/x86_64-linux-gnu/libclang-cpp.so.19*; do
  [ -L "$l" ] || patchelf --set-rpath "$P/usr/lib/x86_64-linux-gnu" "$l"
done
"$P/usr/lib/llvm-19/bin/clang-19" --version | head -1
