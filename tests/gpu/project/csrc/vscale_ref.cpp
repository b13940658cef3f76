// The CPU reference the GPU results are checked against.
#include "vscale.h"

extern "C" void vscale_cpu(const float* x, float* y, float a, int n) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i];
}

extern "C" void vscale_sum_cpu(const float* x, int n, double* sum) {
  double total = 0;
  for (int i = 0; i < n; ++i) total += x[i];
  *sum = total;
}
