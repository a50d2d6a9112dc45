//===- OutputFile.h - writing an output file the user named -----*- C++ -*-===//
//
// `rkc compile -o FILE` and `rkc tune --export FILE`: a regular file is
// written whole or not at all (a temporary file in its directory, renamed
// over it once complete, so an error never leaves a partial output); what
// is not a regular file is written through, as a shell redirection would:
// a device (`-o /dev/null`), a FIFO, a symlink's target (the link stays).
//
//===----------------------------------------------------------------------===//
#ifndef RKC_OUTPUTFILE_H
#define RKC_OUTPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace rkc {

/// Writes `data` to `path` as above. The error reads "cannot write 'PATH':
/// REASON".
llvm::Error writeOutputFile(llvm::StringRef path, llvm::StringRef data);

} // namespace rkc

#endif // RKC_OUTPUTFILE_H
