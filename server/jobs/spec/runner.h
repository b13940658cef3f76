// What a runner offers (GPUs, CUDA and driver versions), as the executors probe it and a job row keeps
// it (server/codec/jobs/job_spec_json.h). Plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace forkscope::server {

struct GpuInfo {
  int index = 0;
  std::string name;  // "NVIDIA H200"
  int64_t memory_mb = 0;
  std::string driver;  // "580.159.03"
  std::string cuda;    // the CUDA version the driver supports ("13.0")
};

// What a runner offers: GPUs, CUDA and driver versions. For Slurm, the partition's GPUs come from its
// nodes' gres ("gpu:h200:8"); model details are those Slurm knows.
struct RunnerInfo {
  std::string name;      // "local:<host>", "slurm:<partition>"
  std::string executor;  // "local" | "slurm"
  std::vector<GpuInfo> gpus;
  std::string cuda;       // driver CUDA version, else the toolkit's (nvcc); "" = unknown
  std::string driver;     // "" = no NVIDIA driver
  bool available = true;  // false: the runner cannot take jobs now (no cluster answers)
  std::string detail;     // why not available, or what was probed
};

}  // namespace forkscope::server
