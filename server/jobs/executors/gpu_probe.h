// Detects what the local machine offers a build job: NVIDIA GPUs (model, memory, driver) through
// nvidia-smi, and the CUDA version (the driver's from nvidia-smi, else the toolkit's from nvcc).
// The parsers are pure; ProbeLocalRunner runs the tools (seconds) and is thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/jobs/executors/executor.h"

namespace forkscope::server {

struct GpuProbeOptions {
  std::string nvidia_smi = "nvidia-smi";
  std::string nvcc;  // "" = nvcc on PATH, else /usr/local/cuda/bin/nvcc
  int timeout_ms = 15000;
};

// Rows of `nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader[,nounits]`.
std::vector<GpuInfo> ParseNvidiaSmiCsv(std::string_view csv, const std::string& cuda);
// "CUDA Version: 13.0" in nvidia-smi's header -> "13.0"; "" when absent.
std::string CudaFromNvidiaSmi(std::string_view text);
// "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0"; "" when absent.
std::string CudaFromNvcc(std::string_view text);
// The nvcc to run: the configured one, else the one on PATH, else /usr/local/cuda/bin/nvcc; "" if none.
std::string FindNvcc(const std::string& configured);

RunnerInfo ProbeLocalRunner(const GpuProbeOptions& options);

}  // namespace forkscope::server
