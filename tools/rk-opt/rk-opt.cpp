//===- rk-opt.cpp - MlirOptMain with the rk and tier dialects -------------===//

#include "rkc/Pipeline.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  rkc::registerDialects(registry);
  rkc::registerPassesAndPipeline();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "rkc " RKC_VERSION " (rk-opt)\n";
  });
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "rkc optimizer driver (rk and tier dialects)\n", registry));
}
