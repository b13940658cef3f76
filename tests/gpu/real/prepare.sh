#!/usr/bin/env bash
# Rebuilds the sources of the real-library GPU run (PINS) from mirrors of the two repositories:
#   tests/gpu/real/prepare.sh FLASH_ATTENTION_GIT_DIR CUTLASS_GIT_DIR
# writes tests/gpu/real/flash-attention.tar.gz and cutlass.tar.gz (git-ignored; about 2.5 MB together):
# `git archive` of each pinned commit, limited to the paths PINS lists. The 7127592 CUTLASS commit is the
# one flash-attention's csrc/cutlass gitlink records at 0251105.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { sed -n '2,6p' "$0"; exit 2; }
pack() {  # NAME GIT_DIR
  local line sha paths
  line=$(grep "^$1 " "$here/PINS")
  sha=$(echo "$line" | awk '{print $3}')
  paths=$(echo "$line" | cut -d' ' -f4-)
  git -C "$2" cat-file -e "$sha^{commit}" || { echo "$2 does not hold $1 $sha"; exit 1; }
  # shellcheck disable=SC2086
  # (a fetched snapshot may lack large blobs outside these paths: git archive names them and goes on)
  git -C "$2" archive --format=tar "$sha" $paths 2>/dev/null | gzip -9 >"$here/$1.tar.gz"
  echo "$1 $sha: $(tar tzf "$here/$1.tar.gz" | grep -vc '/$') files, $(du -k "$here/$1.tar.gz" | cut -f1) KiB"
}
pack flash-attention "$1"
pack cutlass "$2"
