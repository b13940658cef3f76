#!/bin/sh
# Builds build/libvscale.so (kernel + launcher + CPU reference) and the three test programs.
# NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc) and NVCC_FLAGS may be set by the recipe.
set -eu
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
NVCC_FLAGS=${NVCC_FLAGS:--O2}
CXX=${CXX:-g++}
mkdir -p build
echo "nvcc: $("$NVCC" --version | tail -n 2 | head -n 1)"
# shellcheck disable=SC2086
"$NVCC" $NVCC_FLAGS -Xcompiler -fPIC -shared -o build/libvscale.so csrc/vscale.cu csrc/vscale_ref.cpp
"$CXX" -O2 -o build/import_check tools/import_check.cpp -ldl
"$CXX" -O2 -Icsrc -o build/smoke tests/smoke.cpp -Lbuild -lvscale -Wl,-rpath,'$ORIGIN'
"$CXX" -O2 -Icsrc -o build/run_trace tests/run_trace.cpp -Lbuild -lvscale -Wl,-rpath,'$ORIGIN'
echo "built: $(ls build | tr '\n' ' ')"
