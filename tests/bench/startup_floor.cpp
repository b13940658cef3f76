// The start-up floor of any forkscope command (startup_bench.py): a program that only loads shared
// libraries and returns. Built twice (tests/CMakeLists.txt): with libgit2 alone, and with every fixed
// dependency forkscope links as a shared library (libgit2, cpp-httplib, spdlog). Linked with
// --no-as-needed so that the libraries are loaded although nothing here calls them; what it measures is
// the dynamic loader, relocations and the libraries' own initialisers (cpp-httplib's runs OpenSSL's).
int main() { return 0; }
