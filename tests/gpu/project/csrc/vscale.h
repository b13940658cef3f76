// The vscale op library's C interface: y = a * x, and the sum of x, on the GPU and on the CPU.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

const char* vscale_version(void);
// The first CUDA device's name into buf; the CUDA error string when there is none. 0 on success.
int vscale_device_name(char* buf, int size);
// GPU: 0 on success, else a CUDA error code (its text from vscale_error).
int vscale_cuda(const float* x, float* y, float a, int n);
int vscale_sum_cuda(const float* x, int n, double* sum);
const char* vscale_error(int code);
// CPU reference.
void vscale_cpu(const float* x, float* y, float a, int n);
void vscale_sum_cpu(const float* x, int n, double* sum);

#ifdef __cplusplus
}
#endif
