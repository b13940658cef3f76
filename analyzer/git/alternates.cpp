// objects/info/alternates of a fork mirror (replay_internal.h): the on-disk twin of the in-memory
// alternate PairRepo::Open attaches, written when a carry leaves a candidate that references upstream
// objects. Plain file I/O; the caller holds the fork mirror's lock.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyzer/git/replay_internal.h"

namespace forkscope::analyzer::git {
namespace fs = std::filesystem;

std::string MirrorPathOf(git_repository* repo) {
  std::string path = git_repository_path(repo);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

Status LinkUpstreamObjects(git_repository* fork, git_repository* upstream) {
  std::error_code ec;
  const fs::path fork_objects = fs::path(MirrorPathOf(fork)) / "objects";
  const fs::path upstream_objects = fs::weakly_canonical(fs::path(MirrorPathOf(upstream)) / "objects", ec);
  if (ec) return Internal("upstream objects directory: " + ec.message());
  if (fs::weakly_canonical(fork_objects, ec) == upstream_objects) return Status::Ok();
  const fs::path file = fork_objects / "info" / "alternates";
  std::string existing;
  if (std::ifstream in(file); in) {
    std::stringstream ss;
    ss << in.rdbuf();
    existing = ss.str();
  }
  std::istringstream lines(existing);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    fs::path listed = fs::path(line).is_absolute() ? fs::path(line) : fork_objects / line;  // git: relative to objects/
    if (fs::weakly_canonical(listed, ec) == upstream_objects) return Status::Ok();
  }
  if (!existing.empty() && existing.back() != '\n') existing += '\n';
  existing += upstream_objects.string() + "\n";
  fs::create_directories(file.parent_path(), ec);
  const fs::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << existing;
    if (!out.good()) return Unavailable("cannot write " + tmp.string());
  }
  fs::rename(tmp, file, ec);
  if (ec) return Unavailable("cannot replace " + file.string() + ": " + ec.message());
  return Status::Ok();
}

}  // namespace forkscope::analyzer::git
