#include "server/jobs/executors/gpu_probe.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "server/jobs/executors/subprocess.h"

namespace forkscope::server {
namespace {

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> SplitCsv(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    out.push_back(Trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// The version number that follows marker in text ("13.0"); "" when absent.
std::string VersionAfter(std::string_view text, std::string_view marker) {
  size_t at = text.find(marker);
  if (at == std::string_view::npos) return "";
  size_t b = at + marker.size();
  while (b < text.size() && text[b] == ' ') ++b;
  size_t e = b;
  while (e < text.size() && (std::isdigit(static_cast<unsigned char>(text[e])) || text[e] == '.')) ++e;
  return std::string(text.substr(b, e - b));
}

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view p = path ? path : "";
  size_t start = 0;
  while (start <= p.size()) {
    size_t colon = std::min(p.find(':', start), p.size());
    std::string dir(p.substr(start, colon - start));
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    start = colon + 1;
  }
  return false;
}

}  // namespace

std::vector<GpuInfo> ParseNvidiaSmiCsv(std::string_view csv, const std::string& cuda) {
  std::vector<GpuInfo> gpus;
  size_t start = 0;
  while (start < csv.size()) {
    size_t nl = csv.find('\n', start);
    std::string_view line = csv.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? csv.size() : nl + 1;
    auto f = SplitCsv(line);
    if (f.size() < 4 || f[0].empty() || !std::isdigit(static_cast<unsigned char>(f[0][0]))) continue;
    GpuInfo g;
    g.index = std::atoi(f[0].c_str());
    g.name = f[1];
    g.memory_mb = std::atoll(f[2].c_str());  // "143771" or "143771 MiB"
    g.driver = f[3];
    g.cuda = cuda;
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::string CudaFromNvidiaSmi(std::string_view text) { return VersionAfter(text, "CUDA Version:"); }

std::string CudaFromNvcc(std::string_view text) { return VersionAfter(text, "release"); }

std::string FindNvcc(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (OnPath("nvcc")) return "nvcc";
  if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0) return "/usr/local/cuda/bin/nvcc";
  return "";
}

RunnerInfo ProbeLocalRunner(const GpuProbeOptions& options) {
  RunnerInfo r;
  r.name = "local:" + HostName();
  r.executor = "local";
  auto csv = RunCapture(
      {options.nvidia_smi, "--query-gpu=index,name,memory.total,driver_version", "--format=csv,noheader,nounits"},
      options.timeout_ms);
  if (csv.ok() && csv->exit_code == 0) {
    auto header = RunCapture({options.nvidia_smi}, options.timeout_ms);
    std::string cuda = header.ok() ? CudaFromNvidiaSmi(header->out) : "";
    r.gpus = ParseNvidiaSmiCsv(csv->out, cuda);
    r.cuda = cuda;
    if (!r.gpus.empty()) r.driver = r.gpus.front().driver;
    r.detail = std::to_string(r.gpus.size()) + " GPU(s) from " + options.nvidia_smi;
  } else {
    r.detail = "no GPU: " + (csv.ok() ? options.nvidia_smi + " exited with " + std::to_string(csv->exit_code)
                                      : csv.status().message());
  }
  if (r.cuda.empty()) {
    std::string nvcc = FindNvcc(options.nvcc);
    auto version =
        nvcc.empty() ? Result<CaptureResult>(NotFound("no nvcc")) : RunCapture({nvcc, "--version"}, options.timeout_ms);
    if (version.ok() && version->exit_code == 0) r.cuda = CudaFromNvcc(version->out);
  }
  return r;
}

}  // namespace forkscope::server
