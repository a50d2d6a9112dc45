//===- DiskCache.h - the on-disk CUBIN cache ----------------------*- C++ -*-===//
//
// $RKC_CACHE_DIR (default ~/.cache/rkc)/kernels/<key>.rkc holds one compiled
// kernel: a header with the key and a SHA-256 of the payload, then the
// kernel description, CUBIN, PTX and CUDA. Entries are written atomically
// (temp file + rename) and checked before use; anything that does not
// verify (truncated, corrupt, another rkc version, another key) is ignored
// and rebuilt. The directory is created 0700; a directory owned by another
// user or writable by others is not trusted (a warning, then no disk cache).
//
//===----------------------------------------------------------------------===//
#ifndef RKC_LIB_RUNTIME_DISKCACHE_H
#define RKC_LIB_RUNTIME_DISKCACHE_H

#include "rkc/Compile.h"

#include <optional>
#include <string>

namespace rkc::diskcache {

/// The cache directory if it can be used (created if missing); nullopt
/// with a warning on stderr (once) otherwise. RKC_CACHE_DIR="" or
/// RKC_DISABLE_DISK_CACHE=1 turn the cache off.
std::optional<std::string> directory();

/// The entry for `key`, if present and valid.
std::optional<CompileResult> load(const std::string &key);

/// Stores `result` under `key`; failures only warn.
void store(const std::string &key, const CompileResult &result);

/// Serialisation, exposed for tests.
std::string serialize(const std::string &key, const CompileResult &result);
std::optional<CompileResult> deserialize(const std::string &key,
                                         const std::string &bytes);

} // namespace rkc::diskcache

#endif
