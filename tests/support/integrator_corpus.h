// A PaddleFleet-shaped integrator and the forks it ships, built as real git repositories: bare forks
// under <root>/forks/<name>.git, real submodules pointing at them by file:// URL in both layouts
// (packages/paddlefleet_ops/third_party/<Lib> and third_party/<Lib>), a build_utils.py whose get_libs()
// appends some libraries under conditions, a loader with use_compat_guard blocks and one older
// enable_compat block, a .gitignore missing one artifact, the import test and tests/test_configs.yaml;
// pushed to a bare <root>/PaddleFleet.git (branch develop). What each library is meant to show:
//   DeepGEMM   (packages layout) current; upstream (its main) 2 commits ahead; .gitignore lacks deep_gemm_cpp
//   DeepEP     (packages layout) one commit behind paddle; loaded by the older enable_compat block
//   HybridEP   (packages layout) the same fork from branch hybrid-ep-paddle (.gitmodules branch), current;
//              installed as hybrid_ep; no import test
//   sonic-moe  (packages layout) imports quack and triton while loading; the loader scope lacks quack;
//              check_submodule_updated() does not name it
//   quack      (third_party layout) loaded only as sonicmoe's extra library; a documented lazy import
//   fastattn   (third_party layout) current until ForcePushFastattn() drops its pin from the fork
//   cudnn-frontend (third_party layout) a gitlink whose URL no registered fork has
//   tilekit    a registered fork the integrator lacks (readiness)
#pragma once

#include <map>
#include <string>

#include "tests/support/fixtures.h"

namespace forkscope::testing {

struct PaddleFleetFixture {
  std::string root;
  std::string integrator;                    // the bare integrator repository (origin), branch develop
  std::string work;                          // its working clone (submodules checked out)
  std::map<std::string, std::string> forks;  // name -> bare fork path ("DeepEP" and "HybridEP" share one)
  std::string deep_gemm_head;
  std::string deep_ep_pin, deep_ep_head;  // pin = paddle~1
  std::string hybrid_ep_head;
  std::string sonic_moe_head, quack_head;
  std::string fastattn_pin;  // the pinned commit ForcePushFastattn() drops
  std::string tilekit_head;
};

PaddleFleetFixture BuildPaddleFleet(const std::string& root);

// Rewrites fastattn's paddle branch without the pinned commit and force-pushes it; with prune, the
// fork's unreachable objects are deleted too (reflog expired, gc --prune=now), as on a hosting service
// after a while. Returns the new head.
std::string ForcePushFastattn(const PaddleFleetFixture& fx, bool prune);

// The file:// URL git submodules of the fixture use for a bare fork path.
std::string FileUrl(const std::string& path);

}  // namespace forkscope::testing
