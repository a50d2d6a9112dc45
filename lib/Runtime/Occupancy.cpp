//===- Occupancy.cpp - a compiled kernel's resources and CTAs per SM -----===//
//
// The CUBIN is an ELF64 file: the per-kernel attributes ptxas records live
// in the `.nv.info` section as (format, attribute, size, value) records,
// the ones of a function naming it by its symbol index; the kernel's
// `__shared__` variables are the NOBITS section `.nv.shared.<kernel>`.
//
//===----------------------------------------------------------------------===//

#include "rkc/Occupancy.h"

#include <algorithm>
#include <cstring>

using namespace rkc;

namespace {

// Every record starts with 4 bytes: format, attribute, and a u16 that is
// the value (HVAL), its first byte (BVAL), unused (NVAL), or the size of
// the value that follows (SVAL).
constexpr uint8_t kEifmtSval = 0x04;
constexpr uint8_t kEifmtHval = 0x03;
constexpr uint8_t kEifmtBval = 0x02;
constexpr uint8_t kEifmtNval = 0x01;
constexpr uint8_t kEiattrFrameSize = 0x11;
constexpr uint8_t kEiattrRegcount = 0x2f;

template <class T> bool readAt(llvm::ArrayRef<char> b, uint64_t off, T &v) {
  if (off > b.size() || sizeof(T) > b.size() - off)
    return false;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return true;
}

struct Section {
  uint32_t name = 0, type = 0;
  uint64_t offset = 0, size = 0;
  uint32_t link = 0;
  uint64_t entsize = 0;
};

llvm::Error bad(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "CUBIN: " + why);
}

} // namespace

llvm::Expected<KernelResources> rkc::cubinResources(llvm::ArrayRef<char> b,
                                                    llvm::StringRef kernel) {
  if (b.size() < 64 || std::memcmp(b.data(), "\x7f" "ELF", 4) != 0 || b[4] != 2)
    return bad("not an ELF64 file");
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!readAt(b, 0x28, shoff) || !readAt(b, 0x3a, shentsize) || !readAt(b, 0x3c, shnum) ||
      !readAt(b, 0x3e, shstrndx) || shentsize < 64 || shstrndx >= shnum)
    return bad("no section headers");
  std::vector<Section> secs(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t o = shoff + (uint64_t)i * shentsize;
    Section &s = secs[i];
    if (!readAt(b, o, s.name) || !readAt(b, o + 4, s.type) || !readAt(b, o + 24, s.offset) ||
        !readAt(b, o + 32, s.size) || !readAt(b, o + 40, s.link) || !readAt(b, o + 56, s.entsize))
      return bad("truncated section header");
    if (s.type != 8 /*NOBITS*/ && (s.offset > b.size() || s.size > b.size() - s.offset))
      return bad("section past the end of the file");
  }
  auto strAt = [&](const Section &tab, uint64_t off) -> llvm::StringRef {
    if (off >= tab.size)
      return {};
    const char *p = b.data() + tab.offset + off;
    return llvm::StringRef(p, strnlen(p, tab.size - off));
  };
  const Section &shstr = secs[shstrndx];
  // The kernel's symbol index (what its .nv.info records name).
  int64_t sym = -1;
  for (const Section &s : secs) {
    if (s.type != 2 /*SYMTAB*/ || s.entsize < 24 || s.link >= shnum)
      continue;
    for (uint64_t o = 0; o + 24 <= s.size && sym < 0; o += s.entsize) {
      uint32_t nameOff = 0;
      readAt(b, s.offset + o, nameOff);
      if (strAt(secs[s.link], nameOff) == kernel)
        sym = (int64_t)(o / s.entsize);
    }
  }
  if (sym < 0)
    return bad("no symbol '" + kernel + "'");
  KernelResources r;
  bool haveRegs = false, reserved = false;
  for (const Section &s : secs) {
    llvm::StringRef name = strAt(shstr, s.name);
    if (name == (".nv.shared." + kernel).str())
      r.staticSmemBytes = (int)s.size;
    reserved |= name.starts_with(".nv.shared.reserved.");
    if (!name.starts_with(".nv.info"))
      continue;
    for (uint64_t o = s.offset, end = s.offset + s.size; o + 2 <= end;) {
      uint8_t fmt = (uint8_t)b[o], attr = (uint8_t)b[o + 1];
      if (fmt == kEifmtNval || fmt == kEifmtBval || fmt == kEifmtHval) {
        o += 4; // the value, if any, in the header's last two bytes
      } else if (fmt == kEifmtSval) {
        uint16_t len = 0;
        uint32_t fn = 0, value = 0;
        if (!readAt(b, o + 2, len) || o + 4 + len > end)
          return bad("truncated attribute in " + name);
        if ((attr == kEiattrRegcount || attr == kEiattrFrameSize) && len >= 8 &&
            readAt(b, o + 4, fn) && readAt(b, o + 8, value) && fn == (uint32_t)sym) {
          if (attr == kEiattrRegcount) {
            r.registers = (int)value;
            haveRegs = true;
          } else {
            r.frameBytes = (int)value;
          }
        }
        o += 4 + len;
      } else {
        return bad("unknown attribute format in " + name);
      }
    }
  }
  if (!haveRegs)
    return bad("no register count for '" + kernel + "'");
  // sm_90 CUBINs count the 1 KiB a CTA the system reserves in the kernel's
  // own section (and carry a `.nv.shared.reserved.*` one); sm_80's do not.
  // Report the kernel's variables alone, as ptxas -v does.
  if (reserved && r.staticSmemBytes >= plan::Target::kReservedSmemPerCta)
    r.staticSmemBytes -= (int)plan::Target::kReservedSmemPerCta;
  return r;
}

Occupancy rkc::occupancy(const plan::Target &t, int64_t ctaThreads, const KernelResources &r,
                         int64_t dynamicSmem) {
  Occupancy o;
  int64_t warps = std::max<int64_t>((ctaThreads + 31) / 32, 1);
  plan::Target::CtaLimits l = t.ctaLimits(ctaThreads, r.registers, r.staticSmemBytes + dynamicSmem);
  o.byRegisters = l.byRegisters;
  o.bySharedMemory = l.bySharedMemory;
  o.byThreads = l.byThreads;
  o.byCtaSlots = l.byCtaSlots;
  o.ctasPerSm = l.least();
  o.warpsPerSm = o.ctasPerSm * warps;
  o.maxWarpsPerSm = t.maxThreadsPerSm / 32;
  return o;
}
