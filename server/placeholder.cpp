// placeholder until the CLI lands
namespace forkscope::server { int kServerPlaceholder = 0; }
