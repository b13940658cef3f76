// libgit2 initialised without loading the TLS trust store; it is loaded on the first TLS connection.
//
// Why: Debian 12's libgit2 1.5 is built against mbedTLS and parses the whole CA bundle
// (/etc/ssl/certs/ca-certificates.crt, ~140 PEM certificates) inside git_libgit2_init(): ~54 M
// instructions, about a third of a cached one-shot `forkscope analyze`, and nothing a local mirror or
// an ssh:// or git:// remote ever uses. libgit2 offers no option to skip it, so this file interposes
// the two mbedTLS calls libgit2 makes (ELF symbol interposition: the executable's definitions come
// first in the dynamic linker's search order; the real ones are reached through RTLD_NEXT):
//  - mbedtls_x509_crt_parse_file, while GlobalInit() runs git_libgit2_init(): the bundle's path is
//    remembered and nothing is parsed (libgit2 keeps an empty chain);
//  - mbedtls_ssl_setup, which libgit2 calls for every new TLS stream before it connects: the first
//    call loads the remembered bundle through GIT_OPT_SET_SSL_CERT_LOCATIONS (what libgit2's own init
//    would have loaded), unless certificate locations were set explicitly since.
// Every other call goes straight to mbedTLS. A libgit2 built with OpenSSL (or another backend) never
// calls either function, and everything happens as without this file.
// Thread contract: the deferral happens inside GlobalInit's call_once; the load runs once, under
// std::call_once, before any TLS stream of the process is set up.
#include "analyzer/git/tls.h"
#include "base/log.h"

#include <dlfcn.h>
#include <git2.h>

#include <atomic>
#include <mutex>
#include <string>

struct mbedtls_x509_crt;
struct mbedtls_ssl_context;
struct mbedtls_ssl_config;

namespace forkscope::analyzer::git {
namespace {

std::atomic<bool> deferring{false};           // inside git_libgit2_init()
std::string deferred_bundle;                  // written during the deferral only, read after it
std::atomic<bool> explicit_locations{false};  // someone set certificate locations after init
std::atomic<bool> bundle_loaded{false};
std::once_flag load_once;
thread_local bool loading_deferred = false;

template <typename Fn>
Fn Next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

void LoadDeferredBundle() {
  if (deferred_bundle.empty() || explicit_locations.load()) return;
  loading_deferred = true;
  const int rc = git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, deferred_bundle.c_str(), nullptr);
  loading_deferred = false;
  if (rc < 0) {
    const git_error* e = git_error_last();
    base::Log(base::LogArea::kGit)
        ->warn("tls ca_bundle={} error=\"{}\"", deferred_bundle, e && e->message ? e->message : "unknown");
    return;
  }
  bundle_loaded = true;
  base::Log(base::LogArea::kGit)->debug("tls ca_bundle={} loaded=on-first-use", deferred_bundle);
}

}  // namespace

void InitLibgit2WithoutTrustStore() {
  deferring = true;
  git_libgit2_init();
  deferring = false;
}

bool TrustStoreDeferred() { return !deferred_bundle.empty(); }

bool TrustStoreLoaded() { return bundle_loaded.load(); }

}  // namespace forkscope::analyzer::git

namespace fsgit = forkscope::analyzer::git;

extern "C" __attribute__((visibility("default"))) int mbedtls_x509_crt_parse_file(mbedtls_x509_crt* chain,
                                                                                  const char* path) {
  using Fn = int (*)(mbedtls_x509_crt*, const char*);
  static const Fn real = fsgit::Next<Fn>("mbedtls_x509_crt_parse_file");
  // Only the first parse of init is the default bundle; anything else (a directory's files) is real.
  if (fsgit::deferring.load() && fsgit::deferred_bundle.empty() && path != nullptr) {
    fsgit::deferred_bundle = path;
    return 0;
  }
  if (!fsgit::deferring.load() && !fsgit::loading_deferred) fsgit::explicit_locations = true;
  return real != nullptr ? real(chain, path) : -1;
}

extern "C" __attribute__((visibility("default"))) int mbedtls_ssl_setup(mbedtls_ssl_context* ssl,
                                                                        const mbedtls_ssl_config* conf) {
  using Fn = int (*)(mbedtls_ssl_context*, const mbedtls_ssl_config*);
  static const Fn real = fsgit::Next<Fn>("mbedtls_ssl_setup");
  std::call_once(fsgit::load_once, fsgit::LoadDeferredBundle);
  return real != nullptr ? real(ssl, conf) : -1;
}
