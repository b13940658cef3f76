// The "import" stage: the built library loads and exports its ops (what `import fastops` checks for a
// Python extension). Needs no GPU.
#include <dlfcn.h>

#include <cstdio>
#include <initializer_list>

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "build/libvscale.so";
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "import failed: %s\n", dlerror());
    return 1;
  }
  for (const char* op : {"vscale_cuda", "vscale_sum_cuda", "vscale_cpu", "vscale_sum_cpu", "vscale_device_name"}) {
    if (!dlsym(lib, op)) {
      std::fprintf(stderr, "import failed: %s does not export %s\n", path, op);
      return 1;
    }
  }
  auto version = reinterpret_cast<const char* (*)()>(dlsym(lib, "vscale_version"));
  std::printf("import ok: %s from %s\n", version ? version() : "?", path);
  return 0;
}
