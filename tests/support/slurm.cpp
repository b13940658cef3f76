#include "tests/support/slurm.h"

#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdlib>

#include "tests/support/fixtures.h"

namespace forkscope::testing {
namespace {

const char* kClusterDir = "/tmp/forkscope-slurm";

bool Answers() { return RunCommand("timeout 10 sinfo -h -o %t 2>/dev/null | grep -Eq 'idle|mix|alloc'").status == 0; }

struct Stopper {
  bool started = false;
  ~Stopper() {
    if (started)
      (void)std::system((std::string(FORKSCOPE_SOURCE_DIR) + "/tests/slurm/stop_cluster.sh " + kClusterDir).c_str());
  }
};

SlurmCluster Start(Stopper& stopper) {
  SlurmCluster c;
  if (RunCommand("command -v sbatch >/dev/null && test -x /usr/sbin/slurmctld").status != 0) {
    c.why = "Slurm is not installed (apt-get install slurm-wlm munge, or `make deps`)";
    return c;
  }
  if (std::getenv("SLURM_CONF") && Answers()) {
    c.available = true;
    return c;
  }
  if (geteuid() != 0) {
    c.why = "no Slurm cluster answers and starting one needs root";
    return c;
  }
  std::string script = std::string(FORKSCOPE_SOURCE_DIR) + "/tests/slurm/start_cluster.sh " + kClusterDir;
  auto r = RunCommand(script + " 2>/dev/null");
  INFO("start_cluster.sh: " << r.out);
  REQUIRE(r.status == 0);
  std::string conf = std::string(kClusterDir) + "/slurm.conf";
  setenv("SLURM_CONF", conf.c_str(), 1);
  stopper.started = r.out.find("# started by") != std::string::npos;
  REQUIRE(Answers());
  c.available = true;
  return c;
}

}  // namespace

const SlurmCluster& EnsureSlurmCluster() {
  static Stopper stopper;
  static SlurmCluster cluster = Start(stopper);
  return cluster;
}

}  // namespace forkscope::testing
