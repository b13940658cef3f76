// The include graph of a tree's C/C++/CUDA files and what the binding files reach through it.
#include "analyzer/classify/include_reach.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_map>

namespace forkscope::analyzer::classify {
namespace {

constexpr std::string_view kExtensions[] = {".cu",  ".cuh", ".cpp", ".cc", ".cxx", ".c",  ".h",
                                            ".hpp", ".hh",  ".hxx", ".inl", ".ipp", ".tcc"};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view DirOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

// dir + "/" + name with "." and ".." segments folded; "" when ".." leaves the tree.
std::string Join(std::string_view dir, std::string_view name) {
  std::vector<std::string_view> parts;
  auto push = [&parts](std::string_view text) {
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t end = text.find('/', pos);
      if (end == std::string_view::npos) end = text.size();
      const std::string_view part = text.substr(pos, end - pos);
      pos = end + 1;
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        if (parts.empty()) return false;
        parts.pop_back();
        continue;
      }
      parts.push_back(part);
    }
    return true;
  };
  if (!push(dir) || !push(name)) return {};
  std::string out;
  for (const auto part : parts) {
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

// The include targets named by a file's #include lines, as written.
std::vector<std::string_view> IncludesOf(std::string_view text) {
  static const RE2 re(R"((?m)^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"])");
  std::vector<std::string_view> out;
  re2::StringPiece rest(text.data(), text.size());
  re2::StringPiece target;
  while (RE2::FindAndConsume(&rest, re, &target)) out.emplace_back(target.data(), target.size());
  return out;
}

}  // namespace

bool IsIncludeGraphPath(std::string_view path) {
  for (const auto ext : kExtensions)
    if (EndsWith(path, ext)) return true;
  return false;
}

const RE2& DeviceCodeRe() {
  static const RE2 re(
      R"(__global__|__device__|__shared__|__constant__|__syncthreads|__syncwarp|__launch_bounds__|__shfl\w*|)"
      R"(\b(?:threadIdx|blockIdx|blockDim|gridDim)\b|\bCUTE_(?:HOST_)?DEVICE\b|\bCUTLASS_(?:HOST_)?DEVICE\b|)"
      R"(\bCUTLASS_GLOBAL\b|\bcute::|\bcutlass::|#\s*include\s*[<"](?:cute|cutlass|cub|cooperative_groups)\b|)"
      R"(\basm\s*(?:volatile\s*)?\(|\b__asm__\b|\bptx\b|\btriton\b|\btilelang\b|\btl::)");
  return re;
}

const RE2& DeviceFileRe() {
  static const RE2 re(
      R"(__global__|__device__|__shared__|__constant__|__syncthreads|__syncwarp|__launch_bounds__|__shfl\w*|)"
      R"(\b(?:threadIdx|blockIdx|blockDim|gridDim)\b|\bCUTE_(?:HOST_)?DEVICE\b|\bCUTLASS_(?:HOST_)?DEVICE\b|)"
      R"(\bCUTLASS_GLOBAL\b|\basm\s*(?:volatile\s*)?\(|\b__asm__\b)");
  return re;
}

const RE2& BindingEntryRe() {
  static const RE2 re(
      R"(\bPYBIND11_MODULE\s*\(|\bTORCH_LIBRARY\w*\s*\(|\bPD_BUILD_\w*OP\s*\(|\bNB_MODULE\s*\(|\bPyInit_\w+\s*\()");
  return re;
}

namespace {

// A cheap look for the binding macros' names before the regex confirms one (most files name none).
bool MayBind(std::string_view text) {
  for (const std::string_view token : {"PYBIND11_MODULE", "TORCH_LIBRARY", "PD_BUILD_", "NB_MODULE", "PyInit_"})
    if (text.find(token) != std::string_view::npos) return true;
  return false;
}

}  // namespace

IncludeReach ComputeIncludeReach(const std::vector<std::pair<std::string, std::string>>& files) {
  IncludeReach reach;
  std::unordered_map<std::string_view, size_t> index;
  const size_t n = std::min(files.size(), kMaxIncludeGraphFiles);
  for (size_t i = 0; i < n; ++i) index.emplace(files[i].first, i);
  reach.files = n;
  auto resolve = [&index](std::string_view from, std::string_view target) -> std::optional<size_t> {
    std::vector<std::string> candidates;
    for (std::string_view dir = DirOf(from);; dir = DirOf(dir)) {  // the folder, then its parents
      candidates.push_back(Join(dir, target));
      if (dir.empty()) break;
    }
    for (const std::string_view root : {"csrc", "include", "src"}) candidates.push_back(Join(root, target));
    for (const auto& candidate : candidates) {
      if (candidate.empty()) continue;
      auto it = index.find(candidate);
      if (it != index.end()) return it->second;
    }
    return std::nullopt;
  };
  auto text_of = [&files](size_t i) {
    return std::string_view(files[i].second).substr(0, std::min(files[i].second.size(), kMaxIncludeGraphBytes));
  };
  // The roots first: a tree has a few binding files (none: nothing is reached), and only the files the
  // walk reaches from them have their includes read — not every header of a 5,000-file tree.
  std::deque<size_t> queue;
  std::vector<bool> seen(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view text = text_of(i);
    if (MayBind(text) && RE2::PartialMatch(text, BindingEntryRe()) && !RE2::PartialMatch(text, DeviceFileRe())) {
      reach.roots.insert(files[i].first);
      seen[i] = true;
      queue.push_back(i);
    }
  }
  while (!queue.empty()) {
    const size_t at = queue.front();
    queue.pop_front();
    const std::string_view text = text_of(at);
    // A device-code file passes nothing on (a root holds none).
    if (!reach.roots.count(files[at].first) && RE2::PartialMatch(text, DeviceFileRe())) continue;
    for (const auto target : IncludesOf(text)) {
      const std::optional<size_t> to = resolve(files[at].first, target);
      if (!to || *to == at) continue;
      ++reach.edges;
      if (seen[*to]) continue;
      seen[*to] = true;
      reach.host.insert(files[*to].first);
      queue.push_back(*to);
    }
  }
  return reach;
}

}  // namespace forkscope::analyzer::classify
