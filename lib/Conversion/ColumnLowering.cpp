//===- ColumnLowering.cpp - column programs to K-split tier ops -----------===//
//
// Part of rk-lower-to-tier. Obeys #tier.ksplit_layout, never decides:
//   rk.gemv       -> tier.kdot (thread partials over its K range)
//                    -> tier.ksplit_reduce (warps, then cluster DSMEM)
//                    -> [tier.load_tile bias + tier.map add] -> tier.store_tile
//   rk.dequantize -> tier.dequantize_tile
//   rk.quantize   -> tier.quantize_tile
//
//===----------------------------------------------------------------------===//

#include "ColumnLowering.h"

#include "rk/RkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

LogicalResult rkc::lowerColumnProgram(func::FuncOp func, tier::KSplitLayoutAttr layout) {
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Operation *op = nullptr;
  for (Operation &o : body)
    if (isa<rk::GemvOp, rk::QuantizeOp, rk::DequantizeOp>(o))
      op = &o;
  if (!op)
    return func.emitError("no quantized op to lower");
  for (Value v : ret.getOperands())
    if (v.getDefiningOp() != op)
      return ret.emitError("a column kernel returns the results of its quantized op");

  OpBuilder b(ret);
  unsigned numIn = func.getNumArguments();
  // One destination argument per result of the op, in result order.
  SmallVector<BlockArgument> dests;
  for (Value r : op->getResults())
    dests.push_back(body.addArgument(r.getType(), r.getLoc()));
  Location loc = op->getLoc();
  MLIRContext *ctx = func.getContext();
  Type f32 = Float32Type::get(ctx);

  if (auto g = dyn_cast<rk::GemvOp>(op)) {
    // Tensor cores: four m16n8 accumulators (16 values) per thread.
    int64_t partialSize = layout.getPartialSize();
    auto partial = tier::FragType::get(ctx, partialSize, f32);
    Value p = tier::KDotOp::create(b, loc, partial, g.getAct(), g.getWeight(),
                                   g.getScales(), g.getZeros());
    int64_t share = ceilDiv(layout.getRows() * layout.getTileCols(),
                            layout.getCtaThreads() * layout.getCluster());
    auto outFrag = tier::FragType::get(ctx, share, f32);
    Value o = tier::KSplitReduceOp::create(b, loc, outFrag, p);
    if (Value bias = g.getBias()) {
      Value bv = tier::LoadTileOp::create(b, loc, outFrag, bias);
      auto map = tier::MapOp::create(b, loc, TypeRange{outFrag}, ValueRange{o, bv});
      Block *blk = b.createBlock(&map.getBody(), {}, {f32, f32}, {loc, loc});
      Value sum = arith::AddFOp::create(b, loc, blk->getArgument(0), blk->getArgument(1));
      tier::YieldOp::create(b, loc, ValueRange{sum});
      b.setInsertionPoint(ret);
      o = map.getResult(0);
    }
    tier::StoreTileOp::create(b, loc, o, dests[0]);
  } else if (auto d = dyn_cast<rk::DequantizeOp>(op)) {
    tier::DequantizeTileOp::create(b, loc, d.getQuantized(), d.getScales(),
                                   d.getZeros(), dests[0]);
  } else {
    auto q = cast<rk::QuantizeOp>(op);
    tier::QuantizeTileOp::create(b, loc, q.getInput(), dests[0], dests[1],
                                 dests.size() > 2 ? Value(dests[2]) : Value());
  }

  unsigned numOut = dests.size();
  func::ReturnOp::create(b, ret.getLoc());
  ret.erase();
  op->dropAllUses();
  op->erase();
  SmallVector<Type> argTypes(body.getArgumentTypes());
  func.setType(FunctionType::get(ctx, argTypes, {}));
  for (unsigned i = 0; i < numOut; ++i) {
    func.setArgAttr(numIn + i, "rk.name", b.getStringAttr("out" + std::to_string(i)));
    func.setArgAttr(numIn + i, "tier.output", b.getUnitAttr());
  }
  return success();
}
