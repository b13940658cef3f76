// The minimal functional test: scale a million floats on the GPU and check every one against the CPU;
// sum them on both and check the sums agree. Exit 0 ok, 1 wrong results, 2 no usable GPU.
#include <cmath>
#include <cstdio>
#include <vector>

#include "vscale.h"

int main() {
  char device[256];
  if (int rc = vscale_device_name(device, sizeof device); rc != 0) {
    std::fprintf(stderr, "no CUDA device: %s\n", device);
    return 2;
  }
  const int n = 1 << 20;
  std::vector<float> x(n), gpu(n), cpu(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>((i % 1000) - 500) / 7.0f;
  if (int rc = vscale_cuda(x.data(), gpu.data(), 2.5f, n); rc != 0) {
    std::fprintf(stderr, "vscale_cuda: %s\n", vscale_error(rc));
    return 2;
  }
  vscale_cpu(x.data(), cpu.data(), 2.5f, n);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += gpu[i] != cpu[i];
  double gsum = 0, csum = 0;
  if (int rc = vscale_sum_cuda(x.data(), n, &gsum); rc != 0) {
    std::fprintf(stderr, "vscale_sum_cuda: %s\n", vscale_error(rc));
    return 2;
  }
  vscale_sum_cpu(x.data(), n, &csum);
  double rel = std::fabs(gsum - csum) / std::max(1.0, std::fabs(csum));
  std::printf("device: %s\nvscale: %d of %d elements differ from the CPU\nvsum: gpu %.6f cpu %.6f (rel %.2e)\n", device,
              wrong, n, gsum, csum, rel);
  if (wrong != 0 || rel > 1e-4) {
    std::printf("smoke FAILED\n");
    return 1;
  }
  std::printf("smoke ok\n");
  return 0;
}
