// The runtime comparison's two runs: `run_trace cpu` (the reference) and `run_trace gpu` (the
// migrated path) call the same ops on the same inputs and write one JSONL record per call to
// $FORKSCOPE_TRACE (stdout when unset): call site, op, input shape and dtype, output values.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "vscale.h"

namespace {

FILE* g_out = stdout;

void Record(const char* site, const char* op, int n, const std::vector<double>& out, const char* tol) {
  std::fprintf(g_out,
               "{\"site\":\"%s\",\"op\":\"%s\",\"inputs\":[{\"shape\":[%d],\"dtype\":\"float32\"}],"
               "\"outputs\":[{\"shape\":[%zu],\"dtype\":\"%s\",\"values\":[",
               site, op, n, out.size(), out.size() == 1 ? "float64" : "float32");
  for (size_t i = 0; i < out.size(); ++i) std::fprintf(g_out, "%s%.9g", i ? "," : "", out[i]);
  std::fprintf(g_out, "]}]%s}\n", tol);
}

#define SITE_STR2(l) #l
#define SITE_STR(l) SITE_STR2(l)
#define SITE __FILE__ ":" SITE_STR(__LINE__)

}  // namespace

int main(int argc, char** argv) {
  bool gpu = argc > 1 && std::strcmp(argv[1], "gpu") == 0;
  if (const char* path = std::getenv("FORKSCOPE_TRACE"); path && *path) g_out = std::fopen(path, "w");
  if (!g_out) return 3;
  for (int n : {256, 1000, 4096}) {
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 97) * 0.25f - 3.0f;
    int rc = 0;
    if (gpu)
      rc = vscale_cuda(x.data(), y.data(), 1.5f, n);
    else
      vscale_cpu(x.data(), y.data(), 1.5f, n);
    if (rc != 0) {
      std::fprintf(stderr, "vscale_cuda: %s\n", vscale_error(rc));
      return 2;
    }
    Record(SITE, "vscale", n, std::vector<double>(y.begin(), y.end()), "");
    double sum = 0;
    if (gpu)
      rc = vscale_sum_cuda(y.data(), n, &sum);
    else
      vscale_sum_cpu(y.data(), n, &sum);
    if (rc != 0) {
      std::fprintf(stderr, "vscale_sum_cuda: %s\n", vscale_error(rc));
      return 2;
    }
    // The GPU adds in another order: equal within a relative tolerance, not bit for bit.
    Record(SITE, "vsum", n, {sum}, ",\"rtol\":1e-5,\"atol\":1e-6");
  }
  if (g_out != stdout) std::fclose(g_out);
  std::fprintf(stderr, "run_trace %s: 6 calls traced\n", gpu ? "gpu" : "cpu");
  return 0;
}
