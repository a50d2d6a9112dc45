//===- TierDialect.td - the tier dialect: how a kernel runs -*- tablegen -*-===//
#ifndef TIER_DIALECT_TD
#define TIER_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tier_Dialect : Dialect {
  let name = "tier";
  let cppNamespace = "::mlir::tier";
  let summary = "How a row kernel runs: TV layout, schedule and per-tier ops";
  let description = [{
    The `tier` dialect is the plan for one shape on one architecture. Its
    attributes say how a row is laid over threads and values
    (`#tier.tv_layout`) and how reductions climb the hardware tiers, how big
    the thread-block cluster is and where the row is staged
    (`#tier.schedule`). Its ops are per-thread: fragments of a row held in
    registers, reductions at each tier (thread, warp, block, cluster), and
    vector loads and stores with predicated tails. Nothing in `tier` is
    shape-generic; `tier-emit-cuda` turns it into CUDA C++.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

class Tier_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tier_Dialect, mnemonic, traits>;

#endif // TIER_DIALECT_TD
