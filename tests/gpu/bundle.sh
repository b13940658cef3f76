#!/usr/bin/env bash
# Packs a built forkscope with every shared library it loads (the C library and its loader included)
# into tests/gpu/bundle/, so tests/gpu/run_on_gpu.sh can run it on a GPU machine that has neither
# forkscope's libraries nor a network. The wrapper starts the binary through the bundled loader with
# --library-path: the libraries apply to forkscope alone, never to the stages it runs (nvcc, g++).
#   tests/gpu/bundle.sh [BUILD_DIR]     (default: build; run `make build` first)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
dest="$root/tests/gpu/bundle"
[ -x "$build/forkscope" ] || { echo "no $build/forkscope: build it first (make build)"; exit 2; }
rm -rf "$dest"
mkdir -p "$dest/lib"
strip -o "$dest/forkscope.bin" "$build/forkscope"
ldd "$build/forkscope" | awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}' | while read -r lib; do
  cp -L "$lib" "$dest/lib/"
done
loader=$(cd "$dest/lib" && ls ld-linux-*.so.* | head -n 1)
cat >"$dest/forkscope" <<WRAPPER
#!/bin/sh
here=\$(cd "\$(dirname "\$0")" && pwd)
exec "\$here/lib/$loader" --library-path "\$here/lib" "\$here/forkscope.bin" "\$@"
WRAPPER
chmod +x "$dest/forkscope"
du -sh "$dest"
"$dest/forkscope" --version
