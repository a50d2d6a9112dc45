// libFuzzer target: spec text -> parse + verify with every rkc dialect
// registered (the front end alone, fast: most inputs are malformed text).
// pipeline_fuzzer.cpp takes the inputs that verify through the pipeline.
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rkc::fuzz::Context c;
  (void)rkc::fuzz::parse(c, data, size);
  return 0;
}
