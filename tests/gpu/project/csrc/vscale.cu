// Host side of the op library: device memory, launches, error codes.
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "vscale.h"
#include "vscale_kernel.cuh"

namespace {
constexpr int kThreads = 256;
}

extern "C" const char* vscale_version(void) { return "vscale 1.0"; }

extern "C" const char* vscale_error(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

extern "C" int vscale_device_name(char* buf, int size) {
  cudaDeviceProp prop;
  cudaError_t rc = cudaGetDeviceProperties(&prop, 0);
  const char* text = rc == cudaSuccess ? prop.name : cudaGetErrorString(rc);
  std::strncpy(buf, text, size - 1);
  buf[size - 1] = '\0';
  return rc;
}

extern "C" int vscale_cuda(const float* x, float* y, float a, int n) {
  float *dx = nullptr, *dy = nullptr;
  size_t bytes = sizeof(float) * n;
  cudaError_t rc = cudaMalloc(&dx, bytes);
  if (rc == cudaSuccess) rc = cudaMalloc(&dy, bytes);
  if (rc == cudaSuccess) rc = cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  if (rc == cudaSuccess) {
    vscale_kernel<<<(n + kThreads - 1) / kThreads, kThreads>>>(dx, dy, a, n);
    rc = cudaGetLastError();
  }
  if (rc == cudaSuccess) rc = cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  return rc;
}

extern "C" int vscale_sum_cuda(const float* x, int n, double* sum) {
  int blocks = (n + kThreads - 1) / kThreads;
  float *dx = nullptr, *dp = nullptr;
  cudaError_t rc = cudaMalloc(&dx, sizeof(float) * n);
  if (rc == cudaSuccess) rc = cudaMalloc(&dp, sizeof(float) * blocks);
  if (rc == cudaSuccess) rc = cudaMemcpy(dx, x, sizeof(float) * n, cudaMemcpyHostToDevice);
  if (rc == cudaSuccess) {
    vsum_kernel<<<blocks, kThreads, kThreads * sizeof(float)>>>(dx, dp, n);
    rc = cudaGetLastError();
  }
  std::vector<float> partial(blocks);
  if (rc == cudaSuccess) rc = cudaMemcpy(partial.data(), dp, sizeof(float) * blocks, cudaMemcpyDeviceToHost);
  double total = 0;
  for (float p : partial) total += p;
  *sum = total;
  cudaFree(dx);
  cudaFree(dp);
  return rc;
}
