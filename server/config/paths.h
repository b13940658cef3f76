// Default locations: the data directory and the database inside it.
#pragma once

#include <string>

namespace forkscope::server {

// $FORKSCOPE_DATA_DIR, else $XDG_DATA_HOME/forkscope, else ~/.local/share/forkscope, else ./.forkscope.
std::string DefaultDataDir();
std::string DatabasePath(const std::string& data_dir);

}  // namespace forkscope::server
