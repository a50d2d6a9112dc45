//===- OutputFile.cpp - writing an output file the user named ------------===//
//
// A regular file (or a new one) is replaced atomically: a temporary file in
// the same directory, renamed over the target once written. A symlink is
// resolved first, so that its target is replaced and the link kept. A
// device, FIFO or socket cannot be replaced (renaming over /dev/null as
// root would turn it into a regular file): it is opened and written
// through. Where the directory refuses a temporary file but the existing
// file itself is writable, the file is rewritten in place.
//
//===----------------------------------------------------------------------===//

#include "rkc/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

Error failure(StringRef path, const Twine &why) {
  return createStringError(("cannot write '" + path + "': " + why).str());
}

/// Opens `path` as it is (no temporary file) and writes `data` into it;
/// errors name `shown`, the path the user gave.
Error writeInPlace(StringRef shown, StringRef path, StringRef data) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return failure(shown, ec.message());
  os << data;
  os.flush();
  if (os.has_error()) {
    std::error_code err = os.error();
    os.clear_error();
    return failure(shown, err.message());
  }
  return Error::success();
}

} // namespace

Error rkc::writeOutputFile(StringRef path, StringRef data) {
  SmallString<256> target(path);
  if (sys::fs::is_symlink_file(path)) {
    SmallString<256> real;
    if (sys::fs::real_path(path, real))
      return writeInPlace(path, path, data); // a dangling link: create its target
    target = real;
  }
  sys::fs::file_status st;
  if (!sys::fs::status(target, st)) {
    sys::fs::file_type type = st.type();
    if (type == sys::fs::file_type::directory_file)
      return failure(path, "is a directory");
    if (type != sys::fs::file_type::regular_file)
      return writeInPlace(path, target, data); // /dev/null, a FIFO, ...
  }
  SmallString<256> dir(target);
  sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  SmallString<256> model(dir), tmp;
  sys::path::append(model, ".rkc-%%%%%%%%.tmp");
  int fd;
  if (std::error_code ec = sys::fs::createUniqueFile(model, fd, tmp)) {
    if (sys::fs::exists(target) && !sys::fs::access(target, sys::fs::AccessMode::Write))
      return writeInPlace(path, target, data);
    return failure(path, ec.message());
  }
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << data;
    os.flush();
    if (os.has_error()) {
      std::error_code err = os.error();
      os.clear_error();
      sys::fs::remove(tmp);
      return failure(path, err.message());
    }
  }
  if (std::error_code ec = sys::fs::rename(tmp, target)) {
    sys::fs::remove(tmp);
    return failure(path, ec.message());
  }
  return Error::success();
}
