// libgit2's TLS trust store, loaded on the first TLS connection instead of at git_libgit2_init()
// (see tls.cpp for how and why). Thread contract: InitLibgit2WithoutTrustStore runs once, inside
// GlobalInit(); the queries may be called from any thread.
#pragma once

namespace forkscope::analyzer::git {

// git_libgit2_init() with the CA bundle's parse deferred to the first TLS stream.
void InitLibgit2WithoutTrustStore();

// Whether init's CA bundle load was deferred (false with a libgit2 that does not use mbedTLS).
bool TrustStoreDeferred();

// Whether the deferred CA bundle has been loaded (by a first https connection).
bool TrustStoreLoaded();

}  // namespace forkscope::analyzer::git
