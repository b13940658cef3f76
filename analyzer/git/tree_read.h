// Reading a commit of a bare repository without a work tree: its gitlinks (the commits its submodules
// are pinned to) and the text of the files a caller picks, in one walk of the tree. What an
// integrator's sync reads (analyzer/integration/integrator.h). Each call opens its own
// git_repository; any thread may call.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace forkscope::analyzer::git {

struct Gitlink {
  std::string path;  // where the submodule sits in the tree
  std::string sha;   // the commit it is pinned to
};

struct TreeRead {
  std::string commit;                        // the commit rev resolved to
  std::vector<Gitlink> gitlinks;             // every entry of mode 160000, in tree order
  std::map<std::string, std::string> files;  // path -> text of each picked blob (up to max_file_bytes)
  size_t entries = 0;                        // tree entries walked
};

// Reads rev ("refs/heads/main", "refs/upstream/heads/develop", a sha) of the bare repository at
// repo_path. want decides by path which blobs are read. NotFound when rev names nothing.
Result<TreeRead> ReadTree(const std::string& repo_path, const std::string& rev,
                          const std::function<bool(std::string_view path)>& want,
                          size_t max_file_bytes = size_t{4} << 20);

}  // namespace forkscope::analyzer::git
