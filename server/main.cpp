// forkscope: wires the command line to the services; nothing else lives here.
#include "server/cli/cli.h"

int main(int argc, char** argv) { return forkscope::server::RunCli(argc, argv); }
