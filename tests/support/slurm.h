// The one-node Slurm cluster the [slurm] tests submit to: one that already answers (SLURM_CONF, as
// .ci/run exports it) is used as it is; otherwise tests/slurm/start_cluster.sh starts one (as root)
// and it is stopped, by PID, when the test binary exits.
#pragma once

#include <string>

namespace forkscope::testing {

struct SlurmCluster {
  bool available = false;
  std::string why;  // when not available: Slurm is not installed, or not as root
};

// Starts the cluster on first use. FAILs the calling test when Slurm is installed but does not come up.
const SlurmCluster& EnsureSlurmCluster();

}  // namespace forkscope::testing
